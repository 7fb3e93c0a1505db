import type { InferKyselyDB } from '@mikro-orm/sql';
import type { Selectable } from 'kysely';
import { camelRow, snakeRow, type CamelCased, type WithNumbers } from '../../kernel/rows';
import { containsPattern } from '../../kernel/search';
import { sql, tables, type Queries, type Sql } from '../../kernel/sql';
import { audienceContacts, type ContactSchema } from '../audience';
import { gotvVoterStatuses } from '../gotv';
import { territoryAndDescendants, territoryDirectory } from '../territories';
import { VolunteerActivitySchema, VolunteerSchema, VolunteerSyncSchema, VolunteerVoterSchema, type ActivityType, type VolunteerStatus } from './volunteers.entities';
import type { TerritoryReferenceHolder } from '../../kernel/module';

type VolunteerTables = InferKyselyDB<typeof VolunteerSchema | typeof VolunteerActivitySchema | typeof VolunteerVoterSchema | typeof VolunteerSyncSchema>;
const db = tables<VolunteerTables>();

/** Every change of the pyramid takes this lock first, so two changes never each miss the other's cycle. */
const PYRAMID_LOCK = sql`pg_advisory_xact_lock(hashtext('comando:volunteers:pyramid'))`;

/** The active window ending at `at`: an activity at `from` exactly still counts; `to` is `at` itself. */
export interface ActiveWindow {
  days: number;
  from: Date;
  to: Date;
}

export function activeWindow(days: number, at: Date): ActiveWindow {
  return { days, from: new Date(at.getTime() - days * 86_400_000), to: at };
}

/**
 * The one definition of an active volunteer, as a condition on a volunteer id inside a statement:
 * at least one activity in the window (both ends included). The list, the pyramid and the
 * dashboard's figures all use it.
 */
export function isActiveSql(volunteerId: Sql, window: ActiveWindow): Sql<never> {
  return sql`exists (select 1 from volunteer_activities a where a.volunteer_id = ${volunteerId}
    and a.occurred_at >= ${window.from}::timestamptz and a.occurred_at <= ${window.to}::timestamptz)`;
}

// ───────────── volunteers

/** The volunteer columns a record carries: all but the erasure mark and who recorded the location consent. */
const volunteerColumns = [
  'id',
  'contact_id',
  'user_id',
  'territory_id',
  'skills',
  'availability',
  'status',
  'leader_id',
  'goal_promised_votes',
  'goal_leads',
  'goal_posters',
  'joined_on',
  'source',
  'source_ref',
  'location_consent_at',
  'location_consent_text_id',
  'created_at',
  'updated_at',
] as const;
const volunteerSelect = sql.raw(volunteerColumns.map((column) => `v.${column}`).join(', '));

type VolunteerRow = Pick<Selectable<VolunteerTables['volunteers']>, (typeof volunteerColumns)[number]>;
/** The person's details, as the audience shows them. */
type PersonRow = Pick<Selectable<InferKyselyDB<typeof ContactSchema>['contacts']>, 'name' | 'phone' | 'email' | 'document_id'>;

/** A held volunteer with the person's details from the audience. */
export type VolunteerRecord = CamelCased<VolunteerRow & PersonRow>;

/** A held volunteer (not erased), with the person's details from the audience. */
export async function findVolunteer(q: Queries, id: string, lock = false): Promise<VolunteerRecord | undefined> {
  const row = await q.first(sql<VolunteerRow & PersonRow>`select ${volunteerSelect}, c.name, c.phone, c.email, c.document_id
    from volunteers v join ${audienceContacts()} c on c.id = v.contact_id
    where v.id = ${id} and v.erased_at is null ${lock ? sql`for update of v` : sql``}`);
  return row && camelRow(row);
}

export async function volunteerIdOfContact(q: Queries, contactId: string): Promise<string | undefined> {
  return (await q.first(db.selectFrom('volunteers').select('id').where('contact_id', '=', contactId)))?.id;
}

