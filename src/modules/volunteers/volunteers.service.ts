import { Readable } from 'node:stream';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { stringify } from 'csv-stringify';
import type { z } from 'zod';
import type { Actor } from '../../kernel/auth/roles';
import { localClock } from '../../kernel/calendar';
import type { AppDeps } from '../../kernel/context';
import { AppError, ConflictError, ForbiddenError, NotFoundError, ValidationError, invalidField, type FieldError } from '../../kernel/errors';
import { newId } from '../../kernel/ids';
import { safeCell } from '../../kernel/spreadsheet';
import type { Queries } from '../../kernel/sql';
import { contactExists, ensureConsentText, erasePerson, normalisePhone, registerContact } from '../audience';
import { linkUserContact } from '../agenda';
import { findUser } from '../auth';
import { assertTerritoriesExist } from '../territories';
import type { VolunteerStatus } from './volunteers.entities';
import { coversEveryone, teamOfUserSql } from './volunteers.policy';
import { availabilityTokens, presentActivity, presentRow, presentVolunteer, type Reliability } from './volunteers.presenter';
import {
  activeWindow,
  activityIdsByClientId,
  activityRows,
  activityTotals,
  chainAbove,
  findVolunteer,
  insertLoggedActivities,
  insertVolunteer,
  countActiveVolunteers,
  countVolunteersByStatus,
  lockPyramid,
  teamIds,
  updateVolunteer as writeVolunteer,
  volunteerIdOfContact,
  volunteerIdOfUser,
  volunteerIdMatching,
  volunteerRows,
  volunteersByIds,
  type NewActivity,
  type VolunteerChanges,
  type VolunteerFilter,
  type VolunteerRecord,
  type VolunteerListRecord,
} from './volunteers.repository';
import type {
  ActivitiesInput,
  CreateVolunteerInput,
  ListActivitiesInput,
  ListVolunteersInput,
  UpdateVolunteerInput,
  activitiesAnswer,
  activityPageView,
} from './volunteers.schemas';

type Deps = Pick<AppDeps, 'db' | 'config'>;

/** What a staff member records when the person agreed to channel messages while signing up. */
export const STAFF_CHANNEL_CONSENT_TEXT =
  'La persona, al inscribirse como voluntaria ante el equipo de la campaña, autorizó recibir mensajes de la campaña por los canales marcados ' +
  '(WhatsApp, correo), según la Ley 1581 de 2012. Puede revocar esta autorización en cualquier momento.';

/** The wording a volunteer agrees to before GPS points of their activities are kept. */
export const LOCATION_CONSENT_TEXT =
  'Autorizo a la campaña a guardar la ubicación GPS de las actividades que registre como voluntario o voluntaria, solo para coordinar ' +
  'el trabajo de campo y medir la cobertura del territorio (Ley 1581 de 2012). Puedo retirar esta autorización en cualquier momento; ' +
  'desde entonces no se guardará mi ubicación.';

const NO_VOLUNTEER = 'No volunteer has this id, or their data was erased.';

export const todayIn = (timeZone: string, now = new Date()): string => localClock(now, timeZone).date;

// ───────────── checks

/** A user account may be linked when it exists, is active, has a field role and is not another volunteer's. */
async function checkUser(q: Queries, userId: string, volunteerId: string | undefined): Promise<void> {
  const user = await findUser(q, userId);
  if (!user || !user.active) throw invalidField('body.userId', 'No active user has this id.');
  if (user.role !== 'volunteer' && user.role !== 'brigade')
    throw invalidField('body.userId', `The user's role is ${user.role}; a volunteer's account has role volunteer or brigade.`);
  const other = await volunteerIdOfUser(q, userId, volunteerId ?? '00000000-0000-0000-0000-000000000000');
  if (other) throw new ConflictError(`This user account is already linked to volunteer ${other}.`, 'user_linked');
}

/**
 * A leader must be another held volunteer, and making them `volunteerId`'s leader must not close
 * a loop. Runs under the pyramid lock, so no concurrent change can slip a cycle past it.
 */
