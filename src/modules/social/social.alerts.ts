import type { AppDeps } from '../../kernel/context';
import { localClock } from '../../kernel/calendar';
import {
  candidatePosts,
  engagementBaselines,
  followerChanges,
  insertAlerts,
  sentimentAboutUs,
  type AlertRecord,
  type CandidatePost,
  type NewAlert,
} from './social.alerts.repository';
import { DASHBOARD_ROOM, SOCIAL_ROOM, type SocialAlertEvent } from './social.events';
import { allRules, type RuleRecord } from './social.repository';
import { ruleParamsByKind, type RuleParams } from './social.schemas';

/** Only posts published this recently can "take off": older ones are history, whatever their counts do. */
export const SPIKE_TARGET_DAYS = 7;

const excerpt = (text: string, length = 200) => (text.length > length ? `${text.slice(0, length - 1)}…` : text);
const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;

export interface Changes {
  /** Posts seen for the first time. */
  created: readonly string[];
  /** Every post written (new or with fresher counts). */
  touched: readonly string[];
  /** Profiles with new follower counts. */
  profileIds: readonly string[];
}

/** A stored rule's settings, read through its kind's schema so an edited default never breaks evaluation. */
function paramsOf<K extends keyof RuleParams>(rule: RuleRecord, kind: K): RuleParams[K] | undefined {
  const parsed = ruleParamsByKind[kind].safeParse(rule.params);
  return parsed.success ? (parsed.data as RuleParams[K]) : undefined;
}

const inScope = (rule: RuleRecord, competitorId: string) => rule.competitorId === null || rule.competitorId === competitorId;

function postAlert(rule: RuleRecord, post: CandidatePost, title: string, details: Record<string, unknown>): NewAlert {
  return {
    ruleId: rule.id,
    kind: rule.kind,
    dedupeKey: `${rule.kind}:${rule.id}:${post.id}`,
    competitorId: post.competitorId,
    profileId: post.profileId,
    postId: post.id,
    severity: rule.severity,
    title,
    details: { platform: post.platform, url: post.url, publishedAt: post.publishedAt.toISOString(), excerpt: excerpt(post.text), ...details },
  };
}

function newPostAlerts(rule: RuleRecord, posts: readonly CandidatePost[], now: Date): NewAlert[] {
  const params = paramsOf(rule, 'new_post');
  if (!params) return [];
  const since = now.getTime() - params.maxAgeHours * 3_600_000;
  return posts
    .filter((post) => inScope(rule, post.competitorId) && (params.includeOwn || !post.isOwn) && post.publishedAt.getTime() >= since)
    .map((post) => postAlert(rule, post, `${post.competitorName} publicó en ${post.platform}`, {}));
}

function keywordAlerts(rule: RuleRecord, posts: readonly CandidatePost[]): NewAlert[] {
  const params = paramsOf(rule, 'keyword');
  if (!params) return [];
  const wanted = new Set(params.keywords);
  const alerts: NewAlert[] = [];
  for (const post of posts) {
    if (post.isOwn || !inScope(rule, post.competitorId)) continue;
    const matched = post.keywords.filter((keyword) => wanted.has(keyword));
    if (params.includeOwnNames && post.mentionsUs) matched.push('(nuestro candidato)');
    if (matched.length) alerts.push(postAlert(rule, post, `${post.competitorName}: ${matched.join(', ')}`, { matched }));
  }
  return alerts;
}

async function spikeAlerts(deps: Pick<AppDeps, 'db'>, rule: RuleRecord, touched: readonly string[], now: Date): Promise<NewAlert[]> {
  const params = paramsOf(rule, 'engagement_spike');
  if (!params) return [];
  const since = new Date(now.getTime() - SPIKE_TARGET_DAYS * 86_400_000);
  const alerts: NewAlert[] = [];
  for (const row of await engagementBaselines(deps.db, touched, since, params.baselineDays)) {
    if (!inScope(rule, row.competitorId)) continue;
    // The rate (by followers) when this post and enough of the baseline have one; raw engagement otherwise.
    const byRate = row.engagementRate !== null && row.postsWithRate >= params.minBaselinePosts;
    const value = byRate ? row.engagementRate! : row.engagement;
    const baselinePosts = byRate ? row.postsWithRate : row.posts;
    const mean = byRate ? row.meanRate : row.meanEngagement;
    const sd = byRate ? row.sdRate : row.sdEngagement;
    if (baselinePosts < params.minBaselinePosts || mean === null || mean <= 0) continue;
    const z = sd && sd > 0 ? (value - mean) / sd : null;
    const fires = params.method === 'zscore' ? z !== null && z >= params.k : value >= params.ratio * mean;
    if (!fires) continue;
    alerts.push({
      ruleId: rule.id,
      kind: rule.kind,
      dedupeKey: `${rule.kind}:${rule.id}:${row.id}`,
      competitorId: row.competitorId,
      profileId: row.profileId,
      postId: row.id,
      severity: rule.severity,
      title: `Una publicación de ${row.competitorName} en ${row.platform} despega (${round(value / mean, 1)}× su promedio)`,
      details: {
        measure: byRate ? 'engagementRate' : 'engagement',
        value: round(value, 4),
        baselineMean: round(mean, 4),
        baselineSd: sd === null ? null : round(sd, 4),
        zScore: z === null ? null : round(z),
        baselinePosts,
        method: params.method,
      },
    });
  }
  return alerts;
}

