import type { InferKyselyDB } from '@mikro-orm/sql';
import type { ExpressionBuilder, Selectable } from 'kysely';
import { newId } from '../../kernel/ids';
import { camelRow, snakeRow, type CamelCased } from '../../kernel/rows';
import { sql, tables, type Queries, type Sql } from '../../kernel/sql';
import { audienceContacts } from '../audience';
import { territoryAndDescendants } from '../territories';
import {
  AgendaCheckInSchema,
  AgendaEventSchema,
  AgendaRsvpSchema,
  AgendaShiftSchema,
  AgendaShiftSignupSchema,
  AgendaUserContactSchema,
  type CheckInMethod,
  type EventStatus,
  type EventType,
  type RsvpStatus,
  type Visibility,
} from './agenda.entities';
import { CHECK_IN_CLOSES_AFTER_MS, CHECK_IN_OPENS_BEFORE_MS } from './agenda.constants';
import type { TerritoryReferenceHolder } from '../../kernel/module';

type AgendaTables = InferKyselyDB<
  typeof AgendaEventSchema | typeof AgendaShiftSchema | typeof AgendaRsvpSchema | typeof AgendaShiftSignupSchema | typeof AgendaCheckInSchema | typeof AgendaUserContactSchema
>;
const db = tables<AgendaTables>();

// ───────────── events

type EventRow = Selectable<AgendaTables['agenda_events']>;
const eventOf = (row: EventRow) => camelRow(row, ['latitude', 'longitude', 'budget']);
export type EventRecord = ReturnType<typeof eventOf>;

/** How many people answered each way and how many were checked in. */
export interface EventCounts {
  going: number;
  maybe: number;
  declined: number;
  waitlisted: number;
  checkedIn: number;
}

export async function insertEvent(q: Queries, event: EventRecord): Promise<void> {
  await q.write(db.insertInto('agenda_events').values(snakeRow(event)));
}

export async function updateEvent(q: Queries, event: EventRecord): Promise<void> {
  const { id, createdById: _createdById, createdAt: _createdAt, ...changed } = event;
  await q.write(db.updateTable('agenda_events').set(snakeRow(changed)).where('id', '=', id));
}

/** One event; `lock` holds its row until the transaction ends, so capacity decisions on it run one at a time. */
export async function findEvent(q: Queries, id: string, lock = false): Promise<EventRecord | undefined> {
  let query = db.selectFrom('agenda_events').selectAll().where('id', '=', id);
  if (lock) query = query.forUpdate();
  const row = await q.first(query);
  return row && eventOf(row);
}

export interface EventFilter {
  from?: Date | undefined;
  to?: Date | undefined;
  territoryId?: string | undefined;
  type?: EventType | undefined;
  status?: EventStatus | undefined;
  visibility?: Visibility | undefined;
  upcoming?: boolean | undefined;
  /** Drafts are listed only to their organiser and to managers: null shows every draft, a user id only theirs. */
  draftsOf: string | null;
}

function eventConditions(filter: EventFilter, now: Date): Sql {
  const conditions: Sql[] = [sql`true`];
  // An event is in [from, to) when any part of it is.
  if (filter.from) conditions.push(sql`e.ends_at > ${filter.from}::timestamptz`);
  if (filter.to) conditions.push(sql`e.starts_at < ${filter.to}::timestamptz`);
  if (filter.territoryId) conditions.push(sql`e.territory_id in (${territoryAndDescendants([filter.territoryId])})`);
  if (filter.type) conditions.push(sql`e.type = ${filter.type}`);
  if (filter.status) conditions.push(sql`e.status = ${filter.status}`);
  if (filter.visibility) conditions.push(sql`e.visibility = ${filter.visibility}`);
  if (filter.upcoming) conditions.push(sql`e.status = 'scheduled' and e.ends_at > ${now}::timestamptz`);
  if (filter.draftsOf !== null) conditions.push(sql`(e.status <> 'draft' or e.organiser_id = ${filter.draftsOf}::uuid or e.created_by_id = ${filter.draftsOf}::uuid)`);
  return sql.join(conditions, ' and ');
}