/**
 * A held volunteer whose contact shares this phone, email or cédula, if any: the same person
 * typed with another of their details is still one volunteer.
 */
export async function volunteerIdMatching(q: Queries, person: { phone: string | null; email: string | null; documentId: string | null }): Promise<string | undefined> {
  const keys: Sql[] = [];
  if (person.phone) keys.push(sql`c.phone = ${person.phone}`);
  if (person.email) keys.push(sql`lower(c.email) = ${person.email.toLowerCase()}`);
  if (person.documentId) keys.push(sql`c.document_id = ${person.documentId}`);
  if (!keys.length) return undefined;
  const row = await q.first(sql<{ id: string }>`select v.id from volunteers v join ${audienceContacts()} c on c.id = v.contact_id
    where v.erased_at is null and (${sql.join(keys, ' or ')}) order by v.id limit 1`);
  return row?.id;
}

/** What a new volunteer row is written from: the record's own columns, less what the contact and the clock give, plus who recorded the location consent. */
export type NewVolunteer = CamelCased<Omit<VolunteerRow, 'created_at' | 'updated_at'> & Pick<Selectable<VolunteerTables['volunteers']>, 'location_consent_by'>>;

/** Inserts the volunteer unless their contact already is one: the new id, or undefined. */
export async function insertVolunteer(q: Queries, volunteer: NewVolunteer, at: Date): Promise<string | undefined> {
  const row = await q.first(
    db
      .insertInto('volunteers')
      .values({ ...snakeRow(volunteer), created_at: at, updated_at: at })
      .onConflict((conflict) => conflict.column('contact_id').doNothing())
      .returning('id'),
  );
  return row?.id;
}

/** The fields a change may set (those left undefined stay as they are), and the location consent given (or withdrawn: null). */
export type VolunteerChanges = Partial<
  Pick<NewVolunteer, 'userId' | 'territoryId' | 'skills' | 'availability' | 'status' | 'leaderId' | 'goalPromisedVotes' | 'goalLeads' | 'goalPosters' | 'joinedOn'>
> & { location?: { at: Date; textId: string; by: string } | null };

export async function updateVolunteer(q: Queries, id: string, changes: VolunteerChanges, at: Date): Promise<void> {
  const { location, ...fields } = changes;
  const consent =
    location === undefined
      ? {}
      : location === null
        ? { location_consent_at: null, location_consent_text_id: null, location_consent_by: null }
        : { location_consent_at: location.at, location_consent_text_id: location.textId, location_consent_by: location.by };
  // The builder leaves out the columns whose value is undefined: those fields were not changed.
  await q.write(
    db
      .updateTable('volunteers')
      .set({ ...snakeRow(fields), ...consent, updated_at: at })
      .where('id', '=', id),
  );
}

/** The user's volunteer, if one is linked to them. */
export async function volunteerOfUser(q: Queries, userId: string): Promise<string | undefined> {
  return (await q.first(db.selectFrom('volunteers').select('id').where('user_id', '=', userId).where('erased_at', 'is', null)))?.id;
}

export async function volunteerIdOfUser(q: Queries, userId: string, except: string): Promise<string | undefined> {
  return (await q.first(db.selectFrom('volunteers').select('id').where('user_id', '=', userId).where('id', '<>', except)))?.id;
}

/** Takes the pyramid's lock for the rest of the transaction. */
export async function lockPyramid(tx: Queries): Promise<void> {
  await tx.first(sql`select ${PYRAMID_LOCK}`);
}

/**
 * The chain of leaders above `leaderId`, starting with it, as (id, name), nearest first; stops at a
 * root or at `volunteerId` (which then closes a cycle). Under the pyramid lock the tree is acyclic.
 */
