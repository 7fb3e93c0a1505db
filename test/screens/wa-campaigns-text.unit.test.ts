/**
 * What the WhatsApp campaign screens compute without a browser: a send's progress, what the
 * messaging tier makes of a send, a template's text with its variables, and a time in Bogotá as
 * the instant the API schedules at.
 */
import { localInstant } from '../../web/console/app/format';
import { percentDone, renderBody, sendDuration, tierMeaning, type Campaign, type CampaignPreview } from '../../web/console/whatsapp/campaigns';

const progress = (values: Partial<Campaign['progress']>): Campaign['progress'] => ({
  queued: 0,
  sending: 0,
  inDoubt: 0,
  sent: 0,
  delivered: 0,
  read: 0,
  failed: 0,
  skipped: 0,
  cancelled: 0,
  replied: 0,
  simulated: 0,
  ...values,
});

describe('a send’s progress', () => {
  it('counts every message the sender is done with (failed, skipped and in doubt too) over those written at send time', () => {
    expect(percentDone({ status: 'draft', queued: 0, progress: progress({}) })).toBe(0);
    expect(percentDone({ status: 'sending', queued: 40, progress: progress({ queued: 30, sending: 2 }) })).toBe(20);
    expect(percentDone({ status: 'paused', queued: 3, progress: progress({ queued: 2 }) })).toBe(33);
    expect(percentDone({ status: 'completed', queued: 40, progress: progress({ sent: 38, failed: 1, inDoubt: 1 }) })).toBe(100);
    // Cancelled before its first message: nothing was written, nothing is left.
    expect(percentDone({ status: 'completed', queued: 0, progress: progress({}) })).toBe(100);
  });
});

describe('what the messaging tier means for a send', () => {
  const preview = (reachable: number, limit: number | null, used: number, rate = 80): CampaignPreview => ({
    reachable,
    tier: { limit, usedLast24h: used, remaining: limit === null ? null : Math.max(0, limit - used) },
    ratePerSecond: rate,
    provider: 'simulator',
  });

  it('says when the whole send fits the 24 hours and how long it takes at the number’s rate', () => {
    expect(tierMeaning(preview(1200, 2000, 300))).toBe(
      'Nivel de mensajería: hasta 2.000 personas distintas cada 24 horas; ya se usaron 300, quedan 1.700. Este envío cabe completo: sale a 80 mensajes por segundo, en menos de un minuto.',
    );
    expect(tierMeaning(preview(30_000, null, 0, 80))).toBe('Nivel de mensajería sin límite diario: el envío sale completo a 80 mensajes por segundo, en unos 6 minutos.');
  });

  it('says how many go now and how many wait when it does not fit', () => {
    expect(tierMeaning(preview(400, 250, 10))).toBe(
      'Nivel de mensajería: hasta 250 personas distintas cada 24 horas; ya se usaron 10, quedan 240. Este envío no cabe: salen 240 ahora (a 80 mensajes por segundo) y 160 personas esperan a que se libere el cupo de las últimas 24 horas.',
    );
    expect(tierMeaning(preview(2, 250, 249, 1))).toContain('salen 1 ahora (a 1 mensaje por segundo) y 1 persona espera');
  });

  it('rounds a long send to minutes, then hours', () => {
    expect(sendDuration(59, 1)).toBe('menos de un minuto');
    expect(sendDuration(61, 1)).toBe('cerca de un minuto');
    expect(sendDuration(150, 1)).toBe('unos 3 minutos');
    expect(sendDuration(100_000, 10)).toBe('unas 3 horas');
  });
});

describe('a template’s text for one person', () => {
  it('fills {{n}} with the n-th value and leaves a placeholder without one as written', () => {
    expect(renderBody('Hola {{1}}, te esperamos el {{2}}.', ['Ana', 'sábado'])).toBe('Hola Ana, te esperamos el sábado.');
    expect(renderBody('Hola {{ 1 }} y {{2}}', ['Ana'])).toBe('Hola Ana y {{2}}');
  });
});

describe('a time in Bogotá', () => {
  it('is the instant with the zone’s offset, as the API schedules at; incomplete input is nothing', () => {
    expect(localInstant('2026-12-07', '09:30')).toBe('2026-12-07T09:30:00-05:00');
    expect(localInstant('2026-12-07', '09:30', 'UTC')).toBe('2026-12-07T09:30:00+00:00');
    expect(localInstant('2026-12-07', '')).toBeUndefined();
    expect(localInstant('', '09:30')).toBeUndefined();
  });
});