async function followerAlerts(deps: Pick<AppDeps, 'db' | 'config'>, rule: RuleRecord, profileIds: readonly string[]): Promise<NewAlert[]> {
  const params = paramsOf(rule, 'follower_change');
  if (!params) return [];
  const alerts: NewAlert[] = [];
  for (const change of await followerChanges(deps.db, profileIds, params.windowHours)) {
    if (!inScope(rule, change.competitorId)) continue;
    const percent = ((change.followers - change.referenceFollowers) / change.referenceFollowers) * 100;
    const direction = percent >= params.surgePercent ? 'surge' : percent <= -params.dropPercent ? 'drop' : undefined;
    if (!direction) continue;
    const day = localClock(change.capturedAt, deps.config.timeZone).date;
    alerts.push({
      ruleId: rule.id,
      kind: rule.kind,
      dedupeKey: `${rule.kind}:${rule.id}:${change.profileId}:${direction}:${day}`,
      competitorId: change.competitorId,
      profileId: change.profileId,
      postId: null,
      severity: rule.severity,
      title: `${change.competitorName} ${direction === 'surge' ? 'gana' : 'pierde'} ${Math.abs(round(percent, 1))}% de seguidores en ${change.platform}`,
      details: {
        platform: change.platform,
        handle: change.handle,
        direction,
        percent: round(percent),
        followers: change.followers,
        referenceFollowers: change.referenceFollowers,
        referenceAt: change.referenceAt.toISOString(),
        capturedAt: change.capturedAt.toISOString(),
      },
    });
  }
  return alerts;
}

async function negativeSentimentAlerts(deps: Pick<AppDeps, 'db'>, rule: RuleRecord, now: Date): Promise<NewAlert[]> {
  const params = paramsOf(rule, 'negative_sentiment');
  if (!params) return [];
  const windowMs = params.windowHours * 3_600_000;
  const { posts, negative } = await sentimentAboutUs(deps.db, new Date(now.getTime() - windowMs));
  if (posts < params.minPosts || negative / posts < params.threshold) return [];
  // One alert per window: a conversation that stays negative raises again in the next window, not on every post.
  const window = Math.floor(now.getTime() / windowMs);
  return [
    {
      ruleId: rule.id,
      kind: rule.kind,
      dedupeKey: `${rule.kind}:${rule.id}:${window}`,
      competitorId: null,
      profileId: null,
      postId: null,
      severity: rule.severity,
      title: `${Math.round((negative / posts) * 100)}% de las publicaciones que nos mencionan son negativas (últimas ${params.windowHours} h)`,
      details: { posts, negative, share: round(negative / posts, 3), windowHours: params.windowHours, threshold: params.threshold },
    },
  ];
}

export function alertEvent(alert: AlertRecord): SocialAlertEvent {
  return {
    id: alert.id,
    kind: alert.kind,
    severity: alert.severity,
    title: alert.title,
    details: alert.details,
    competitorId: alert.competitorId,
    profileId: alert.profileId,
    postId: alert.postId,
    state: alert.state,
    createdAt: alert.createdAt.toISOString(),
  };
}

/**
 * Runs every enabled rule over what an ingest changed and announces the alerts it created. Each
 * alert has a key (rule, subject, window) that the database keeps unique, so re-evaluating the
 * same change — a second import, another process — never raises it twice.
 */
export async function evaluateAfterIngest(
  deps: Pick<AppDeps, 'db' | 'realtime' | 'config'>,
  changes: Changes,
  now = new Date(),
  enabledRules?: readonly RuleRecord[],
): Promise<AlertRecord[]> {
  const rules = enabledRules ?? (await allRules(deps.db, { enabledOnly: true }));
  if (!rules.length) return [];
  const alerts: NewAlert[] = [];
  const needsPosts = rules.some((rule) => rule.kind === 'new_post' || rule.kind === 'keyword');
  const maxAgeHours = Math.max(24, ...rules.filter((rule) => rule.kind === 'new_post').map((rule) => paramsOf(rule, 'new_post')?.maxAgeHours ?? 0));
  const created = needsPosts && changes.created.length ? await candidatePosts(deps.db, changes.created, new Date(now.getTime() - maxAgeHours * 3_600_000)) : [];
  for (const rule of rules) {
    if (rule.kind === 'new_post') alerts.push(...newPostAlerts(rule, created, now));
    else if (rule.kind === 'keyword') alerts.push(...keywordAlerts(rule, created));
    else if (rule.kind === 'engagement_spike' && changes.touched.length) alerts.push(...(await spikeAlerts(deps, rule, changes.touched, now)));
    else if (rule.kind === 'follower_change' && changes.profileIds.length) alerts.push(...(await followerAlerts(deps, rule, changes.profileIds)));
    else if (rule.kind === 'negative_sentiment' && changes.created.length) alerts.push(...(await negativeSentimentAlerts(deps, rule, now)));
  }
  const inserted = await insertAlerts(deps.db, alerts, now);
  for (const alert of inserted) {
    deps.realtime.publish([SOCIAL_ROOM, DASHBOARD_ROOM], 'social:alert', alertEvent(alert));
  }
  return inserted;
}