export async function chainAbove(q: Queries, leaderId: string, volunteerId: string): Promise<{ id: string; name: string; erased: boolean }[]> {
  return q.rows(sql<{ id: string; name: string; erased: boolean }>`
    with recursive up(id, leader_id, depth) as (
      select id, leader_id, 0 from volunteers where id = ${leaderId}
      union all
      select v.id, v.leader_id, up.depth + 1 from volunteers v join up on v.id = up.leader_id where up.id <> ${volunteerId} and up.depth < 10000
    )
    select up.id, c.name, v.erased_at is not null as erased from up join volunteers v on v.id = up.id join ${audienceContacts()} c on c.id = v.contact_id
    order by up.depth`);
}

export interface VolunteerFilter {
  status?: VolunteerStatus | undefined;
  territoryId?: string | undefined;
  skill?: string | undefined;
  leaderId?: string | undefined;
  active?: boolean | undefined;
  q?: string | undefined;
}

/** A held volunteer in the list: the record, and their activities in the active window (how many, the latest). */
export type VolunteerListRecord = CamelCased<VolunteerRow & PersonRow & { activity_count: number; last_activity_at: Date | null }>;

/** Newest first (ids are UUID v7), with each one's activities in the active window; `before` is the last id of the previous page. */
export async function volunteerRows(q: Queries, filter: VolunteerFilter, window: ActiveWindow, before: string | undefined, limit: number): Promise<VolunteerListRecord[]> {
  const conditions: Sql[] = [sql`v.erased_at is null`];
  if (before) conditions.push(sql`v.id < ${before}::uuid`);
  if (filter.status) conditions.push(sql`v.status = ${filter.status}`);
  if (filter.territoryId) conditions.push(sql`v.territory_id in (${territoryAndDescendants([filter.territoryId])})`);
  if (filter.skill) conditions.push(sql`${filter.skill} = any(v.skills)`);
  if (filter.leaderId) conditions.push(sql`v.leader_id = ${filter.leaderId}::uuid`);
  if (filter.active !== undefined) conditions.push(filter.active ? isActiveSql(sql`v.id`, window) : sql`not ${isActiveSql(sql`v.id`, window)}`);
  if (filter.q) {
    const pattern = containsPattern(filter.q);
    const digits = filter.q.replace(/\D/g, '');
    conditions.push(
      digits.length >= 3 ? sql`(c.name ilike ${pattern} or c.email ilike ${pattern} or c.phone like ${`%${digits}%`})` : sql`(c.name ilike ${pattern} or c.email ilike ${pattern})`,
    );
  }
  const rows = await q.rows(sql<VolunteerRow & PersonRow & { activity_count: number; last_activity_at: Date | null }>`
    select ${volunteerSelect}, c.name, c.phone, c.email, c.document_id, coalesce(w.n, 0)::int as activity_count, w.last_at as last_activity_at
    from volunteers v join ${audienceContacts()} c on c.id = v.contact_id
    left join lateral (
      select count(*) as n, max(a.occurred_at) as last_at from volunteer_activities a
      where a.volunteer_id = v.id and a.occurred_at >= ${window.from}::timestamptz and a.occurred_at <= ${window.to}::timestamptz
    ) w on true
    where ${sql.join(conditions, ' and ')}
    order by v.id desc limit ${limit}`);
  return rows.map((row) => camelRow(row));
}

/** Which of these ids are held volunteers, with their location consent. */
export async function volunteersByIds(q: Queries, ids: readonly string[]): Promise<Map<string, { locationConsent: boolean; contactId: string }>> {
  if (!ids.length) return new Map();
  const rows = await q.rows(
    db
      .selectFrom('volunteers')
      .select(['id', 'contact_id', 'location_consent_at'])
      .where('id', 'in', [...new Set(ids)])
      .where('erased_at', 'is', null),
  );
  return new Map(rows.map((row) => [row.id, { locationConsent: row.location_consent_at != null, contactId: row.contact_id }]));
}

/** Volunteer ids in the team of this user (their own and everyone under them). */
export async function teamIds(q: Queries, team: Sql<{ id: string }>): Promise<Set<string>> {
  return new Set((await q.rows(team)).map((row) => row.id));
}