async function checkLeader(tx: Queries, volunteerId: string, leaderId: string, selfName: string): Promise<void> {
  if (leaderId === volunteerId) throw invalidField('body.leaderId', 'A volunteer cannot be their own leader.', 'own_leader');
  const chain = await chainAbove(tx, leaderId, volunteerId);
  if (!chain.length || chain[0]!.erased) throw invalidField('body.leaderId', 'No volunteer has this id.');
  const loop = chain.findIndex((link) => link.id === volunteerId);
  if (loop < 0) return;
  const names = [selfName, ...chain.slice(0, loop + 1).map((link) => link.name)];
  const message = `This leader would close a cycle in the pyramid: ${names.join(' → ')} (each one led by the next).`;
  throw new AppError(400, 'pyramid_cycle', 'Validation failed', message, [{ path: 'body.leaderId', message }], {
    cycle: [volunteerId, ...chain.slice(0, loop + 1).map((link) => link.id)],
  });
}

/** The location consent to record: the text stored by the audience, when and who recorded it. */
async function locationConsent(q: Queries, given: boolean | undefined, actor: Actor, at: Date): Promise<VolunteerChanges['location']> {
  if (given === undefined) return undefined;
  if (!given) return null;
  return { at, textId: await ensureConsentText(q, LOCATION_CONSENT_TEXT, null), by: actor.id };
}

function goalChanges(goals: CreateVolunteerInput['goals']): Pick<VolunteerChanges, 'goalPromisedVotes' | 'goalLeads' | 'goalPosters'> {
  return { goalPromisedVotes: goals?.promisedVotes, goalLeads: goals?.leads, goalPosters: goals?.posters };
}

function existingVolunteer(id: string): AppError {
  return new AppError(409, 'volunteer_exists', 'Conflict', `This person is already a volunteer (${id}).`, undefined, { existingId: id });
}

// ───────────── volunteers

/**
 * Registers a volunteer: the person becomes (or already is) an audience contact, found by their
 * phone or email, or given by `contactId` (a QR lead promoted). One volunteer per person: 409 with
 * the existing id otherwise, by contact or by cédula.
 */
export async function createVolunteer(deps: Deps, input: CreateVolunteerInput, actor: Actor) {
  let phone: string | null = null;
  if (input.phone) {
    phone = normalisePhone(input.phone) ?? null;
    if (!phone) throw invalidField('body.phone', 'Not a valid phone number (e.g. 300 123 4567 or +57 300 123 4567).');
  }
  await assertTerritoriesExist(deps.db, [input.territoryId], () => 'body.territoryId');
  const now = new Date();
  const id = await deps.db.transaction(async (tx) => {
    if (input.userId) await checkUser(tx, input.userId, undefined);
    if (!input.contactId) {
      const holder = await volunteerIdMatching(tx, { phone, email: input.email ?? null, documentId: input.documentId ?? null });
      if (holder) throw existingVolunteer(holder);
    }
    let contactId: string;
    if (input.contactId) {
      if (!(await contactExists(tx, input.contactId))) throw invalidField('body.contactId', 'No contact has this id, or their data was erased.');
      contactId = input.contactId;
    } else {
      const consent =
        input.whatsappOptIn || input.emailOptIn
          ? {
              proof: { textId: await ensureConsentText(tx, STAFF_CHANNEL_CONSENT_TEXT, null), source: 'volunteers', sourceRef: actor.id, ipHash: null, userAgent: null },
              whatsappOptIn: Boolean(input.whatsappOptIn),
              emailOptIn: Boolean(input.emailOptIn),
            }
          : null;
      const person = { name: input.name!, phone, email: input.email ?? null, documentId: input.documentId ?? null, territoryId: input.territoryId ?? null };
      contactId = (await registerContact(tx, person, { kind: 'volunteers', refId: actor.id }, consent)).id;
    }
    const existing = await volunteerIdOfContact(tx, contactId);
    if (existing) throw existingVolunteer(existing);
    const id = newId();
    if (input.leaderId) {
      await lockPyramid(tx);
      await checkLeader(tx, id, input.leaderId, input.name ?? 'the new volunteer');
    }
    const location = await locationConsent(tx, input.locationConsent, actor, now);
    try {
      const inserted = await insertVolunteer(
        tx,
        {
          id,
          contactId,
          userId: input.userId ?? null,
          territoryId: input.territoryId ?? null,
          skills: [...new Set(input.skills ?? [])],
          availability: availabilityTokens(input.availability ?? {}),
          status: input.status ?? 'active',
          leaderId: input.leaderId ?? null,
          goalPromisedVotes: input.goals?.promisedVotes ?? 0,
          goalLeads: input.goals?.leads ?? 0,
          goalPosters: input.goals?.posters ?? 0,
          joinedOn: input.joinedOn ?? todayIn(deps.config.timeZone, now),
          source: input.contactId ? 'lead' : 'staff',
          sourceRef: null,
          locationConsentAt: location?.at ?? null,
          locationConsentTextId: location?.textId ?? null,
          locationConsentBy: location?.by ?? null,
        },
        now,
      );
      if (!inserted) throw existingVolunteer((await volunteerIdOfContact(tx, contactId))!);
      // The account answers events and signs up for shifts as this person.
      if (input.userId) await linkUserContact(tx, input.userId, contactId);
    } catch (error) {
      if (error instanceof UniqueConstraintViolationException) throw new ConflictError('This user account is already linked to another volunteer.', 'user_linked');
      throw error;
    }
    return id;
  });
  return getVolunteer(deps.db, id);
}

