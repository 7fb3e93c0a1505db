import type { z } from 'zod';
import type { AlertRecord } from './social.alerts.repository';
import type { PostRecord, SnapshotRow } from './social.posts.repository';
import type { CompetitorRecord, ProfileRecord, RuleRecord } from './social.repository';
import type { alertView, competitorView, postView, profileView, ruleView, snapshotView } from './social.schemas';

const iso = (date: Date | null) => (date ? date.toISOString() : null);

/** A profile's connector health in one word, for the dashboard and the competitor list. */
export function profileStatus(profile: ProfileRecord, configured: boolean | undefined): z.input<typeof profileView>['status'] {
  if (profile.source === 'import' || configured === undefined) return 'import_only';
  if (!configured) return 'not_configured';
  if (profile.pausedReason) return 'paused';
  if (profile.lastError && profile.consecutiveFailures > 0) return 'failing';
  return profile.lastFetchedAt ? 'ok' : 'pending';
}

export function presentProfile(profile: ProfileRecord, configured: boolean | undefined): z.input<typeof profileView> {
  return {
    id: profile.id,
    competitorId: profile.competitorId,
    platform: profile.platform,
    handle: profile.handle,
    platformId: profile.platformId,
    url: profile.url,
    source: profile.source,
    displayName: profile.displayName,
    followers: profile.followers,
    status: profileStatus(profile, configured),
    lastFetchedAt: iso(profile.lastFetchedAt),
    lastError: profile.lastError,
    pausedReason: profile.pausedReason,
    nextFetchAt: iso(profile.nextFetchAt),
  };
}

export function presentCompetitor(competitor: CompetitorRecord, profiles: z.input<typeof profileView>[]): z.input<typeof competitorView> {
  return {
    id: competitor.id,
    name: competitor.name,
    party: competitor.party,
    colour: competitor.colour,
    photoUrl: competitor.photoUrl,
    notes: competitor.notes,
    isOwn: competitor.isOwn,
    territoryId: competitor.territoryId,
    active: competitor.active,
    profiles,
    createdAt: competitor.createdAt.toISOString(),
  };
}

export function presentPost(post: PostRecord): z.input<typeof postView> {
  return {
    id: post.id,
    platform: post.platform,
    platformPostId: post.platformPostId,
    competitorId: post.competitorId,
    profileId: post.profileId,
    publishedAt: post.publishedAt.toISOString(),
    text: post.text,
    url: post.url,
    mediaType: post.mediaType,
    likes: post.likes,
    comments: post.comments,
    shares: post.shares,
    views: post.views,
    engagement: post.engagement,
    engagementRate: post.engagementRate,
    sentiment: { score: post.sentimentScore, label: post.sentimentLabel },
    hashtags: post.hashtags,
    mentions: post.mentions,
    keywords: post.keywords,
    lastSnapshotAt: post.lastSnapshotAt.toISOString(),
  };
}

export function presentSnapshot(snapshot: SnapshotRow): z.input<typeof snapshotView> {
  return {
    capturedAt: snapshot.capturedAt.toISOString(),
    likes: snapshot.likes,
    comments: snapshot.comments,
    shares: snapshot.shares,
    views: snapshot.views,
    engagement: snapshot.engagement,
  };
}

export function presentAlert(alert: AlertRecord): z.input<typeof alertView> {
  return {
    id: alert.id,
    ruleId: alert.ruleId,
    kind: alert.kind,
    severity: alert.severity,
    title: alert.title,
    details: alert.details,
    competitorId: alert.competitorId,
    profileId: alert.profileId,
    postId: alert.postId,
    state: alert.state,
    seenBy: alert.seenById,
    seenAt: iso(alert.seenAt),
    createdAt: alert.createdAt.toISOString(),
  };
}

export function presentRule(rule: RuleRecord): z.input<typeof ruleView> {
  return {
    id: rule.id,
    kind: rule.kind,
    name: rule.name,
    severity: rule.severity,
    enabled: rule.enabled,
    competitorId: rule.competitorId,
    params: rule.params,
    updatedAt: rule.updatedAt.toISOString(),
  };
}
