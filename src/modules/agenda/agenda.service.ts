import type { z } from 'zod';
import { ForeignKeyConstraintViolationException } from '@mikro-orm/core';
import { instantAt } from '../../kernel/calendar';
import type { AppDeps } from '../../kernel/context';
import { ROLES, roleAllowed, type Actor } from '../../kernel/auth/roles';
import type { PageRequest } from '../../kernel/page-schemas';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError, invalidField } from '../../kernel/errors';
import { newId } from '../../kernel/ids';
import { sql, type Queries } from '../../kernel/sql';
import { arrivingContact, contactExists, ensureConsentText, normalisePhone } from '../audience';
import { findUser, userPage } from '../auth';
import { assertTerritoriesExist } from '../territories';
import { dispatchNotices } from '../notices';
import { CHECK_IN_CLOSES_AFTER_MS, CHECK_IN_OPENS_BEFORE_MS } from './agenda.constants';
import { AGENDA_ROOM } from './agenda.events';
import { agendaPolicy, isManager, organises } from './agenda.policy';
import { cancellationNotices, promotionNotices } from './agenda.reminders';
import { eventSummary, presentCheckIn, presentEvent, presentRsvp, presentShift } from './agenda.presenter';
import * as repository from './agenda.repository';
import type { EventRecord, RsvpRecord } from './agenda.repository';
import type {
  AttendeesInput,
  attendeePageView,
  CheckInInput,
  CreateEventInput,
  CreateShiftInput,
  ListEventsInput,
  RsvpInput,
  UpdateEventInput,
  UpdateShiftInput,
  checkInView,
  eventPageView,
  rsvpResultView,
} from './agenda.schemas';
import { mapPage } from '../../kernel/pagination';

export type Deps = Pick<AppDeps, 'db' | 'config' | 'realtime' | 'logger'>;

// ───────────── events

async function assertOrganiser(q: Queries, organiserId: string | null | undefined): Promise<void> {
  if (!organiserId) return;
  const user = await findUser(q, organiserId);
  if (!user || !user.active) throw invalidField('body.organiserId', 'No active user has this id.');
}

function publishEvent(deps: Pick<AppDeps, 'realtime'>, action: 'created' | 'changed' | 'cancelled', event: EventRecord): void {
  // Drafts stay off the shared screen: only their organiser and managers may see them.
  if (event.status === 'draft') return;
  deps.realtime.publish(AGENDA_ROOM, 'agenda:event', { action, event: eventSummary(event) });
}

/** The event as the actor may see it: a draft is someone else's business unless they organise it or manage. */
export async function visibleEvent(q: Queries, actor: Actor, id: string, lock = false): Promise<EventRecord> {
  const event = await repository.findEvent(q, id, lock);
  if (!event || (event.status === 'draft' && !agendaPolicy.allows(actor, 'readDraft', event))) throw new NotFoundError('No event has this id.');
  return event;
}

async function presentOne(q: Queries, event: EventRecord, actor: Actor) {
  const counts = await repository.countsOf(q, [event.id]);
  return presentEvent(event, counts.get(event.id)!, agendaPolicy.allows(actor, 'readBudget', event));
}

export async function createEvent(deps: Deps, input: CreateEventInput, actor: Actor) {
  await assertTerritoriesExist(deps.db, [input.territoryId], () => 'body.territoryId');
  await assertOrganiser(deps.db, input.organiserId);
  const now = new Date();
  const event: EventRecord = {
    id: newId(),
    title: input.title,
    type: input.type,
    description: input.description ?? null,
    startsAt: input.startsAt,
    endsAt: input.endsAt,
    timeZone: input.timeZone ?? deps.config.timeZone,
    address: input.address ?? null,
    territoryId: input.territoryId ?? null,
    latitude: input.location?.lat ?? null,
    longitude: input.location?.lng ?? null,
    capacity: input.capacity ?? null,
    visibility: input.visibility ?? 'internal',
    status: input.status ?? 'scheduled',
    organiserId: input.organiserId ?? null,
    budget: input.budget ?? null,
    cancelledAt: null,
    cancellationReason: null,
    createdById: actor.id,
    createdAt: now,
    updatedAt: now,
  };
  await repository.insertEvent(deps.db, event);
  publishEvent(deps, 'created', event);
  return presentEvent(event, { going: 0, maybe: 0, declined: 0, waitlisted: 0, checkedIn: 0 }, true);
}

