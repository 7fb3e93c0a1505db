import type { Readable } from 'node:stream';
import { CsvError, parse } from 'csv-parse/sync';
import type { AppDeps } from '../../kernel/context';
import { AppError, ValidationError } from '../../kernel/errors';
import type { Platform } from './social.entities';
import { normaliseHandle } from './social.handles';
import { ingestPosts, type ObservedPost } from './social.ingest';
import type { FollowerObservation } from './social.posts.repository';
import { existingCompetitorIds, profilesByHandle, profilesOfCompetitors, type ProfileRecord } from './social.repository';
import { IMPORT_MAX_ROWS, importRow, type ImportRow } from './social.schemas';

/** The most an import may weigh, JSON or CSV: about 50,000 posts of tweet length. */
export const IMPORT_MAX_BYTES = 20 * 1024 * 1024;
export const IMPORT_BODY_LIMIT = '20mb';
/** Posts published further ahead than this are a clock or export error. */
const FUTURE_TOLERANCE_MS = 24 * 3_600_000;

export interface ImportAnswer {
  created: number;
  updated: number;
  snapshots: number;
  rejected: { index: number; reason: string }[];
}

/** Reads a streamed body as text, refusing it (413) once it passes `maxBytes`. */
export async function readCapped(stream: Readable, maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) {
      stream.resume();
      throw new AppError(413, 'payload_too_large', 'Payload too large', `Imports are limited to ${maxBytes / 1024 / 1024} MB; split the file.`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** CSV rows with the JSON rows' column names; an unreadable file is refused whole. */
export function csvRows(text: string): Record<string, string>[] {
  try {
    return parse(text, { columns: true, skip_empty_lines: true, trim: true, bom: true, relax_column_count: true, max_record_size: 100_000 }) as Record<string, string>[];
  } catch (error) {
    if (error instanceof CsvError) throw new AppError(400, 'malformed_csv', 'Malformed CSV', `The CSV could not be read (${error.message}); nothing was imported.`);
    throw error;
  }
}

const issueText = (issues: { path: PropertyKey[]; message: string }[]) => issues.map((issue) => `${issue.path.map(String).join('.') || 'row'}: ${issue.message}`).join('; ');

/**
 * Imports posts with their engagement as of `capturedAt`, from any platform: what a campaign
 * without API access (TikTok always) feeds the module with. Each row is checked on its own; a bad
 * row is reported with its index and the rest are kept. The same file twice changes nothing.
 */
export async function importPosts(deps: Pick<AppDeps, 'db' | 'realtime' | 'config'>, rows: readonly unknown[], now = new Date()): Promise<ImportAnswer> {
  if (rows.length > IMPORT_MAX_ROWS) throw new AppError(413, 'too_many_rows', 'Too many rows', `An import takes at most ${IMPORT_MAX_ROWS.toLocaleString('en')} rows; split it.`);
  const rejected: ImportAnswer['rejected'] = [];
  const valid: { index: number; row: ImportRow; handle?: string }[] = [];
  rows.forEach((raw, index) => {
    const parsed = importRow.safeParse(raw);
    if (!parsed.success) return void rejected.push({ index, reason: issueText(parsed.error.issues) });
    const row = parsed.data;
    const published = Date.parse(row.publishedAt);
    const captured = row.capturedAt ? Date.parse(row.capturedAt) : now.getTime();
    if (published > now.getTime() + FUTURE_TOLERANCE_MS) return void rejected.push({ index, reason: 'publishedAt: is in the future' });
    if (captured < published) return void rejected.push({ index, reason: 'capturedAt: is before publishedAt' });
    if (captured > now.getTime() + FUTURE_TOLERANCE_MS) return void rejected.push({ index, reason: 'capturedAt: is in the future' });
    if (row.handle !== undefined) {
      const handle = normaliseHandle(row.platform, row.handle);
      if ('error' in handle) return void rejected.push({ index, reason: `handle: ${handle.error}` });
      valid.push({ index, row, handle: handle.handle });
    } else valid.push({ index, row });
  });

  const competitorIds = [...new Set(valid.flatMap((item) => (item.row.competitorId ? [item.row.competitorId] : [])))];
  const [known, byHandleList, ofCompetitors] = await Promise.all([
    existingCompetitorIds(deps.db, competitorIds),
    profilesByHandle(
      deps.db,
      valid.flatMap((item) => (item.handle ? [{ platform: item.row.platform, handle: item.handle }] : [])),
    ),
    profilesOfCompetitors(deps.db, competitorIds),
  ]);
  const byHandle = new Map(byHandleList.map((profile) => [`${profile.platform}\u0000${profile.handle}`, profile]));
  const byCompetitor = new Map(ofCompetitors.map((profile) => [`${profile.platform}\u0000${profile.competitorId}`, profile]));

  const observed: ObservedPost[] = [];
  const ownerOf = new Map<string, string>();
  const statedFollowers: FollowerObservation[] = [];
  for (const { index, row, handle } of valid) {
    let profile: ProfileRecord | undefined;
    let competitorId = row.competitorId;
    if (handle) {
      profile = byHandle.get(`${row.platform}\u0000${handle}`);
      if (!profile) {
        rejected.push({ index, reason: `handle: no tracked ${row.platform} profile is ${handle}; add it to a competitor first` });
        continue;
      }
      if (competitorId && competitorId !== profile.competitorId) {
        rejected.push({ index, reason: 'competitorId: does not own this handle' });
        continue;
      }
      competitorId = profile.competitorId;
    } else {
      if (!known.has(competitorId!)) {
        rejected.push({ index, reason: 'competitorId: no competitor has this id' });
        continue;
      }
      profile = byCompetitor.get(`${row.platform}\u0000${competitorId}`);
    }
    // A post id belongs to one author: a second author for it in the same file is an export error.
    const key = `${row.platform}\u0000${row.postId}`;
    const owner = ownerOf.get(key);
    if (owner && owner !== competitorId) {
      rejected.push({ index, reason: 'postId: the same post is attributed to another competitor earlier in this import' });
      continue;
    }
    ownerOf.set(key, competitorId!);
    const capturedAt = row.capturedAt ? new Date(row.capturedAt) : now;
    // Only followers a row states are an observation; a profile's stored count is just the rate's denominator.
    if (profile && row.followers !== undefined) statedFollowers.push({ profileId: profile.id, capturedAt, followers: row.followers });
    observed.push({
      platform: row.platform as Platform,
      postId: row.postId,
      competitorId: competitorId!,
      profileId: profile?.id ?? null,
      publishedAt: new Date(row.publishedAt),
      text: row.text,
      url: row.url ?? null,
      mediaType: row.mediaType?.toLowerCase() ?? null,
      likes: row.likes ?? null,
      comments: row.comments ?? null,
      shares: row.shares ?? null,
      views: row.views ?? null,
      capturedAt,
      followers: row.followers ?? profile?.followers ?? null,
    });
  }
  const result = await ingestPosts(deps, observed, { now, followers: statedFollowers });
  rejected.sort((a, b) => a.index - b.index);
  return { ...result, rejected };
}

/** The body of an import request: `{ posts: [...] }` as JSON, or CSV text streamed in. */
export async function importRequestRows(body: unknown, isCsv: boolean, stream: Readable): Promise<unknown[]> {
  if (isCsv) return csvRows(await readCapped(stream, IMPORT_MAX_BYTES));
  const posts = (body as { posts?: unknown } | undefined)?.posts;
  if (!Array.isArray(posts)) throw new ValidationError([{ path: 'body.posts', message: 'expected an array of posts' }]);
  if (posts.length === 0) throw new ValidationError([{ path: 'body.posts', message: 'expected at least one post' }]);
  return posts;
}
