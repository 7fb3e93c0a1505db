import type { Platform } from './social.entities';

/** A profile as staff type it (`@Name`, a profile URL, a channel id), normalised for storage. */
export interface NormalisedHandle {
  handle: string;
  /** The profile's public URL, built from the handle when none was given. */
  url: string;
}

interface PlatformRules {
  hosts: readonly string[];
  /** The handle from a URL's path, or undefined when the path is not a profile's. */
  fromPath: (segments: string[], url: URL) => string | undefined;
  pattern: RegExp;
  describe: string;
  /** YouTube channel ids are case-sensitive; every other handle is compared in lower case. */
  keepCase?: (handle: string) => boolean;
  urlOf: (handle: string) => string;
}

const stripAt = (value: string | undefined) => value?.replace(/^@/, '');

const rules: Record<Platform, PlatformRules> = {
  x: {
    hosts: ['x.com', 'twitter.com', 'mobile.twitter.com'],
    fromPath: (segments) => stripAt(segments[0]),
    pattern: /^[a-z0-9_]{1,15}$/,
    describe: 'an X username: 1–15 letters, digits or _',
    urlOf: (handle) => `https://x.com/${handle}`,
  },
  instagram: {
    hosts: ['instagram.com', 'www.instagram.com'],
    fromPath: (segments) => stripAt(segments[0]),
    pattern: /^[a-z0-9._]{1,30}$/,
    describe: 'an Instagram username: 1–30 letters, digits, . or _',
    urlOf: (handle) => `https://www.instagram.com/${handle}/`,
  },
  tiktok: {
    hosts: ['tiktok.com', 'www.tiktok.com', 'm.tiktok.com'],
    fromPath: (segments) => (segments[0]?.startsWith('@') ? stripAt(segments[0]) : undefined),
    pattern: /^[a-z0-9._]{2,24}$/,
    describe: 'a TikTok username: 2–24 letters, digits, . or _',
    urlOf: (handle) => `https://www.tiktok.com/@${handle}`,
  },
  facebook: {
    hosts: ['facebook.com', 'www.facebook.com', 'm.facebook.com', 'web.facebook.com', 'fb.com'],
    fromPath: (segments, url) => (segments[0] === 'profile.php' ? (url.searchParams.get('id') ?? undefined) : segments[0] === 'pages' ? segments.at(-1) : segments[0]),
    pattern: /^[a-z0-9.-]{1,80}$/,
    describe: 'a Facebook page username or numeric page id',
    urlOf: (handle) => `https://www.facebook.com/${handle}`,
  },
  youtube: {
    hosts: ['youtube.com', 'www.youtube.com', 'm.youtube.com'],
    fromPath: (segments) => (segments[0] === 'channel' ? segments[1] : segments[0]?.startsWith('@') ? segments[0] : undefined),
    pattern: /^(UC[A-Za-z0-9_-]{22}|@[a-z0-9._-]{3,30})$/,
    describe: 'a YouTube channel id (UC… 24 characters) or @handle',
    keepCase: (handle) => handle.startsWith('UC'),
    urlOf: (handle) => (handle.startsWith('@') ? `https://www.youtube.com/${handle}` : `https://www.youtube.com/channel/${handle}`),
  },
};

function handleFromUrl(platform: Platform, input: string): string | undefined {
  let url: URL;
  try {
    url = new URL(/^https?:\/\//i.test(input) ? input : `https://${input}`);
  } catch {
    return undefined;
  }
  if (!rules[platform].hosts.includes(url.hostname.toLowerCase())) return undefined;
  const segments = url.pathname.split('/').filter(Boolean);
  return rules[platform].fromPath(segments, url);
}

/**
 * The stored form of what staff typed, or a message saying what the platform's handles look
 * like. A URL of the platform's own site gives its handle; a URL of another site, or a handle
 * with spaces, is refused rather than guessed at.
 */
export function normaliseHandle(platform: Platform, input: string): NormalisedHandle | { error: string } {
  const rule = rules[platform];
  const trimmed = input.trim();
  if (/\s/.test(trimmed)) return { error: `A handle has no spaces; expected ${rule.describe}.` };
  const looksLikeUrl = /^https?:\/\//i.test(trimmed) || /^[a-z0-9.-]+\.[a-z]{2,}\//i.test(trimmed);
  let raw = looksLikeUrl ? handleFromUrl(platform, trimmed) : platform === 'youtube' ? trimmed : stripAt(trimmed);
  if (raw === undefined) return { error: `Not a ${platform} profile URL; expected ${rule.describe}.` };
  if (platform === 'youtube' && !raw.startsWith('UC') && !raw.startsWith('@')) raw = `@${raw}`;
  const handle = rule.keepCase?.(raw) ? raw : raw.toLowerCase();
  if (!rule.pattern.test(handle)) return { error: `Expected ${rule.describe}.` };
  return { handle, url: rule.urlOf(handle) };
}
