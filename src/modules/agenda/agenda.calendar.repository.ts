import type { InferKyselyDB } from '@mikro-orm/sql';
import type { Selectable } from 'kysely';
import { tables, type Queries } from '../../kernel/sql';
import { AgendaEventSchema, AgendaFeedTokenSchema, type Visibility } from './agenda.entities';

type CalendarTables = InferKyselyDB<typeof AgendaFeedTokenSchema | typeof AgendaEventSchema>;
const db = tables<CalendarTables>();

/** Gives a user a new feed token (by its hash, with their current token version), replacing the one they had. */
export async function replaceFeedToken(q: Queries, userId: string, tokenHash: string, tokenVersion: number, at: Date): Promise<void> {
  await q.write(
    db
      .insertInto('agenda_feed_tokens')
      .values({ user_id: userId, token_hash: tokenHash, token_version: tokenVersion, created_at: at })
      .onConflict((conflict) => conflict.column('user_id').doUpdateSet({ token_hash: tokenHash, token_version: tokenVersion, created_at: at })),
  );
}

export async function deleteFeedToken(q: Queries, userId: string): Promise<boolean> {
  return (await q.write(db.deleteFrom('agenda_feed_tokens').where('user_id', '=', userId))).count > 0;
}

export async function feedTokenOwner(q: Queries, tokenHash: string): Promise<{ userId: string; tokenVersion: number } | undefined> {
  const row = await q.first(db.selectFrom('agenda_feed_tokens').select(['user_id', 'token_version']).where('token_hash', '=', tokenHash));
  return row && { userId: row.user_id, tokenVersion: row.token_version };
}

const feedColumns = ['id', 'title', 'type', 'description', 'starts_at', 'ends_at', 'address', 'latitude', 'longitude', 'status', 'created_at', 'updated_at'] as const;

/** An event as a calendar feed shows it. */
export type FeedEvent = Pick<Selectable<CalendarTables['agenda_events']>, (typeof feedColumns)[number]>;

/** Published events (no drafts) that end after `from` and start before `to`, cancelled ones included so calendars drop them. */
export async function feedEvents(q: Queries, visibilities: readonly Visibility[], from: Date, to: Date, limit: number): Promise<FeedEvent[]> {
  return q.rows(
    db
      .selectFrom('agenda_events')
      .select(feedColumns)
      .where('status', '<>', 'draft')
      .where('visibility', 'in', [...visibilities])
      .where('ends_at', '>', from)
      .where('starts_at', '<', to)
      .orderBy('starts_at')
      .orderBy('id')
      .limit(limit),
  );
}