/**
 * Enrols a person who ticked "quiero ser voluntario" on a landing page, as a prospect the team
 * will call. Idempotent: a person already a volunteer (of any status) stays as they are.
 */
export async function enrolVolunteerProspect(
  q: Queries,
  prospect: { contactId: string; territoryId: string | null; source: string; sourceRef: string | null; timeZone: string },
): Promise<{ id: string; created: boolean }> {
  const now = new Date();
  const id = newId();
  const inserted = await insertVolunteer(
    q,
    {
      id,
      contactId: prospect.contactId,
      userId: null,
      territoryId: prospect.territoryId,
      skills: [],
      availability: [],
      status: 'prospect',
      leaderId: null,
      goalPromisedVotes: 0,
      goalLeads: 0,
      goalPosters: 0,
      joinedOn: todayIn(prospect.timeZone, now),
      source: prospect.source,
      sourceRef: prospect.sourceRef,
      locationConsentAt: null,
      locationConsentTextId: null,
      locationConsentBy: null,
    },
    now,
  );
  return inserted ? { id: inserted, created: true } : { id: (await volunteerIdOfContact(q, prospect.contactId))!, created: false };
}

export async function getVolunteer(q: Queries, id: string) {
  const volunteer = await findVolunteer(q, id);
  if (!volunteer) throw new NotFoundError(NO_VOLUNTEER);
  return presentVolunteer(volunteer);
}

export async function changeVolunteer(deps: Deps, id: string, input: UpdateVolunteerInput, actor: Actor) {
  await assertTerritoriesExist(deps.db, [input.territoryId], () => 'body.territoryId');
  const now = new Date();
  await deps.db.transaction(async (tx) => {
    // The pyramid's lock before the row's: every leader change takes them in this order.
    if (input.leaderId) await lockPyramid(tx);
    const volunteer = await findVolunteer(tx, id, true);
    if (!volunteer) throw new NotFoundError(NO_VOLUNTEER);
    if (input.userId) await checkUser(tx, input.userId, id);
    if (input.leaderId && input.leaderId !== volunteer.leaderId) await checkLeader(tx, id, input.leaderId, volunteer.name);
    const changes: VolunteerChanges = {
      userId: input.userId,
      territoryId: input.territoryId,
      skills: input.skills && [...new Set(input.skills)],
      availability: input.availability && availabilityTokens(input.availability),
      status: input.status,
      leaderId: input.leaderId,
      ...goalChanges(input.goals),
      joinedOn: input.joinedOn,
      location: await locationConsent(tx, input.locationConsent, actor, now),
    };
    if (input.userId !== undefined && input.userId !== volunteer.userId) {
      if (volunteer.userId) await linkUserContact(tx, volunteer.userId, null);
      if (input.userId) await linkUserContact(tx, input.userId, volunteer.contactId);
    }
    try {
      await writeVolunteer(tx, id, changes, now);
    } catch (error) {
      if (error instanceof UniqueConstraintViolationException) throw new ConflictError('This user account is already linked to another volunteer.', 'user_linked');
      throw error;
    }
  });
  return getVolunteer(deps.db, id);
}

/** Removing a volunteer is the person's erasure, through the audience: every module drops what identifies them. */
export async function eraseVolunteer(deps: AppDeps, actor: Actor, id: string) {
  const volunteer = await findVolunteer(deps.db, id);
  if (!volunteer) throw new NotFoundError(NO_VOLUNTEER);
  return erasePerson(deps, actor, volunteer.contactId);
}

// ───────────── the list

function volunteerFilter(query: ListVolunteersInput): VolunteerFilter {
  return { status: query.status, territoryId: query.territoryId, skill: query.skill, leaderId: query.leaderId, active: query.active, q: query.q };
}