/** Soonest first; the cursor is the last row's (starts_at, id). */
export async function eventPage(q: Queries, filter: EventFilter, page: { limit: number; after?: { startsAt: Date; id: string } | undefined }, now: Date): Promise<EventRecord[]> {
  const after = page.after ? sql`and (e.starts_at, e.id) > (${page.after.startsAt}::timestamptz, ${page.after.id}::uuid)` : sql``;
  const rows = await q.rows<EventRow>(sql`
    select e.* from agenda_events e
    where ${eventConditions(filter, now)} ${after}
    order by e.starts_at, e.id limit ${page.limit}::int`);
  return rows.map(eventOf);
}

type EventExpressions = ExpressionBuilder<AgendaTables, 'agenda_events'>;

/** How many of an event's answers say `status`: a column of a statement over agenda_events. */
const answersOf = (event: EventExpressions, status: RsvpStatus) =>
  event.cast<number>(
    event
      .selectFrom('agenda_rsvps')
      .select((rsvp) => rsvp.fn.countAll().as('answers'))
      .whereRef('agenda_rsvps.event_id', '=', 'agenda_events.id')
      .where('agenda_rsvps.status', '=', status),
    'integer',
  );

/** How many were checked in to an event: a column of a statement over agenda_events. */
const arrivalsOf = (event: EventExpressions) =>
  event.cast<number>(
    event
      .selectFrom('agenda_check_ins')
      .select((checkIn) => checkIn.fn.countAll().as('arrivals'))
      .whereRef('agenda_check_ins.event_id', '=', 'agenda_events.id'),
    'integer',
  );

export async function countsOf(q: Queries, eventIds: readonly string[]): Promise<Map<string, EventCounts>> {
  const counts = new Map<string, EventCounts>(eventIds.map((id) => [id, { going: 0, maybe: 0, declined: 0, waitlisted: 0, checkedIn: 0 }]));
  if (!eventIds.length) return counts;
  const query = db
    .selectFrom('agenda_events')
    .select((event) => [
      'id',
      answersOf(event, 'going').as('going'),
      answersOf(event, 'maybe').as('maybe'),
      answersOf(event, 'declined').as('declined'),
      answersOf(event, 'waitlisted').as('waitlisted'),
      arrivalsOf(event).as('checked_in'),
    ])
    .where('id', '=', (event) => event.fn.any(event.val([...eventIds])));
  for (const row of await q.rows(query)) {
    const { id, ...eventCounts } = camelRow(row);
    counts.set(id, eventCounts);
  }
  return counts;
}

/** Events whose doors are open now (while they take check-ins), with their going and checked-in counts: the live check-in screen. */
export async function liveAttendance(q: Queries, now: Date) {
  const query = db
    .selectFrom('agenda_events')
    .select((event) => ['id as event_id', 'capacity', answersOf(event, 'going').as('going'), arrivalsOf(event).as('checked_in')])
    .where('status', 'in', ['scheduled', 'done'])
    .where('starts_at', '<=', new Date(now.getTime() + CHECK_IN_OPENS_BEFORE_MS))
    .where('ends_at', '>=', new Date(now.getTime() - CHECK_IN_CLOSES_AFTER_MS))
    .orderBy('starts_at')
    .orderBy('id')
    .limit(100);
  return (await q.rows(query)).map((row) => camelRow(row));
}

// ───────────── shifts and sign-ups

export type ShiftRecord = CamelCased<Selectable<AgendaTables['agenda_shifts']>>;

export async function insertShift(q: Queries, shift: ShiftRecord): Promise<void> {
  await q.write(db.insertInto('agenda_shifts').values(snakeRow(shift)));
}

/** Writes what a shift's editor may change (the record handed in may carry its sign-ups too). */
export async function updateShift(q: Queries, shift: ShiftRecord): Promise<void> {
  await q.write(db.updateTable('agenda_shifts').set({ role: shift.role, starts_at: shift.startsAt, ends_at: shift.endsAt, slots: shift.slots }).where('id', '=', shift.id));
}

