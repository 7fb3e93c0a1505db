import { createHash, randomBytes } from 'node:crypto';
import ical, { ICalEventStatus } from 'ical-generator';
import type { AppDeps } from '../../kernel/context';
import type { Actor } from '../../kernel/auth/roles';
import { NotFoundError, UnauthorizedError } from '../../kernel/errors';
import { findUser } from '../auth';
import { deleteFeedToken, feedEvents, feedTokenOwner, replaceFeedToken } from './agenda.calendar.repository';
import type { Visibility } from './agenda.entities';

/** What the feed covers: recent events (so last week's stays in the calendar) and a year ahead. */
const FEED_PAST_MS = 90 * 86_400_000;
const FEED_AHEAD_MS = 366 * 86_400_000;
const FEED_LIMIT = 5000;

const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');

export function feedUrl(deps: Pick<AppDeps, 'config'>, token: string): string {
  return `${deps.config.publicBaseUrl}/api/agenda/events.ics?token=${token}`;
}

/**
 * A new secret calendar address for the actor (the previous one stops working). The secret is
 * returned once and kept only as its SHA-256: it is long and random, so a plain hash is enough.
 * It carries the user's token version, so whatever ends their sessions (signing out everywhere, a
 * new password, a role change) ends it too.
 */
export async function rotateFeedToken(deps: Pick<AppDeps, 'db' | 'config'>, actor: Actor) {
  const user = await findUser(deps.db, actor.id);
  if (!user) throw new UnauthorizedError();
  const token = randomBytes(32).toString('base64url');
  await replaceFeedToken(deps.db, actor.id, hashToken(token), user.tokenVersion, new Date());
  return { token, url: feedUrl(deps, token) };
}

export async function revokeFeedToken(deps: Pick<AppDeps, 'db'>, actor: Actor): Promise<void> {
  if (!(await deleteFeedToken(deps.db, actor.id))) throw new NotFoundError('You have no calendar address.');
}

/**
 * Who is reading the feed: a signed-in caller or the owner of the token in the address (an active
 * account whose sessions have not been ended since it was made) sees public and internal events; nobody, only public ones. A token that matches no one
 * is a 401, so a calendar app shows the address is dead rather than quietly losing events.
 */
async function feedAudience(deps: Pick<AppDeps, 'db'>, actor: Actor | undefined, token: string | undefined): Promise<Visibility[]> {
  if (actor) return ['public', 'internal'];
  if (token === undefined) return ['public'];
  const owner = await feedTokenOwner(deps.db, hashToken(token));
  const user = owner ? await findUser(deps.db, owner.userId) : undefined;
  if (!owner || !user || !user.active || user.tokenVersion !== owner.tokenVersion)
    throw new UnauthorizedError('This calendar address is not valid any more; make a new one in Comando.');
  return ['public', 'internal'];
}

/** The agenda as an iCalendar feed (RFC 5545), times in UTC; cancelled events stay in it as CANCELLED so subscribed calendars drop them. */
export async function calendarFeed(deps: Pick<AppDeps, 'db' | 'config'>, actor: Actor | undefined, token: string | undefined): Promise<string> {
  const visibilities = await feedAudience(deps, actor, token);
  const now = Date.now();
  const events = await feedEvents(deps.db, visibilities, new Date(now - FEED_PAST_MS), new Date(now + FEED_AHEAD_MS), FEED_LIMIT);
  const host = new URL(deps.config.publicBaseUrl).hostname;
  const calendar = ical({
    name: visibilities.includes('internal') ? 'Comando: agenda de la campaña' : 'Agenda pública de la campaña',
    prodId: { company: 'Comando', product: 'agenda', language: 'ES' },
    ttl: 15 * 60,
    x: { 'X-WR-TIMEZONE': deps.config.timeZone },
  });
  for (const event of events) {
    const hasPlace = event.latitude !== null && event.longitude !== null;
    calendar.createEvent({
      id: `${event.id}@${host}`,
      start: event.starts_at,
      end: event.ends_at,
      summary: event.title,
      description: event.description,
      location: event.address
        ? { title: event.address, ...(hasPlace ? { geo: { lat: Number(event.latitude), lon: Number(event.longitude) } } : {}) }
        : hasPlace
          ? { geo: { lat: Number(event.latitude), lon: Number(event.longitude) } }
          : null,
      status: event.status === 'cancelled' ? ICalEventStatus.CANCELLED : ICalEventStatus.CONFIRMED,
      created: event.created_at,
      lastModified: event.updated_at,
      stamp: event.updated_at,
      // Calendar apps replace an event when its sequence grows: seconds since creation grow with every change.
      sequence: Math.max(0, Math.floor((event.updated_at.getTime() - event.created_at.getTime()) / 1000)),
      categories: [{ name: event.type }],
    });
  }
  return calendar.toString();
}