function cursorOf(cursor: string | undefined): string | undefined {
  if (cursor === undefined) return undefined;
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(cursor)) throw invalidField('query.cursor', 'The cursor is not one this list gave out.');
  return cursor;
}

/** How each volunteer's event commitments went (the agenda's figures), by contact. */
export type ReliabilitySource = (q: Queries, contactIds: readonly string[]) => Promise<Map<string, Reliability>>;

export async function listVolunteers(deps: Deps, query: ListVolunteersInput, reliability: ReliabilitySource) {
  const window = activeWindow(deps.config.volunteers.activeDays, new Date());
  const rows = await volunteerRows(deps.db, volunteerFilter(query), window, cursorOf(query.cursor), query.limit + 1);
  const page = rows.slice(0, query.limit);
  const figures = await reliability(
    deps.db,
    page.map((row) => row.contactId),
  );
  return {
    data: page.map((row) => presentRow(row, figures.get(row.contactId))),
    nextCursor: rows.length > query.limit ? page[page.length - 1]!.id : null,
    window: { days: window.days, from: window.from.toISOString(), to: window.to.toISOString() },
  };
}

const CSV_COLUMNS = [
  'id',
  'name',
  'phone',
  'email',
  'documentId',
  'status',
  'territoryId',
  'leaderId',
  'skills',
  'availability',
  'promisedVotes',
  'joinedOn',
  'active',
  'activityCount',
  'lastActivityAt',
  'reliability',
];

/** The filtered list as CSV, a thousand rows at a time, every text cell formula-safe. */
export function volunteersCsv(deps: Deps, query: ListVolunteersInput, reliability: ReliabilitySource): Readable {
  const filter = volunteerFilter(query);
  const window = activeWindow(deps.config.volunteers.activeDays, new Date());
  async function* lines() {
    yield CSV_COLUMNS;
    let before: string | undefined;
    for (;;) {
      const batch: VolunteerListRecord[] = await volunteerRows(deps.db, filter, window, before, 1000);
      const figures = await reliability(
        deps.db,
        batch.map((row) => row.contactId),
      );
      for (const row of batch) {
        const view = presentRow(row, figures.get(row.contactId));
        yield [
          view.id,
          view.name,
          view.phone,
          view.email,
          view.documentId,
          view.status,
          view.territoryId,
          view.leaderId,
          view.skills.join(';'),
          row.availability.join(';'),
          view.goals.promisedVotes,
          view.joinedOn,
          view.active,
          view.activityCount,
          view.lastActivityAt ?? null,
          view.reliability?.score ?? null,
        ].map(safeCell);
      }
      if (batch.length < 1000) return;
      before = batch[batch.length - 1]!.id;
    }
  }
  return Readable.from(lines()).pipe(stringify({ bom: true }));
}

// ───────────── activities

/** Whether an agenda event exists (the agenda module answers). */
export type EventCheck = (q: Queries, eventId: string) => Promise<boolean>;

/**
 * Records a batch of activities, all or nothing for what is wrong with it: an item naming an
 * unknown volunteer, territory or event is a 400 naming it, an item outside the caller's team a
 * 403 naming it, and then nothing is written. Items whose clientId is stored already are
 * duplicates (a phone resending its queue) and answer with the stored id.
 * GPS points are kept only for volunteers who consented; otherwise they are dropped and said so.
 */