/** An event's shifts, each with who signed up (in the order they did) and how many. */
function shiftsWithSignups(eventId: string) {
  return db
    .selectFrom('agenda_shifts as s')
    .leftJoin('agenda_shift_signups as u', 'u.shift_id', 's.id')
    .selectAll('s')
    .select((shift) => [
      shift.fn
        .coalesce(shift.fn.agg<string[]>('array_agg', ['u.contact_id']).orderBy('u.created_at').filterWhere('u.contact_id', 'is not', null), shift.val<string[]>([]))
        .as('contact_ids'),
      shift.cast<number>(shift.fn.count('u.contact_id'), 'integer').as('taken'),
    ])
    .where('s.event_id', '=', eventId)
    .groupBy('s.id');
}

export async function shiftsOf(q: Queries, eventId: string) {
  return (await q.rows(shiftsWithSignups(eventId).orderBy('s.starts_at').orderBy('s.id'))).map((row) => camelRow(row));
}

export type ShiftWithSignups = Awaited<ReturnType<typeof shiftsOf>>[number];

/**
 * A shift of an event with its sign-ups; `lock` serialises sign-ups to it. The lock is taken by a
 * statement of its own: a statement that waited for a lock still counts with the snapshot it
 * started with, so the count must come from the next one.
 */
export async function findShift(q: Queries, eventId: string, shiftId: string, lock = false): Promise<ShiftWithSignups | undefined> {
  if (lock && !(await q.first(db.selectFrom('agenda_shifts').select('id').where('id', '=', shiftId).where('event_id', '=', eventId).forUpdate()))) return undefined;
  const row = await q.first(shiftsWithSignups(eventId).where('s.id', '=', shiftId));
  return row && camelRow(row);
}

/** Deletes a shift nobody signed up for; false when someone has (or it is gone). */
export async function deleteEmptyShift(q: Queries, eventId: string, shiftId: string): Promise<boolean> {
  const query = db
    .deleteFrom('agenda_shifts as s')
    .where('s.id', '=', shiftId)
    .where('s.event_id', '=', eventId)
    .where((row) => row.not(row.exists(row.selectFrom('agenda_shift_signups as u').select('u.id').whereRef('u.shift_id', '=', 's.id'))));
  return (await q.write(query)).count > 0;
}

/** Signs a person up; false when they already were. */
export async function insertSignup(q: Queries, signup: { shiftId: string; eventId: string; contactId: string; recordedById: string | null; at: Date }): Promise<boolean> {
  const query = db
    .insertInto('agenda_shift_signups')
    .values({ id: newId(), shift_id: signup.shiftId, event_id: signup.eventId, contact_id: signup.contactId, recorded_by_id: signup.recordedById, created_at: signup.at })
    .onConflict((conflict) => conflict.columns(['shift_id', 'contact_id']).doNothing());
  return (await q.write(query)).count > 0;
}

export async function deleteSignup(q: Queries, shiftId: string, contactId: string): Promise<boolean> {
  return (await q.write(db.deleteFrom('agenda_shift_signups').where('shift_id', '=', shiftId).where('contact_id', '=', contactId))).count > 0;
}

// ───────────── RSVPs

const rsvpColumns = ['id', 'event_id', 'contact_id', 'status', 'waitlisted_at', 'responded_at', 'recorded_by_id'] as const;
export type RsvpRecord = CamelCased<Pick<Selectable<AgendaTables['agenda_rsvps']>, (typeof rsvpColumns)[number]>>;

export async function findRsvp(q: Queries, eventId: string, contactId: string): Promise<RsvpRecord | undefined> {
  const row = await q.first(db.selectFrom('agenda_rsvps').select(rsvpColumns).where('event_id', '=', eventId).where('contact_id', '=', contactId));
  return row && camelRow(row);
}