/** Every volunteer → leader, for checks over the whole tree. */
export async function leaderMap(q: Queries): Promise<Map<string, string | null>> {
  const rows = await q.rows(db.selectFrom('volunteers').select(['id', 'leader_id']));
  return new Map(rows.map((row) => [row.id, row.leader_id ?? null]));
}

// ───────────── activities

type ActivityRow = WithNumbers<Selectable<VolunteerTables['volunteer_activities']>, 'lat' | 'lng'>;

/** What an activity row is written from: all its columns but the insert's own time. */
export type NewActivity = CamelCased<Omit<ActivityRow, 'created_at'>>;

const activityValues = (activity: NewActivity, at: Date) => ({ ...snakeRow(activity), created_at: at });

/**
 * Inserts logged activities in one statement; those whose client id is already stored are left
 * as they are. Returns the client id (or own id) of each row written.
 */
export async function insertLoggedActivities(q: Queries, activities: readonly NewActivity[], at: Date): Promise<Set<string>> {
  if (!activities.length) return new Set();
  const rows = await q.rows(
    db
      .insertInto('volunteer_activities')
      .values(activities.map((activity) => activityValues(activity, at)))
      .onConflict((conflict) => conflict.column('client_id').doNothing())
      .returning('id'),
  );
  return new Set(rows.map((row) => row.id));
}

/** The stored activity of each client id: what a resent item answers with. */
export async function activityIdsByClientId(q: Queries, clientIds: readonly string[]): Promise<Map<string, string>> {
  if (!clientIds.length) return new Map();
  const rows = await q.rows(
    db
      .selectFrom('volunteer_activities')
      .select(['id', 'client_id'])
      .where('client_id', 'in', [...clientIds]),
  );
  return new Map(rows.flatMap((row) => (row.client_id ? [[row.client_id, row.id] as const] : [])));
}

/** Upserts activities recorded from other modules' facts by (source, sourceId): reading a fact again changes nothing. */
export async function upsertDerivedActivities(q: Queries, activities: readonly NewActivity[], at: Date): Promise<number> {
  if (!activities.length) return 0;
  const result = await q.write(
    db
      .insertInto('volunteer_activities')
      .values(activities.map((activity) => activityValues(activity, at)))
      .onConflict((conflict) => conflict.columns(['source', 'source_id']).doNothing()),
  );
  return result.count;
}

/** A stored activity, as the list shows it (the fact it was derived from stays inside). */
export type ActivityRecord = CamelCased<Omit<ActivityRow, 'source_id'>>;

export interface ActivityFilter {
  volunteerId?: string | undefined;
  type?: ActivityType | undefined;
  territoryId?: string | undefined;
  from?: Date | undefined;
  to?: Date | undefined;
  /** Only the activities of these volunteers (a non-manager's team). */
  team?: Sql<{ id: string }> | undefined;
}

function activityConditions(filter: ActivityFilter): Sql {
  const conditions: Sql[] = [sql`true`];
  if (filter.volunteerId) conditions.push(sql`a.volunteer_id = ${filter.volunteerId}::uuid`);
  if (filter.type) conditions.push(sql`a.type = ${filter.type}`);
  if (filter.territoryId) conditions.push(sql`a.territory_id in (${territoryAndDescendants([filter.territoryId])})`);
  if (filter.from) conditions.push(sql`a.occurred_at >= ${filter.from}::timestamptz`);
  if (filter.to) conditions.push(sql`a.occurred_at <= ${filter.to}::timestamptz`);
  if (filter.team) conditions.push(sql`a.volunteer_id in (${filter.team})`);
  return sql.join(conditions, ' and ');
}

