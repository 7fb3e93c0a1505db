import type { InferKyselyDB } from '@mikro-orm/sql';
import type { Selectable } from 'kysely';
import type { SessionRegistry } from '../../kernel/auth/principals';
import type { IssuedToken } from '../../kernel/auth/tokens';
import type { Caches } from '../../kernel/cache';
import type { AppDeps } from '../../kernel/context';
import { NotFoundError } from '../../kernel/errors';
import { newId } from '../../kernel/ids';
import { queryPage, type Page, type PageRequest, mapPage } from '../../kernel/pagination';
import { tables, type Queries } from '../../kernel/sql';
import type { Actor } from '../../kernel/auth/roles';
import type { UserSessionSchema } from './auth.entities';
import { authPolicy } from './auth.policy';
import { findUser, type UserRecord } from './auth.repository';

type SessionTables = InferKyselyDB<typeof UserSessionSchema>;
const db = tables<SessionTables>();

/** Where a sign-in comes from, as the request says it: kept on the session for admins to see, never logged. */
export interface Device {
  ip: string | null;
  userAgent: string | null;
}

/** The request's device: its address and its browser's User-Agent (cut to what the column holds). */
export const deviceOf = (ctx: { ip: string; get(field: string): string }): Device => ({
  ip: ctx.ip ? ctx.ip.slice(0, 45) : null,
  userAgent: ctx.get('User-Agent').trim().slice(0, 300) || null,
});

/** A session's last-seen time is written at most this often per process: a phone reporting every second costs one write a minute. */
const SEEN_EVERY_MS = 60_000;

interface SessionEntry {
  userId: string;
  seenAt: number;
}

/** The kernel's view of sessions: a cached look-up by id (10 s, dropped everywhere when one ends), and the last-seen time kept roughly. */
export function sessionRegistry(caches: Caches, q: Queries): SessionRegistry {
  const cache = caches.named<SessionEntry | null>(
    'sessions',
    async (id) => {
      const row = await q.first(db.selectFrom('user_sessions').select(['user_id', 'last_seen_at']).where('id', '=', id));
      return row ? { userId: row.user_id, seenAt: new Date(row.last_seen_at).getTime() } : null;
    },
    10_000,
  );
  return {
    async stands(sessionId, userId) {
      const entry = await cache.get(sessionId);
      if (!entry || entry.userId !== userId) return false;
      const now = Date.now();
      if (now - entry.seenAt >= SEEN_EVERY_MS) {
        entry.seenAt = now;
        // A lost write only makes "last seen" a minute older: never a reason to refuse the request.
        void q
          .write(
            db
              .updateTable('user_sessions')
              .set({ last_seen_at: new Date(now) })
              .where('id', '=', sessionId),
          )
          .catch(() => undefined);
      }
      return true;
    },
    forget: (sessionId) => cache.invalidate(sessionId),
  };
}

/**
 * Opens a session for a sign-in and issues its token. Sessions that expired (anyone's) or that an
 * earlier end of every token left behind (this user's) are removed on the way: nothing about a
 * device is kept longer than its token lasts.
 */
export async function openSession(deps: Pick<AppDeps, 'db' | 'auth'>, user: Pick<UserRecord, 'id' | 'role' | 'tokenVersion'>, device: Device): Promise<IssuedToken> {
  const id = newId();
  const now = new Date();
  await deps.db.write(
    db
      .deleteFrom('user_sessions')
      .where((session) => session.or([session('expires_at', '<=', now), session.and([session('user_id', '=', user.id), session('token_version', '<>', user.tokenVersion)])])),
  );
  await deps.db.write(
    db.insertInto('user_sessions').values({
      id,
      user_id: user.id,
      token_version: user.tokenVersion,
      user_agent: device.userAgent,
      ip: device.ip,
      created_at: now,
      last_seen_at: now,
      expires_at: new Date(now.getTime() + deps.auth.tokens.ttl * 1000),
    }),
  );
  return deps.auth.tokens.issue(user, id);
}

export interface SessionRecord {
  id: string;
  userAgent: string | null;
  ip: string | null;
  startedAt: string;
  lastSeenAt: string;
  expiresAt: string;
}

const sessionColumns = ['id', 'user_agent', 'ip', 'created_at', 'last_seen_at', 'expires_at'] as const;

const present = (session: Pick<Selectable<SessionTables['user_sessions']>, (typeof sessionColumns)[number]>): SessionRecord => ({
  id: session.id,
  userAgent: session.user_agent,
  ip: session.ip,
  startedAt: session.created_at.toISOString(),
  lastSeenAt: session.last_seen_at.toISOString(),
  expiresAt: session.expires_at.toISOString(),
});

/** The sessions a user has open (standing: their token version, not expired), newest first. */
export async function listSessions(deps: Pick<AppDeps, 'db'>, actor: Actor, userId: string, page: PageRequest): Promise<Page<SessionRecord>> {
  authPolicy.authorize(actor, 'manageUsers');
  const user = await findUser(deps.db, userId);
  if (!user) throw new NotFoundError('No user has this id.');
  const query = db
    .selectFrom('user_sessions')
    .select(sessionColumns)
    .where('user_id', '=', userId)
    .where('token_version', '=', user.tokenVersion)
    .where('expires_at', '>', new Date());
  const found = await queryPage(deps.db, query, ['created_at', 'id'], 'desc', page);
  return mapPage(found, present);
}

/** An admin ends one device's session: its token stops working at once in every process, and its sockets close; the user's other devices stay signed in. */
export async function endSession(deps: Pick<AppDeps, 'db' | 'auth' | 'realtime' | 'logger'>, actor: Actor, userId: string, sessionId: string): Promise<void> {
  authPolicy.authorize(actor, 'manageUsers');
  if (!(await findUser(deps.db, userId))) throw new NotFoundError('No user has this id.');
  const removed = await deps.db.write(db.deleteFrom('user_sessions').where('id', '=', sessionId).where('user_id', '=', userId));
  if (!removed.count) throw new NotFoundError('This user has no session with this id.');
  await deps.auth.sessions.forget(sessionId);
  await deps.realtime.disconnectSession(userId, sessionId);
  deps.logger.info({ userId, sessionId, by: actor.id }, 'session ended by an admin');
}

/** Every session of a user goes (their tokens already ended through the version): nothing about their devices stays. */
export async function removeSessions(q: Queries, userIds: readonly string[]): Promise<void> {
  if (userIds.length) await q.write(db.deleteFrom('user_sessions').where('user_id', 'in', [...userIds]));
}