/**
 * Writes an answer. A place on the waitlist is stamped with the database's clock when it is taken
 * (the event's row is locked by then, so stamps follow the order answers were decided in) and
 * kept while the person stays on it.
 */
export async function saveRsvp(q: Queries, rsvp: Omit<RsvpRecord, 'waitlistedAt'>): Promise<void> {
  const query = db
    .insertInto('agenda_rsvps')
    .values((row) => ({
      ...snakeRow(rsvp),
      waitlisted_at: row.case().when(row.val(rsvp.status), '=', 'waitlisted').then(row.fn<Date>('clock_timestamp')).end(),
      created_at: rsvp.respondedAt,
    }))
    .onConflict((conflict) =>
      conflict.columns(['event_id', 'contact_id']).doUpdateSet((row) => ({
        status: row.ref('excluded.status'),
        waitlisted_at: row
          .case()
          .when('excluded.status', '<>', 'waitlisted')
          .then(null)
          .when('agenda_rsvps.status', '=', 'waitlisted')
          .then(row.ref('agenda_rsvps.waitlisted_at'))
          .else(row.fn<Date>('clock_timestamp'))
          .end(),
        responded_at: row.ref('excluded.responded_at'),
        recorded_by_id: row.ref('excluded.recorded_by_id'),
      })),
    );
  await q.write(query);
}

/** 1 for the first on the event's waitlist; null when the person is not on it. */
export async function waitlistPosition(q: Queries, eventId: string, contactId: string): Promise<number | null> {
  const query = db
    .selectFrom('agenda_rsvps as me')
    .innerJoin('agenda_rsvps as w', (join) =>
      join
        .onRef('w.event_id', '=', 'me.event_id')
        .on('w.status', '=', 'waitlisted')
        .on((row) => row(row.refTuple('w.waitlisted_at', 'w.id'), '<=', row.refTuple('me.waitlisted_at', 'me.id'))),
    )
    .select((row) => row.cast<number>(row.fn.countAll(), 'integer').as('position'))
    .where('me.event_id', '=', eventId)
    .where('me.contact_id', '=', contactId)
    .where('me.status', '=', 'waitlisted');
  const row = await q.first(query);
  return row && row.position > 0 ? row.position : null;
}

export async function countGoing(q: Queries, eventId: string): Promise<number> {
  const row = await q.first(
    db
      .selectFrom('agenda_rsvps')
      .select((rsvp) => rsvp.cast<number>(rsvp.fn.countAll(), 'integer').as('going'))
      .where('event_id', '=', eventId)
      .where('status', '=', 'going'),
  );
  return row?.going ?? 0;
}

/** Moves the first `count` of the waitlist (in the order they joined it) to going; who moved. */
export async function promoteWaitlisted(q: Queries, eventId: string, count: number, at: Date): Promise<string[]> {
  if (count <= 0) return [];
  const firstWaiting = db
    .selectFrom('agenda_rsvps')
    .select('id')
    .where('event_id', '=', eventId)
    .where('status', '=', 'waitlisted')
    .orderBy('waitlisted_at')
    .orderBy('id')
    .limit(count);
  const query = db.updateTable('agenda_rsvps').set({ status: 'going', waitlisted_at: null, responded_at: at }).where('id', 'in', firstWaiting).returning('contact_id');
  return (await q.write(query)).rows.map((row) => row.contact_id);
}

export async function rsvpsOf(q: Queries, eventId: string, status: RsvpStatus | undefined): Promise<RsvpRecord[]> {
  let query = db
    .selectFrom('agenda_rsvps')
    .select(rsvpColumns)
    .where('event_id', '=', eventId)
    .orderBy((rsvp) => rsvp.case('status').when('going').then(0).when('waitlisted').then(1).when('maybe').then(2).else(3).end())
    .orderBy('waitlisted_at', (order) => order.asc().nullsFirst())
    .orderBy('responded_at')
    .orderBy('id');
  if (status) query = query.where('status', '=', status);
  return (await q.rows(query)).map((row) => camelRow(row));
}