/** Latest first; `after` is the (occurredAt, id) of the previous page's last row. */
export async function activityRows(q: Queries, filter: ActivityFilter, after: { occurredAt: Date; id: string } | undefined, limit: number): Promise<ActivityRecord[]> {
  const page = after ? sql`and (a.occurred_at, a.id) < (${after.occurredAt}::timestamptz, ${after.id}::uuid)` : sql``;
  const rows = await q.rows(sql<Selectable<VolunteerTables['volunteer_activities']>>`
    select a.* from volunteer_activities a where ${activityConditions(filter)} ${page}
    order by a.occurred_at desc, a.id desc limit ${limit}`);
  return rows.map(({ source_id: _derivedFrom, ...row }) => camelRow(row, ['lat', 'lng']));
}

export function activityTotals(q: Queries, filter: ActivityFilter): Promise<{ type: ActivityType; count: number; quantity: number }[]> {
  return q.rows(sql<{ type: ActivityType; count: number; quantity: number }>`
    select a.type, count(*)::int as count, coalesce(sum(a.quantity), 0)::int as quantity
    from volunteer_activities a where ${activityConditions(filter)} group by a.type order by a.type`);
}

// ───────────── pyramid

export interface PyramidRow {
  id: string;
  name: string;
  leaderId: string | null;
  level: number;
  status: VolunteerStatus;
  joinedOn: string;
  active: boolean;
  direct: number;
  people: number;
  activePeople: number;
  promisedVotes: number;
  teamPromisedVotes: number;
  estimatedVotes: number;
  voted: number;
}

/**
 * Every volunteer's figures over the people under them, in one statement: a recursive closure
 * (each ancestor with each volunteer below it, at its distance) joined to each volunteer's own
 * figures and grouped by ancestor. `rootId` keeps that volunteer's part of the tree.
 */
export function pyramidRows(q: Queries, window: ActiveWindow, rootId?: string): Promise<PyramidRow[]> {
  const only = rootId ? sql`where n.id in (select volunteer_id from closure where ancestor_id = ${rootId}::uuid)` : sql``;
  return q.rows(sql<PyramidRow>`
    with recursive closure(ancestor_id, volunteer_id, distance) as (
      select id, id, 0 from volunteers
      union all
      select c.ancestor_id, v.id, c.distance + 1 from closure c join volunteers v on v.leader_id = c.volunteer_id where c.distance < 1000
    ),
    own as (
      select v.id, v.goal_promised_votes as promised, ${isActiveSql(sql`v.id`, window)} as active,
        coalesce(t.linked, 0) as linked, coalesce(t.voted, 0) as voted
      from volunteers v
      left join (
        select vv.volunteer_id, count(*) as linked, count(*) filter (where gv.status = 'voted') as voted
        from volunteer_voters vv join ${gotvVoterStatuses()} gv on gv.id = vv.voter_id group by vv.volunteer_id
      ) t on t.volunteer_id = v.id
    ),
    levels as (select volunteer_id as id, max(distance) as level from closure group by volunteer_id),
    figures as (
      select c.ancestor_id as id,
        count(*) filter (where c.distance = 1) as direct,
        count(*) filter (where c.distance > 0) as people,
        count(*) filter (where c.distance > 0 and o.active) as active_people,
        coalesce(sum(o.promised) filter (where c.distance > 0), 0) as team_promised,
        sum(o.linked) as estimated, sum(o.voted) as voted
      from closure c join own o on o.id = c.volunteer_id group by c.ancestor_id
    )
    select n.id, k.name, n.leader_id as "leaderId", l.level::int as level, n.status, n.joined_on as "joinedOn", o.active,
      f.direct::int as direct, f.people::int as people, f.active_people::int as "activePeople", n.goal_promised_votes as "promisedVotes",
      f.team_promised::int as "teamPromisedVotes", f.estimated::int as "estimatedVotes", f.voted::int as voted
    from volunteers n join ${audienceContacts()} k on k.id = n.contact_id join figures f on f.id = n.id join levels l on l.id = n.id join own o on o.id = n.id
    ${only}
    order by l.level, k.name, n.id`);
}

// ───────────── leaderboard