interface EventCursor {
  startsAt: Date;
  id: string;
}

function encodeCursor(event: EventRecord): string {
  return Buffer.from(JSON.stringify([event.startsAt.toISOString(), event.id])).toString('base64url');
}

function decodeCursor(cursor: string): EventCursor {
  try {
    const [startsAt, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    const date = typeof startsAt === 'string' ? new Date(startsAt) : undefined;
    if (date && !Number.isNaN(date.getTime()) && typeof id === 'string' && /^[0-9a-f-]{36}$/i.test(id)) return { startsAt: date, id };
  } catch {
    // fall through to the refusal
  }
  throw invalidField('query.cursor', 'The cursor is not one this list gave out.');
}

/** A list bound: an instant as given, a day as its local midnight in the campaign's zone. */
function bound(value: string | undefined, timeZone: string): Date | undefined {
  if (!value) return undefined;
  return /^\d{4}-\d{2}-\d{2}$/.test(value) ? instantAt(value, 0, timeZone) : new Date(value);
}

export async function listEvents(deps: Deps, actor: Actor, query: ListEventsInput): Promise<z.input<typeof eventPageView>> {
  const from = bound(query.from, deps.config.timeZone);
  const to = bound(query.to, deps.config.timeZone);
  if (from && to && to <= from) throw invalidField('query.to', 'to must be after from.');
  const filter: repository.EventFilter = {
    from,
    to,
    territoryId: query.territoryId,
    type: query.type,
    status: query.status,
    visibility: query.visibility,
    upcoming: query.upcoming,
    draftsOf: isManager(actor) ? null : actor.id,
  };
  const after = query.cursor ? decodeCursor(query.cursor) : undefined;
  const rows = await repository.eventPage(deps.db, filter, { limit: query.limit + 1, after }, new Date());
  const page = rows.slice(0, query.limit);
  const counts = await repository.countsOf(
    deps.db,
    page.map((event) => event.id),
  );
  return {
    data: page.map((event) => presentEvent(event, counts.get(event.id)!, agendaPolicy.allows(actor, 'readBudget', event))),
    nextCursor: rows.length > query.limit ? encodeCursor(page[page.length - 1]!) : null,
  };
}

export async function getEvent(deps: Deps, actor: Actor, id: string) {
  return presentOne(deps.db, await visibleEvent(deps.db, actor, id), actor);
}

/** Refuses what a cancelled or finished event no longer takes. */
function assertOpen(event: EventRecord, now: Date, what: string): void {
  if (event.status === 'cancelled') throw new ConflictError(`This event was cancelled: it takes no more ${what}.`, 'event_cancelled');
  if (event.status === 'draft') throw new ConflictError(`This event is a draft: publish it (status scheduled) before it takes ${what}.`, 'event_draft');
  if (event.status === 'done' || event.endsAt <= now) throw new ConflictError(`This event is over: it takes no more ${what}.`, 'event_over');
}

export async function changeEvent(deps: AppDeps, id: string, input: UpdateEventInput, actor: Actor) {
  if (input.territoryId) await assertTerritoriesExist(deps.db, [input.territoryId], () => 'body.territoryId');
  await assertOrganiser(deps.db, input.organiserId);
  const now = new Date();
  const outcome = await deps.db.transaction(async (tx) => {
    const event = await visibleEvent(tx, actor, id, true);
    agendaPolicy.authorize(actor, 'edit', event);
    if (event.status === 'cancelled') throw new ConflictError('This event was cancelled and stays as it was; create a new one instead.', 'event_cancelled');
    const next: EventRecord = {
      ...event,
      title: input.title ?? event.title,
      type: input.type ?? event.type,
      description: input.description === undefined ? event.description : input.description,
      startsAt: input.startsAt ?? event.startsAt,
      endsAt: input.endsAt ?? event.endsAt,
      timeZone: input.timeZone ?? event.timeZone,
      address: input.address === undefined ? event.address : input.address,
      territoryId: input.territoryId === undefined ? event.territoryId : input.territoryId,
      latitude: input.location === undefined ? event.latitude : (input.location?.lat ?? null),
      longitude: input.location === undefined ? event.longitude : (input.location?.lng ?? null),
      capacity: input.capacity === undefined ? event.capacity : input.capacity,
      visibility: input.visibility ?? event.visibility,
      organiserId: input.organiserId === undefined ? event.organiserId : input.organiserId,
      budget: input.budget === undefined ? event.budget : input.budget,
      status: input.status ?? event.status,
      updatedAt: now,
    };
    if (next.endsAt <= next.startsAt) {
      throw invalidField(input.endsAt ? 'body.endsAt' : 'body.startsAt', `The event would end (${next.endsAt.toISOString()}) before it starts (${next.startsAt.toISOString()}).`);
    }
    if (input.organiserId !== undefined && input.organiserId !== event.organiserId && !isManager(actor)) {
      throw new ForbiddenError('Only a manager hands an event to another organiser.');
    }
    if (next.status === 'done' && event.status !== 'done' && next.endsAt > now) throw new ConflictError('An event is done once it has ended.', 'event_not_over');
    if (next.status === 'draft' && event.status !== 'draft') {
      const counts = (await repository.countsOf(tx, [event.id])).get(event.id)!;
      if (counts.going + counts.maybe + counts.waitlisted > 0)
        throw new ConflictError('People have answered this event: cancel it instead of making it a draft again.', 'event_has_rsvps');
    }
    const cancelling = next.status === 'cancelled';
    if (cancelling) {
      next.cancelledAt = now;
      next.cancellationReason = input.cancellationReason ?? null;
    } else if (input.cancellationReason !== undefined) {
      throw invalidField('body.cancellationReason', 'A reason is given only when cancelling (status cancelled).');
    }
    await repository.updateEvent(tx, next);
    if (next.startsAt.getTime() !== event.startsAt.getTime()) await repository.resetReminders(tx, event.id);
    // More room (or no limit any more) lets the waitlist in, first come first served.
    let promoted: string[] = [];
    if (!cancelling && next.capacity !== event.capacity) {
      const going = await repository.countGoing(tx, event.id);
      promoted = await repository.promoteWaitlisted(tx, event.id, next.capacity === null ? Number.MAX_SAFE_INTEGER : next.capacity - going, now);
    }
    const notices = cancelling ? await cancellationNotices(tx, next, now) : await promotionNotices(tx, next, promoted);
    return { event: next, previous: event, promoted, notices, view: await presentOne(tx, next, actor) };
  });
  if (outcome.notices) await dispatchNotices(deps);
  if (outcome.event.status === 'cancelled') publishEvent(deps, 'cancelled', outcome.event);
  else if (outcome.previous.status === 'draft' && outcome.event.status !== 'draft') publishEvent(deps, 'created', outcome.event);
  else publishEvent(deps, 'changed', outcome.event);
  return outcome.view;
}

// ───────────── whose answer

/**
 * The contact an actor answers for: any contact for managers (who must name it), and for everyone
 * else their own, the contact their account is linked to.
 */
async function contactFor(q: Queries, actor: Actor, requested: string | undefined, field: string): Promise<string> {
  if (requested && agendaPolicy.allows(actor, 'rsvpForOthers')) {
    if (!(await contactExists(q, requested))) throw invalidField(field, 'No contact has this id.');
    return requested;
  }
  const own = await repository.contactOfUser(q, actor.id);
  if (!own) {
    if (agendaPolicy.allows(actor, 'rsvpForOthers')) throw invalidField(field, 'Say whose answer this is (contactId).');
    throw new ForbiddenError('Your account is not linked to a contact yet; ask a manager to link it.');
  }
  if (requested && requested !== own) throw new ForbiddenError('You may answer only for yourself.');
  if (!(await contactExists(q, own))) throw new ForbiddenError('The contact your account is linked to no longer exists.');
  return own;
}

// ───────────── RSVPs

/**
 * Records an answer. `going` to a full event joins the waitlist (someone already going or waiting
 * keeps their place); leaving `going` lets the first waiting person in. The event's row is locked
 * for the whole decision, so two answers never take the last place twice.
 */
export async function answer(deps: AppDeps, eventId: string, input: RsvpInput, actor: Actor): Promise<z.input<typeof rsvpResultView>> {
  const now = new Date();
  const outcome = await deps.db.transaction(async (tx) => {
    const event = await visibleEvent(tx, actor, eventId, true);
    assertOpen(event, now, 'answers');
    const contactId = await contactFor(tx, actor, input.contactId, 'body.contactId');
    const previous = await repository.findRsvp(tx, eventId, contactId);
    const wasGoing = previous?.status === 'going';
    let status: RsvpRecord['status'] = input.status;
    if (input.status === 'going' && !wasGoing) {
      const full = event.capacity !== null && (await repository.countGoing(tx, eventId)) >= event.capacity;
      if (previous?.status === 'waitlisted' || full) status = 'waitlisted';
    }
    const rsvp = { id: previous?.id ?? newId(), eventId, contactId, status, respondedAt: now, recordedById: actor.id };
    await repository.saveRsvp(tx, rsvp);
    let promoted: string[] = [];
    if (wasGoing && status !== 'going' && event.capacity !== null) {
      promoted = await repository.promoteWaitlisted(tx, eventId, event.capacity - (await repository.countGoing(tx, eventId)), now);
    }
    const counts = (await repository.countsOf(tx, [eventId])).get(eventId)!;
    const notices = await promotionNotices(tx, event, promoted);
    return { view: { ...presentRsvp(rsvp, await repository.waitlistPosition(tx, eventId, contactId)), promoted, counts }, notices };
  });
  if (outcome.notices) await dispatchNotices(deps);
  return outcome.view;
}

export async function listRsvps(deps: Deps, eventId: string, status: RsvpRecord['status'] | undefined, actor: Actor) {
  const event = await visibleEvent(deps.db, actor, eventId);
  agendaPolicy.authorize(actor, 'edit', event);
  const rsvps = await repository.rsvpsOf(deps.db, eventId, status);
  let position = 0;
  return { data: rsvps.map((rsvp) => presentRsvp(rsvp, rsvp.status === 'waitlisted' ? ++position : null)) };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function encodeAttendeeCursor(row: repository.AttendeeRow): string {
  return Buffer.from(JSON.stringify([row.rank, row.sortAt, row.contactId])).toString('base64url');
}

function decodeAttendeeCursor(cursor: string): repository.AttendeeAfter {
  try {
    const [rank, sortAt, contactId] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    const instant = typeof sortAt === 'string' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/.test(sortAt) && !Number.isNaN(Date.parse(sortAt));
    if (Number.isInteger(rank) && instant && typeof contactId === 'string' && UUID.test(contactId)) {
      return { rank: rank as number, sortAt: sortAt as string, contactId };
    }
  } catch {
    // fall through to the refusal
  }
  throw invalidField('query.cursor', 'The cursor is not one this list gave out.');
}

/** The door's list: who answered or came, by name, for whoever runs the event. */
export async function listAttendees(deps: Deps, eventId: string, query: AttendeesInput, actor: Actor): Promise<z.input<typeof attendeePageView>> {
  const event = await visibleEvent(deps.db, actor, eventId);
  agendaPolicy.authorize(actor, 'edit', event);
  const text = query.q?.trim() ?? '';
  const scanned = UUID.test(text);
  const filter: repository.AttendeeFilter = {
    words: scanned ? [] : text.split(/\s+/).filter(Boolean).slice(0, 8),
    contactId: scanned ? text.toLowerCase() : undefined,
    status: query.status,
    checkedIn: query.checkedIn,
  };
  const after = query.cursor ? decodeAttendeeCursor(query.cursor) : undefined;
  const rows = await repository.attendeesPage(deps.db, eventId, filter, { limit: query.limit + 1, after });
  const page = rows.slice(0, query.limit);
  return {
    data: page.map((row) => ({
      contactId: row.contactId,
      name: row.name,
      status: row.status,
      waitlistPosition: row.waitlistPosition,
      respondedAt: row.respondedAt?.toISOString() ?? null,
      checkedInAt: row.checkedInAt?.toISOString() ?? null,
      checkInMethod: row.checkInMethod,
    })),
    nextCursor: rows.length > query.limit ? encodeAttendeeCursor(page[page.length - 1]!) : null,
  };
}

// ───────────── shifts

function assertEditable(event: EventRecord, actor: Actor): void {
  agendaPolicy.authorize(actor, 'edit', event);
  if (event.status === 'cancelled') throw new ConflictError('This event was cancelled.', 'event_cancelled');
}

export async function createShift(deps: Deps, eventId: string, input: CreateShiftInput, actor: Actor) {
  return deps.db.transaction(async (tx) => {
    const event = await visibleEvent(tx, actor, eventId, true);
    assertEditable(event, actor);
    const shift = { id: newId(), eventId, role: input.role, startsAt: input.startsAt, endsAt: input.endsAt, slots: input.slots, createdAt: new Date() };
    await repository.insertShift(tx, shift);
    return presentShift({ ...shift, taken: 0, contactIds: [] });
  });
}

export async function listShifts(deps: Deps, eventId: string, actor: Actor) {
  await visibleEvent(deps.db, actor, eventId);
  return { data: (await repository.shiftsOf(deps.db, eventId)).map(presentShift) };
}

async function shiftView(q: Queries, eventId: string, shiftId: string) {
  const shift = await repository.findShift(q, eventId, shiftId);
  if (!shift) throw new NotFoundError('This event has no shift with this id.');
  return presentShift(shift);
}

export async function changeShift(deps: Deps, eventId: string, shiftId: string, input: UpdateShiftInput, actor: Actor) {
  return deps.db.transaction(async (tx) => {
    const event = await visibleEvent(tx, actor, eventId, true);
    assertEditable(event, actor);
    const shift = await repository.findShift(tx, eventId, shiftId, true);
    if (!shift) throw new NotFoundError('This event has no shift with this id.');
    const next = { ...shift, role: input.role ?? shift.role, startsAt: input.startsAt ?? shift.startsAt, endsAt: input.endsAt ?? shift.endsAt, slots: input.slots ?? shift.slots };
    if (next.endsAt <= next.startsAt) throw invalidField('body.endsAt', 'The shift would end before it starts.');
    if (next.slots < shift.taken) throw new ConflictError(`${shift.taken} people signed up for this shift: it needs at least that many slots.`, 'shift_taken');
    await repository.updateShift(tx, next);
    return shiftView(tx, eventId, shiftId);
  });
}

export async function removeShift(deps: Deps, eventId: string, shiftId: string, actor: Actor): Promise<void> {
  await deps.db.transaction(async (tx) => {
    const event = await visibleEvent(tx, actor, eventId, true);
    assertEditable(event, actor);
    if (!(await repository.findShift(tx, eventId, shiftId))) throw new NotFoundError('This event has no shift with this id.');
    if (!(await repository.deleteEmptyShift(tx, eventId, shiftId))) throw new ConflictError('People signed up for this shift: take them off first.', 'shift_taken');
  });
}

/** Signs a person up for a shift; a full shift is a 409 (the shift row is locked while counting). Signing up again changes nothing. */
export async function signUp(deps: Deps, eventId: string, shiftId: string, requested: string | undefined, actor: Actor) {
  const now = new Date();
  return deps.db.transaction(async (tx) => {
    const event = await visibleEvent(tx, actor, eventId);
    assertOpen(event, now, 'sign-ups');
    // The organiser staffs their own event, so they may sign anyone up, like a manager.
    const contactId = requested && organises(actor, event) ? await knownContact(tx, requested, 'body.contactId') : await contactFor(tx, actor, requested, 'body.contactId');
    const shift = await repository.findShift(tx, eventId, shiftId, true);
    if (!shift) throw new NotFoundError('This event has no shift with this id.');
    if (!shift.contactIds.includes(contactId) && shift.taken >= shift.slots) throw new ConflictError(`All ${shift.slots} places of this shift are taken.`, 'shift_full');
    await repository.insertSignup(tx, { shiftId, eventId, contactId, recordedById: actor.id, at: now });
    return shiftView(tx, eventId, shiftId);
  });
}

async function knownContact(q: Queries, contactId: string, field: string): Promise<string> {
  if (!(await contactExists(q, contactId))) throw invalidField(field, 'No contact has this id.');
  return contactId;
}

export async function withdrawSignup(deps: Deps, eventId: string, shiftId: string, contactId: string, actor: Actor): Promise<void> {
  await deps.db.transaction(async (tx) => {
    const event = await visibleEvent(tx, actor, eventId);
    const mayForOthers = agendaPolicy.allows(actor, 'edit', event);
    if (!mayForOthers && (await repository.contactOfUser(tx, actor.id)) !== contactId) throw new ForbiddenError('You may take only yourself off a shift.');
    if (!(await repository.findShift(tx, eventId, shiftId, true))) throw new NotFoundError('This event has no shift with this id.');
    if (!(await repository.deleteSignup(tx, shiftId, contactId))) throw new NotFoundError('This person is not signed up for this shift.');
  });
}

// ───────────── check-in

/** Pushes the going and checked-in counts of the events happening now, at most once a second across processes. */
export function attendanceChanged(deps: Pick<AppDeps, 'db' | 'realtime'>): void {
  deps.realtime.coalesced(AGENDA_ROOM, 'agenda:attendance', async () => ({ events: await repository.liveAttendance(deps.db, new Date()) }))();
}

function walkInPerson(walkIn: NonNullable<CheckInInput['walkIn']>) {
  const phone = walkIn.phone ? normalisePhone(walkIn.phone) : undefined;
  if (walkIn.phone && !phone) throw new ValidationError([{ path: 'body.walkIn.phone', message: 'Not a valid phone number.' }]);
  return {
    name: walkIn.name,
    phone: phone ?? null,
    email: walkIn.email?.toLowerCase() ?? null,
    documentId: null,
    territoryId: null,
    neighbourhood: null,
    interests: [],
    whatsappOptIn: Boolean(phone) && walkIn.whatsappOptIn,
    emailOptIn: Boolean(walkIn.email) && walkIn.emailOptIn,
  };
}

/**
 * Records that someone is at the event: a known contact (scanned or marked) or a walk-in, who
 * becomes (or is found as) a contact with the consent they gave at the door, in one statement with
 * the check-in. A second check-in of the same person keeps the first.
 */
export async function checkIn(deps: Deps, eventId: string, input: CheckInInput, actor: Actor): Promise<z.input<typeof checkInView>> {
  const now = new Date();
  const result = await deps.db.transaction(async (tx) => {
    const event = await visibleEvent(tx, actor, eventId);
    agendaPolicy.authorize(actor, 'edit', event);
    if (event.status === 'cancelled') throw new ConflictError('This event was cancelled.', 'event_cancelled');
    if (event.status === 'draft') throw new ConflictError('This event is a draft.', 'event_draft');
    if (now.getTime() < event.startsAt.getTime() - CHECK_IN_OPENS_BEFORE_MS || now.getTime() > event.endsAt.getTime() + CHECK_IN_CLOSES_AFTER_MS) {
      throw new ConflictError('Check-in opens six hours before the event starts and closes a day after it ends.', 'check_in_closed');
    }
    if (input.shiftId && !(await repository.findShift(tx, eventId, input.shiftId))) throw invalidField('body.shiftId', 'This event has no shift with this id.');
    const record = { id: newId(), eventId, shiftId: input.shiftId ?? null, checkedInAt: now, recordedById: actor.id };
    let contactId: string;
    if (input.walkIn) {
      const person = walkInPerson(input.walkIn);
      const textId = await ensureConsentText(tx, input.walkIn.consentText, input.walkIn.privacyPolicyUrl ?? null);
      const statement = arrivingContact(
        {
          person,
          origin: { kind: 'agenda_event', refId: eventId },
          proof: { textId, source: 'agenda_check_in', sourceRef: eventId, ipHash: null, userAgent: null },
        },
        { ctes: repository.checkInCte({ ...record, method: 'walk_in' }), select: sql<{ contactId: string }>`select id as "contactId" from contact` },
      );
      try {
        contactId = (await tx.first(statement))!.contactId;
      } catch (error) {
        if (error instanceof ForeignKeyConstraintViolationException) throw invalidField('body.shiftId', 'This event has no shift with this id.');
        throw error;
      }
    } else {
      contactId = await knownContact(tx, input.contactId!, 'body.contactId');
      await repository.insertCheckIn(tx, { ...record, contactId, method: input.method ?? 'mark' });
    }
    const stored = (await repository.findCheckIn(tx, eventId, contactId))!;
    const counts = (await repository.countsOf(tx, [eventId])).get(eventId)!;
    return { ...presentCheckIn(stored), created: stored.id === record.id, counts };
  });
  if (result.created) attendanceChanged(deps);
  return result;
}

export async function listCheckIns(deps: Deps, eventId: string, actor: Actor) {
  const event = await visibleEvent(deps.db, actor, eventId);
  agendaPolicy.authorize(actor, 'edit', event);
  return { data: (await repository.checkInsOf(deps.db, eventId)).map(presentCheckIn) };
}

export async function undoCheckIn(deps: Deps, eventId: string, contactId: string, actor: Actor): Promise<void> {
  const event = await visibleEvent(deps.db, actor, eventId);
  agendaPolicy.authorize(actor, 'edit', event);
  if (!(await repository.deleteCheckIn(deps.db, eventId, contactId))) throw new NotFoundError('This person was not checked in to this event.');
  attendanceChanged(deps);
}

// ───────────── organisers

/** The roles that may run an event they organise (the policy's `edit`, admins included). */
const ORGANISER_ROLES = ROLES.filter((role) => roleAllowed(role, agendaPolicy.roles('edit')));

/** Who may be named an event's organiser and so run its door: active accounts of those roles, by name. */
export async function listOrganisers(q: Queries, query: PageRequest & { q?: string | undefined }) {
  const page = await userPage(q, { roles: ORGANISER_ROLES, active: true, q: query.q }, query);
  return mapPage(page, (user) => ({ id: user.id, name: user.name, role: user.role }));
}

// ───────────── accounts

export async function linkUserContact(deps: Deps, userId: string, contactId: string | null) {
  const user = await findUser(deps.db, userId);
  if (!user) throw new NotFoundError('No user has this id.');
  if (contactId !== null) await knownContact(deps.db, contactId, 'body.contactId');
  await repository.setContactOfUser(deps.db, userId, contactId, new Date());
  return { userId, contactId };
}

export async function userContact(deps: Deps, userId: string) {
  const user = await findUser(deps.db, userId);
  if (!user) throw new NotFoundError('No user has this id.');
  return { userId, contactId: (await repository.contactOfUser(deps.db, userId)) ?? null };
}