// ───────────── the door's list

export interface AttendeeRow {
  contactId: string;
  name: string;
  status: RsvpStatus | null;
  waitlistPosition: number | null;
  respondedAt: Date | null;
  checkedInAt: Date | null;
  checkInMethod: CheckInMethod | null;
  rank: number;
  /** The row's place in time to the microsecond (a `Date` would cut it to the millisecond and repeat the row on the next page). */
  sortAt: string;
}

/** Where a page of the door's list starts: after this (rank, time, contact). */
export interface AttendeeAfter {
  rank: number;
  sortAt: string;
  contactId: string;
}

export interface AttendeeFilter {
  /** Folded words that must all be in the name. */
  words: string[];
  /** A scanned code: exactly this contact. */
  contactId?: string | undefined;
  status?: RsvpStatus | undefined;
  checkedIn?: boolean | undefined;
}

/**
 * Everyone who answered an event or was checked in to it, with their name: going first, then the
 * waitlist in its order, maybe, declined, and walk-ins without an answer last. The waitlist
 * position is counted over the whole event before any filter, so a search shows the true place.
 */
export async function attendeesPage(q: Queries, eventId: string, filter: AttendeeFilter, page: { limit: number; after?: AttendeeAfter | undefined }): Promise<AttendeeRow[]> {
  const where: Sql[] = [sql`true`];
  for (const word of filter.words) where.push(sql`strpos(people_fold(c.name), people_fold(${word})) > 0`);
  if (filter.contactId) where.push(sql`p.contact_id = ${filter.contactId}::uuid`);
  if (filter.status) where.push(sql`p.status = ${filter.status}`);
  if (filter.checkedIn !== undefined) where.push(filter.checkedIn ? sql`p.checked_in_at is not null` : sql`p.checked_in_at is null`);
  if (page.after) where.push(sql`(p.rank, p.sort_at, p.contact_id) > (${page.after.rank}::int, ${page.after.sortAt}::timestamptz, ${page.after.contactId}::uuid)`);
  return q.rows<AttendeeRow>(sql`with answers as (
      select r.contact_id, r.status, r.waitlisted_at, r.responded_at,
        case when r.status = 'waitlisted' then row_number() over (partition by r.status order by r.waitlisted_at nulls first, r.responded_at, r.id) end as position
      from agenda_rsvps r where r.event_id = ${eventId}::uuid
    ), arrivals as (
      select ci.contact_id, ci.checked_in_at, ci.method from agenda_check_ins ci where ci.event_id = ${eventId}::uuid
    ), people as (
      select coalesce(a.contact_id, i.contact_id) as contact_id, a.status, a.position, a.responded_at, i.checked_in_at, i.method,
        case a.status when 'going' then 0 when 'waitlisted' then 1 when 'maybe' then 2 when 'declined' then 3 else 4 end as rank,
        case when a.status = 'waitlisted' then coalesce(a.waitlisted_at, a.responded_at) else coalesce(a.responded_at, i.checked_in_at) end as sort_at
      from answers a full join arrivals i on i.contact_id = a.contact_id
    )
    select p.contact_id as "contactId", c.name, p.status, p.position::int as "waitlistPosition", p.responded_at as "respondedAt",
      p.checked_in_at as "checkedInAt", p.method as "checkInMethod", p.rank, to_char(p.sort_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as "sortAt"
    from people p join ${audienceContacts()} c on c.id = p.contact_id
    where ${sql.join(where, ' and ')}
    order by p.rank, p.sort_at, p.contact_id
    limit ${page.limit}`);
}

// ───────────── check-ins

export type CheckInRecord = CamelCased<Selectable<AgendaTables['agenda_check_ins']>>;