export interface LeaderboardFilter {
  from: Date;
  to: Date;
  territoryId?: string | undefined;
  type?: ActivityType | undefined;
}

export interface LeaderboardRow {
  id: string | null;
  name: string | null;
  activities: number;
  quantity: number;
  points: number;
}

export function leaderboardRows(
  q: Queries,
  filter: LeaderboardFilter,
  points: Sql,
  metric: 'points' | 'quantity',
  groupBy: 'volunteer' | 'territory',
  limit: number,
): Promise<LeaderboardRow[]> {
  const conditions: Sql[] = [sql`a.occurred_at >= ${filter.from}::timestamptz and a.occurred_at <= ${filter.to}::timestamptz`, sql`v.erased_at is null`];
  if (filter.type) conditions.push(sql`a.type = ${filter.type}`);
  if (filter.territoryId) conditions.push(sql`coalesce(a.territory_id, v.territory_id) in (${territoryAndDescendants([filter.territoryId])})`);
  const order = metric === 'points' ? sql`points desc, quantity desc` : sql`quantity desc, points desc`;
  if (groupBy === 'volunteer') {
    return q.rows(sql<LeaderboardRow>`
      select v.id, c.name, count(*)::int as activities, coalesce(sum(a.quantity), 0)::int as quantity, round(sum(${points}), 1)::float8 as points
      from volunteer_activities a join volunteers v on v.id = a.volunteer_id join ${audienceContacts()} c on c.id = v.contact_id
      where ${sql.join(conditions, ' and ')}
      group by v.id, c.name order by ${order}, c.name, v.id limit ${limit}`);
  }
  return q.rows(sql<LeaderboardRow>`
    select t.id, t.name, count(*)::int as activities, coalesce(sum(a.quantity), 0)::int as quantity, round(sum(${points}), 1)::float8 as points
    from volunteer_activities a join volunteers v on v.id = a.volunteer_id
    left join ${territoryDirectory()} t on t.id = coalesce(a.territory_id, v.territory_id)
    where ${sql.join(conditions, ' and ')}
    group by t.id, t.name order by ${order}, t.name limit ${limit}`);
}

// ───────────── voters

/** Links these voters to the volunteer, replacing the volunteer's set; voters another volunteer brings are returned instead of moved. */
export async function votersTakenByOthers(q: Queries, volunteerId: string, voterIds: readonly string[]): Promise<{ voterId: string; volunteerId: string }[]> {
  if (!voterIds.length) return [];
  const rows = await q.rows(
    db
      .selectFrom('volunteer_voters')
      .select(['voter_id', 'volunteer_id'])
      .where('voter_id', 'in', [...voterIds])
      .where('volunteer_id', '<>', volunteerId),
  );
  return rows.map((row) => ({ voterId: row.voter_id, volunteerId: row.volunteer_id }));
}

export async function replaceVoters(q: Queries, volunteerId: string, voterIds: readonly string[], at: Date): Promise<void> {
  let dropped = db.deleteFrom('volunteer_voters').where('volunteer_id', '=', volunteerId);
  if (voterIds.length) dropped = dropped.where('voter_id', 'not in', [...voterIds]);
  await q.write(dropped);
  await addVoters(q, volunteerId, voterIds, at);
}

export async function addVoters(q: Queries, volunteerId: string, voterIds: readonly string[], at: Date): Promise<void> {
  if (!voterIds.length) return;
  await q.write(sql`insert into volunteer_voters (voter_id, volunteer_id, linked_at)
    select unnest(${voterIds}::uuid[]), ${volunteerId}::uuid, ${at}::timestamptz on conflict (voter_id) do nothing`);
}

export function votersOf(q: Queries, volunteerId: string): Promise<{ voterId: string; status: string; votedAt: Date | null; linkedAt: Date }[]> {
  return q.rows(sql<{ voterId: string; status: string; votedAt: Date | null; linkedAt: Date }>`
    select vv.voter_id as "voterId", gv.status, gv.voted_at as "votedAt", vv.linked_at as "linkedAt"
    from volunteer_voters vv join ${gotvVoterStatuses()} gv on gv.id = vv.voter_id where vv.volunteer_id = ${volunteerId} order by vv.linked_at, vv.voter_id`);
}

