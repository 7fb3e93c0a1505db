/**
 * What every social platform client does for the poller: read one competitor profile (its
 * follower count) and its recent posts with their engagement as of now. A client speaks its
 * platform's real HTTP API at a configurable base URL; it never invents data, and it classifies
 * every failure so the poller knows whether to retry, slow down, wait for a quota, or stop.
 */

import type { PostState } from '../social.posts.repository';

export const PLATFORMS = ['facebook', 'instagram', 'x', 'youtube', 'tiktok'] as const;
export type Platform = (typeof PLATFORMS)[number];

/** The profile to read, as stored. `platformId` is learnt on the first fetch where the API has one (X user id, YouTube channel id). */
export interface ProfileRef {
  platform: Platform;
  /** Handle without `@` (X, Instagram, TikTok), page id or username (Facebook), channel id `UC…` or `@handle` (YouTube). */
  handle: string;
  platformId: string | null;
}

export interface FetchedProfile {
  /** The platform's own id for the profile, to store as `platformId`. */
  platformId: string;
  displayName: string | null;
  /** Null where the platform hides it (YouTube's hiddenSubscriberCount). */
  followers: number | null;
}

/**
 * A post as its platform shows it now, in the stored post's terms. `postId` is the platform's id of
 * it, unique per platform; `mediaType` is `video`, `image`, `carousel`, `text`, `link`… lower case,
 * as near the platform's word as possible; `likes` is Facebook's reactions total there and `shares`
 * X's retweets + quotes; a count is null where the platform does not give the number.
 */
export type FetchedPost = Pick<PostState, 'postId' | 'publishedAt' | 'text' | 'url' | 'mediaType' | 'likes' | 'comments' | 'shares' | 'views'>;

export interface FetchRequest {
  profile: ProfileRef;
  /**
   * Read newest first and stop paging at the first post published before this instant (the
   * refresh window: older posts' engagement is no longer followed), or at `maxPosts`.
   */
  since: Date;
  maxPosts: number;
}

export interface FetchResult {
  profile: FetchedProfile;
  /** Newest first, none published before `since`. */
  posts: FetchedPost[];
  /** What the calls cost against the platform's quota: YouTube units, X post reads, Graph calls. */
  quotaUsed: number;
}

/**
 * `rate_limited`: the platform said "slower" (HTTP 429, Graph codes 4/17/32/613); try after `retryAt`.
 * `quota_exhausted`: a daily or monthly allowance is spent (YouTube quotaExceeded, X usage cap); wait until `retryAt` (its reset).
 * `transient`: a 5xx, a timeout, a refused connection; retry with backoff.
 * `auth`: the token or key is invalid or expired (Graph 190, HTTP 401, YouTube keyInvalid); retrying will not help until staff fix it.
 * `not_found`: the handle does not exist or is not readable (private, not a business account); staff must fix the profile.
 * `bad_response`: the answer did not have the documented shape.
 */
export type ConnectorFailure = 'rate_limited' | 'quota_exhausted' | 'transient' | 'auth' | 'not_found' | 'bad_response';

export class ConnectorError extends Error {
  constructor(
    readonly failure: ConnectorFailure,
    message: string,
    /** When to try again, from the platform's headers or its quota reset; absent: the poller's backoff decides. */
    readonly retryAt?: Date,
    /** The HTTP status, when there was one. */
    readonly status?: number,
  ) {
    super(message);
    this.name = 'ConnectorError';
  }

  /** Failures the poller retries on its own; the others wait for a person. */
  get retryable(): boolean {
    return this.failure === 'rate_limited' || this.failure === 'quota_exhausted' || this.failure === 'transient';
  }
}

export interface SocialConnector {
  readonly platform: Platform;
  /** False when its credentials are not set: the dashboard says `not_configured`, and nothing is fetched. */
  readonly configured: boolean;
  fetch(request: FetchRequest): Promise<FetchResult>;
}