/** The check-in CTE of a statement that already holds the person as `contact` (a walk-in's arrival): nothing when they were checked in before. */
export function checkInCte(checkIn: Omit<CheckInRecord, 'contactId'>): Sql {
  return sql`check_in as (
      insert into agenda_check_ins (id, event_id, contact_id, shift_id, method, checked_in_at, recorded_by_id)
      select ${checkIn.id}::uuid, ${checkIn.eventId}::uuid, contact.id, ${checkIn.shiftId}::uuid, ${checkIn.method}, ${checkIn.checkedInAt}::timestamptz, ${checkIn.recordedById}::uuid from contact
      on conflict (event_id, contact_id) do nothing returning id
    )`;
}

/** Records a check-in; false when the person was already checked in to the event. */
export async function insertCheckIn(q: Queries, checkIn: CheckInRecord): Promise<boolean> {
  const query = db
    .insertInto('agenda_check_ins')
    .values(snakeRow(checkIn))
    .onConflict((conflict) => conflict.columns(['event_id', 'contact_id']).doNothing());
  return (await q.write(query)).count > 0;
}

export async function findCheckIn(q: Queries, eventId: string, contactId: string): Promise<CheckInRecord | undefined> {
  const row = await q.first(db.selectFrom('agenda_check_ins').selectAll().where('event_id', '=', eventId).where('contact_id', '=', contactId));
  return row && camelRow(row);
}

export async function checkInsOf(q: Queries, eventId: string): Promise<CheckInRecord[]> {
  const rows = await q.rows(db.selectFrom('agenda_check_ins').selectAll().where('event_id', '=', eventId).orderBy('checked_in_at').orderBy('id'));
  return rows.map((row) => camelRow(row));
}

export async function deleteCheckIn(q: Queries, eventId: string, contactId: string): Promise<boolean> {
  return (await q.write(db.deleteFrom('agenda_check_ins').where('event_id', '=', eventId).where('contact_id', '=', contactId))).count > 0;
}

// ───────────── a user's own contact

export async function contactOfUser(q: Queries, userId: string): Promise<string | undefined> {
  const row = await q.first(db.selectFrom('agenda_user_contacts').select('contact_id').where('user_id', '=', userId));
  return row?.contact_id;
}

export async function setContactOfUser(q: Queries, userId: string, contactId: string | null, at: Date): Promise<void> {
  if (contactId === null) {
    await q.write(db.deleteFrom('agenda_user_contacts').where('user_id', '=', userId));
    return;
  }
  await q.write(
    db
      .insertInto('agenda_user_contacts')
      .values({ user_id: userId, contact_id: contactId, updated_at: at })
      .onConflict((conflict) => conflict.column('user_id').doUpdateSet({ contact_id: contactId, updated_at: at })),
  );
}

// ───────────── what other modules read

export async function eventExists(q: Queries, eventId: string): Promise<boolean> {
  return (await q.first(db.selectFrom('agenda_events').select('id').where('id', '=', eventId))) !== undefined;
}

/** What finance compares with an event's movements: its planned budget, with enough to name it. */
export async function eventBudget(q: Queries, eventId: string): Promise<{ title: string; status: string; startsAt: Date; budget: number | null } | undefined> {
  const row = await q.first(db.selectFrom('agenda_events').select(['title', 'status', 'starts_at', 'budget']).where('id', '=', eventId));
  return row && camelRow(row, ['budget']);
}

export interface Attendance {
  committed: number;
  attended: number;
  noShow: number;
}

/**
 * Per contact, over events that have ended and were not cancelled (nor left as drafts): the events
 * they committed to (RSVP going, or a sign-up to one of its shifts), how many of those they were
 * checked in to, and the rest (no-shows). A check-in without a commitment (a walk-in) is not
 * counted, so attended ÷ committed is a reliability between 0 and 1.
 */