export async function logActivities(deps: Deps, actor: Actor, input: ActivitiesInput, eventExists: EventCheck): Promise<z.input<typeof activitiesAnswer>> {
  const items = input.activities;
  const volunteers = await volunteersByIds(
    deps.db,
    items.map((item) => item.volunteerId),
  );
  const errors: FieldError[] = [];
  items.forEach((item, index) => {
    if (!volunteers.has(item.volunteerId)) errors.push({ path: `body.activities.${index}.volunteerId`, message: 'No volunteer has this id, or their data was erased.' });
  });
  if (errors.length) throw new ValidationError(errors, `Item ${errors[0]!.path.split('.')[2]}: ${errors[0]!.message}`);
  await assertTerritoriesExist(
    deps.db,
    items.map((item) => item.territoryId),
    (index) => `body.activities.${index}.territoryId`,
  );
  for (const [index, item] of items.entries()) {
    if (item.eventId && !(await eventExists(deps.db, item.eventId))) throw invalidField(`body.activities.${index}.eventId`, `Item ${index}: no agenda event has this id.`);
  }
  if (!coversEveryone(actor)) {
    const team = await teamIds(deps.db, teamOfUserSql(actor.id));
    const outside = items.findIndex((item) => !team.has(item.volunteerId));
    if (outside >= 0) {
      throw new ForbiddenError(
        team.size
          ? `Item ${outside}: volunteer ${items[outside]!.volunteerId} is neither you nor one of your people; nothing was recorded.`
          : 'Your account is not linked to a volunteer: ask a manager to link it before logging activities.',
      );
    }
  }
  const now = new Date();
  const rows: NewActivity[] = items.map((item) => {
    const keepPoint = item.lat !== undefined && volunteers.get(item.volunteerId)!.locationConsent;
    const id = newId();
    return {
      id,
      clientId: item.clientId ?? null,
      source: 'manual',
      sourceId: id,
      volunteerId: item.volunteerId,
      type: item.type,
      occurredAt: new Date(Math.min(Date.parse(item.occurredAt), now.getTime())),
      durationMinutes: item.durationMinutes ?? null,
      quantity: item.quantity ?? null,
      unit: item.unit ?? null,
      territoryId: item.territoryId ?? null,
      notes: item.notes ?? null,
      lat: keepPoint ? item.lat! : null,
      lng: keepPoint ? item.lng! : null,
      eventId: item.eventId ?? null,
      posterCode: item.posterCode ?? null,
      recordedById: actor.id,
    };
  });
  const written = await insertLoggedActivities(deps.db, rows, now);
  const stored = await activityIdsByClientId(
    deps.db,
    rows.filter((row) => !written.has(row.id) && row.clientId).map((row) => row.clientId!),
  );
  const results = rows.map((row, index) => {
    const created = written.has(row.id);
    return {
      index,
      clientId: row.clientId,
      id: created ? row.id : stored.get(row.clientId!)!,
      status: created ? ('created' as const) : ('duplicate' as const),
      locationStored: row.lat !== null,
    };
  });
  const created = results.filter((result) => result.status === 'created').length;
  return { created, duplicates: results.length - created, results };
}

interface ActivityCursor {
  occurredAt: Date;
  id: string;
}

function encodeActivityCursor(cursor: ActivityCursor): string {
  return Buffer.from(`${cursor.occurredAt.toISOString()}|${cursor.id}`).toString('base64url');
}

function decodeActivityCursor(cursor: string | undefined): ActivityCursor | undefined {
  if (cursor === undefined) return undefined;
  const [at, id] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const occurredAt = new Date(at ?? '');
  if (!id || Number.isNaN(occurredAt.getTime()) || !/^[0-9a-f-]{36}$/.test(id)) throw invalidField('query.cursor', 'The cursor is not one this list gave out.');
  return { occurredAt, id };
}

/** Latest first. A volunteer or brigade member sees their own team's activities; managers everyone's. */
export async function listActivities(deps: Deps, actor: Actor, query: ListActivitiesInput): Promise<z.input<typeof activityPageView>> {
  const filter = {
    volunteerId: query.volunteerId,
    type: query.type,
    territoryId: query.territoryId,
    from: query.from ? new Date(query.from) : undefined,
    to: query.to ? new Date(query.to) : undefined,
    team: coversEveryone(actor) ? undefined : teamOfUserSql(actor.id),
  };
  const [rows, totals] = await Promise.all([activityRows(deps.db, filter, decodeActivityCursor(query.cursor), query.limit + 1), activityTotals(deps.db, filter)]);
  const page = rows.slice(0, query.limit);
  const last = page[page.length - 1];
  return {
    data: page.map(presentActivity),
    nextCursor: rows.length > query.limit && last ? encodeActivityCursor(last) : null,
    totals: Object.fromEntries(totals.map((total) => [total.type, { count: total.count, quantity: total.quantity }])),
  };
}

// ───────────── the dashboard's figures

/** How many volunteers are active at `at` (the one definition), optionally within territories (and those inside them). */
export async function activeVolunteers(deps: Deps, at: Date, territoryIds?: readonly string[]): Promise<number> {
  return countActiveVolunteers(deps.db, activeWindow(deps.config.volunteers.activeDays, at), territoryIds);
}

export async function volunteersByStatus(q: Queries): Promise<Record<VolunteerStatus, number>> {
  const rows = await countVolunteersByStatus(q);
  const counts: Record<VolunteerStatus, number> = { prospect: 0, active: 0, inactive: 0 };
  for (const row of rows) counts[row.status] = row.n;
  return counts;
}

export type { VolunteerRecord };
