import { useQuery } from '@tanstack/react-query';
import type { z } from 'zod';
import type { AlertKind, Platform, SentimentLabel, Severity } from '../../../src/modules/social/social.entities';
import type { alertView, competitorView, postView, profileView } from '../../../src/modules/social/social.schemas';
import { api, queryClient } from '../app/api';
import type { Tone } from '../app/tones';

export type Competitor = z.output<typeof competitorView>;
export type Profile = z.output<typeof profileView>;
export type Post = z.output<typeof postView>;
export type Alert = z.output<typeof alertView>;

export const SOCIAL = '/redes';
export const API = '/api/social-monitoring';
export const COMPETITORS = `${API}/competitors`;
export const POSTS = `${API}/posts`;
export const ALERTS = `${API}/alerts`;

export const PLATFORM_LABELS: Record<Platform, string> = { facebook: 'Facebook', instagram: 'Instagram', x: 'X', youtube: 'YouTube', tiktok: 'TikTok' };
export const PLATFORM_OPTIONS = Object.entries(PLATFORM_LABELS).map(([value, label]) => ({ value, label }));

export const SEVERITY_LABELS: Record<Severity, { label: string; tone: Tone }> = {
  critical: { label: 'Crítica', tone: 'red' },
  warning: { label: 'Atención', tone: 'orange' },
  info: { label: 'Informativa', tone: 'blue' },
};

export const KIND_LABELS: Record<AlertKind, string> = {
  new_post: 'Publicación nueva',
  keyword: 'Palabra clave',
  engagement_spike: 'Despegue de interacción',
  follower_change: 'Cambio de seguidores',
  negative_sentiment: 'Conversación negativa',
};

export const SENTIMENT_LABELS: Record<SentimentLabel, { label: string; tone: Tone }> = {
  positive: { label: 'Positivo', tone: 'green' },
  neutral: { label: 'Neutral', tone: 'gray' },
  negative: { label: 'Negativo', tone: 'red' },
};

/** Each connector health in words, with what a person can do about it. */
export const PROFILE_STATUS: Record<Profile['status'], { label: string; tone: Tone }> = {
  ok: { label: 'Al día', tone: 'green' },
  pending: { label: 'Pendiente', tone: 'blue' },
  failing: { label: 'Con fallas', tone: 'orange' },
  paused: { label: 'Pausado', tone: 'red' },
  not_configured: { label: 'Sin credenciales', tone: 'gray' },
  import_only: { label: 'Por importación', tone: 'gray' },
};

/** Every competitor (a campaign watches tens), for names in lists and filters. */
export function useCompetitors() {
  return useQuery({ queryKey: ['social', 'competitors', 'all'], queryFn: () => api.all<Competitor>(COMPETITORS, 500), staleTime: 60_000 });
}

/** After a competitor or profile changed: every list and page of them. */
export const refreshCompetitors = () =>
  queryClient.invalidateQueries({ predicate: (query) => JSON.stringify(query.queryKey).includes(COMPETITORS) || query.queryKey[0] === 'social' });

export { alertReasons } from './reasons';