export async function attendanceByContacts(q: Queries, contactIds: readonly string[], now = new Date()): Promise<Map<string, Attendance>> {
  const result = new Map<string, Attendance>(contactIds.map((id) => [id, { committed: 0, attended: 0, noShow: 0 }]));
  if (!contactIds.length) return result;
  const query = db
    .with('committed', (cte) =>
      cte
        .selectFrom('agenda_rsvps')
        .select(['contact_id', 'event_id'])
        .where('contact_id', '=', (rsvp) => rsvp.fn.any(rsvp.val([...contactIds])))
        .where('status', '=', 'going')
        .union(
          cte
            .selectFrom('agenda_shift_signups')
            .select(['contact_id', 'event_id'])
            .where('contact_id', '=', (signup) => signup.fn.any(signup.val([...contactIds]))),
        ),
    )
    .selectFrom('committed as m')
    .innerJoin('agenda_events as e', (join) => join.onRef('e.id', '=', 'm.event_id').on('e.status', 'in', ['scheduled', 'done']).on('e.ends_at', '<=', now))
    .leftJoin('agenda_check_ins as c', (join) => join.onRef('c.event_id', '=', 'm.event_id').onRef('c.contact_id', '=', 'm.contact_id'))
    .select((row) => ['m.contact_id', row.cast<number>(row.fn.countAll(), 'integer').as('committed'), row.cast<number>(row.fn.count('c.id'), 'integer').as('attended')])
    .groupBy('m.contact_id');
  for (const row of await q.rows(query)) result.set(row.contact_id, { committed: row.committed, attended: row.attended, noShow: row.committed - row.attended });
  return result;
}

type CheckInFactRow = Pick<Selectable<AgendaTables['agenda_check_ins']>, 'id' | 'contact_id' | 'event_id' | 'checked_in_at'> & {
  event_type: EventRow['type'];
  territory_id: EventRow['territory_id'];
  duration_minutes: number | null;
};
export type CheckInFact = CamelCased<CheckInFactRow>;

/** Check-ins at or after `since`, oldest first; the duration is the shift's when they checked in to one, else the event's. */
export async function checkInsSince(q: Queries, since: Date, limit: number): Promise<CheckInFact[]> {
  const rows = await q.rows<CheckInFactRow>(sql`
    select c.id, c.contact_id, c.event_id, e.type as event_type, c.checked_in_at, e.territory_id,
      round(extract(epoch from coalesce(s.ends_at - s.starts_at, e.ends_at - e.starts_at)) / 60)::int as duration_minutes
    from agenda_check_ins c join agenda_events e on e.id = c.event_id left join agenda_shifts s on s.id = c.shift_id
    where c.checked_in_at >= ${since}::timestamptz
    order by c.checked_in_at, c.id limit ${limit}::int`);
  return rows.map((row) => camelRow(row));
}

/** Scheduled events starting in [from, to) and how many said going to them. */
export async function upcomingEvents(q: Queries, from: Date, to: Date): Promise<{ count: number; going: number }> {
  const query = db
    .selectFrom('agenda_events as e')
    .leftJoin('agenda_rsvps as r', (join) => join.onRef('r.event_id', '=', 'e.id').on('r.status', '=', 'going'))
    .select((row) => [row.cast<number>(row.fn.count('e.id').distinct(), 'integer').as('count'), row.cast<number>(row.fn.count('r.id'), 'integer').as('going')])
    .where('e.status', '=', 'scheduled')
    .where('e.starts_at', '>=', from)
    .where('e.starts_at', '<', to);
  const row = await q.first(query);
  return { count: row?.count ?? 0, going: row?.going ?? 0 };
}

/** A moved event's reminders are due again, for the new time. */
export async function resetReminders(q: Queries, eventId: string): Promise<void> {
  await q.write(db.updateTable('agenda_rsvps').set({ day_reminder_at: null, hours_reminder_at: null }).where('event_id', '=', eventId));
}

/** Events held in a territory. */
export const agendaTerritoryReferences: TerritoryReferenceHolder = async (q, territoryId) => {
  const row = await q.first(
    db
      .selectFrom('agenda_events')
      .select((event) => event.cast<number>(event.fn.countAll(), 'integer').as('events'))
      .where('territory_id', '=', territoryId),
  );
  return [{ count: row?.events ?? 0, one: 'evento', many: 'eventos' }];
};
