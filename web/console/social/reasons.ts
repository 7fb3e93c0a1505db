import type { AlertKind } from '../../../src/modules/social/social.constants';

const number = new Intl.NumberFormat('es-CO', { maximumFractionDigits: 2 });
const say = (value: unknown) => (typeof value === 'number' ? number.format(value) : String(value));

/** Why an alert fired, in Spanish, from its details (docs/social-monitoring.md gives each formula). */
export function alertReasons(kind: AlertKind, details: Record<string, unknown>): string[] {
  const reasons: string[] = [];
  if (kind === 'engagement_spike') {
    const rate = details.measure === 'engagementRate';
    const unit = rate ? ' %' : '';
    reasons.push(
      `${rate ? 'Tasa de interacción' : 'Interacción'} de ${say(details.value)}${unit} frente a un promedio de ${say(details.baselineMean)}${unit} en ${say(details.baselinePosts)} publicaciones anteriores`,
    );
    if (typeof details.zScore === 'number') reasons.push(`${say(details.zScore)} desviaciones estándar sobre el promedio`);
  } else if (kind === 'keyword' && Array.isArray(details.matched)) {
    reasons.push(`Menciona: ${details.matched.join(', ')}`);
  } else if (kind === 'follower_change') {
    reasons.push(`De ${say(details.referenceFollowers)} a ${say(details.followers)} seguidores (${say(details.percent)} %)`);
  } else if (kind === 'negative_sentiment') {
    reasons.push(`${say(details.negative)} de ${say(details.posts)} publicaciones que nos mencionan son negativas (umbral ${say(Number(details.threshold) * 100)} %)`);
  }
  if (typeof details.excerpt === 'string' && details.excerpt) reasons.push(`«${details.excerpt}»`);
  return reasons;
}