// ───────────── sync watermarks

export async function readWatermark(q: Queries, source: string): Promise<Date | undefined> {
  return (await q.first(db.selectFrom('volunteer_sync').select('watermark').where('source', '=', source)))?.watermark;
}

export async function saveWatermark(q: Queries, source: string, watermark: Date): Promise<void> {
  await q.write(
    db
      .insertInto('volunteer_sync')
      .values({ source, watermark, updated_at: new Date() })
      .onConflict((conflict) => conflict.column('source').doUpdateSet({ watermark, updated_at: new Date() })),
  );
}

/** Held volunteers of these contacts: contact id → volunteer. */
export async function volunteersOfContacts(q: Queries, contactIds: readonly string[]): Promise<Map<string, { id: string; territoryId: string | null }>> {
  if (!contactIds.length) return new Map();
  const rows = await q.rows(
    db
      .selectFrom('volunteers')
      .select(['id', 'contact_id', 'territory_id'])
      .where('contact_id', 'in', [...new Set(contactIds)])
      .where('erased_at', 'is', null),
  );
  return new Map(rows.map((row) => [row.contact_id, { id: row.id, territoryId: row.territory_id ?? null }]));
}

/** Volunteers linked to these users: user id → volunteer id. */
export async function volunteersOfUsers(q: Queries, userIds: readonly string[]): Promise<Map<string, { id: string; territoryId: string | null }>> {
  if (!userIds.length) return new Map();
  const rows = await q.rows(
    db
      .selectFrom('volunteers')
      .select(['id', 'user_id', 'territory_id'])
      .where('user_id', 'in', [...new Set(userIds)])
      .where('erased_at', 'is', null),
  );
  return new Map(rows.flatMap((row) => (row.user_id ? [[row.user_id, { id: row.id, territoryId: row.territory_id ?? null }] as const] : [])));
}

/** Volunteers active in `window` (the one definition), optionally within territories and those inside them. */
export async function countActiveVolunteers(q: Queries, window: ActiveWindow, territoryIds?: readonly string[]): Promise<number> {
  const within = territoryIds?.length ? sql`and v.territory_id in (${territoryAndDescendants(territoryIds)})` : sql``;
  const row = await q.first(sql<{ n: number }>`select count(*)::int as n from volunteers v where v.erased_at is null and ${isActiveSql(sql`v.id`, window)} ${within}`);
  return row?.n ?? 0;
}

export function countVolunteersByStatus(q: Queries): Promise<{ status: VolunteerStatus; n: number }[]> {
  return q.rows(
    db
      .selectFrom('volunteers')
      .select((volunteer) => ['status', volunteer.cast<number>(volunteer.fn.countAll(), 'integer').as('n')])
      .where('erased_at', 'is', null)
      .groupBy('status'),
  );
}

/** Volunteers and their activities placed in a territory. */
export const volunteersTerritoryReferences: TerritoryReferenceHolder = async (q, territoryId) => {
  const row = await q.first(
    db.selectNoFrom((query) => [
      query
        .selectFrom('volunteers')
        .select((volunteer) => volunteer.cast<number>(volunteer.fn.countAll(), 'integer').as('n'))
        .where('territory_id', '=', territoryId)
        .as('volunteers'),
      query
        .selectFrom('volunteer_activities')
        .select((activity) => activity.cast<number>(activity.fn.countAll(), 'integer').as('n'))
        .where('territory_id', '=', territoryId)
        .as('activities'),
    ]),
  );
  return [
    { count: row?.volunteers ?? 0, one: 'voluntario', many: 'voluntarios' },
    { count: row?.activities ?? 0, one: 'actividad de voluntarios', many: 'actividades de voluntarios' },
  ];
};
