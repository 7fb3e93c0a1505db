import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { ForeignKeyConstraintViolationException } from '@mikro-orm/core';
import { z } from 'zod';
import type { Actor } from '../../kernel/auth/roles';
import type { AppDeps } from '../../kernel/context';
import { AppError, ConflictError, ForbiddenError, NotFoundError, UnauthorizedError, ValidationError, invalidField, type FieldError } from '../../kernel/errors';
import { type FileArea, detectFileType, DOCX_TYPE, fileExtension, isExecutable, sha256Of, type StoredFileType } from '../../kernel/file-store';
import { zodIssuesToFieldErrors } from '../../kernel/http/router';
import { newId } from '../../kernel/ids';
import { hashIp } from '../../kernel/privacy';
import type { Queries } from '../../kernel/sql';
import { spanishError } from '../../kernel/spanish-issues';
import { contactExists, ensureConsentText, normalisePhone, type CapturedPerson } from '../audience';
import { activeUsersWithRoles, findUser, userNames } from '../auth';
import { dispatchNotices } from '../notices';
import { conversationForExport } from '../whatsapp';
import { clockState, deadlineFor, endOfLocalDay, isBusinessDay, latestExtension, localDateOf, dueSoonHorizon, type ClockSettings } from './pqrs.clock';
import { OPEN_STATUSES, type PqrsChannel, type PqrsStatus, type StoredChanges } from './pqrs.entities';
import { queueCitizenNotice } from './pqrs.notices';
import { ASSIGNABLE_ROLES, pqrsPolicy, PQRS_ROOM } from './pqrs.policy';
import { presentAttachment, presentEvent, presentHistory, presentRequest, presentSettings } from './pqrs.presenter';
import {
  attachmentsOf,
  citizensOf,
  countAttachments,
  countByDueState,
  findRequest,
  historyOf,
  insertAttachment,
  insertHistory,
  insertRequest,
  insertRequestWithCitizen,
  nextSequence,
  readSettings,
  requestPage,
  saveRequest,
  saveSettings,
  type HistoryRecord,
  type PageAfter,
  type RequestFilter,
  type RequestRecord,
} from './pqrs.repository';
import { fileBody, type FileInput } from './pqrs.filing.schemas';
import type { AnswerInput, ExtendInput, FromWhatsAppInput, ListInput, SettingsInput, SummaryInput, UpdateInput } from './pqrs.schemas';

type Deps = Pick<AppDeps, 'db' | 'config' | 'realtime' | 'files'>;

export const clockOf = (deps: Pick<AppDeps, 'config'>): ClockSettings => ({ timeZone: deps.config.timeZone, holidayCountry: deps.config.holidayCountry });

/** Hands the notices a committed change queued to their senders; should that fail, they stay queued for the senders' own sweep. */
async function dispatchAfterCommit(deps: AppDeps): Promise<void> {
  await dispatchNotices(deps).catch((error: unknown) => deps.logger.warn({ task: 'pqrs.notices', errorName: (error as Error).name }, 'pqrs notice dispatch failed'));
}

// ───────────── attachments: what and how much

export const ATTACHMENT_MAX_BYTES = 10 * 1024 * 1024;
export const ATTACHMENTS_PER_REQUEST = 10;
export const ATTACHMENT_TYPES = ['application/pdf', 'image/jpeg', 'image/png', DOCX_TYPE] as const;
/** How long the filer may attach files with the token the filing returned. */
const UPLOAD_TOKEN_TTL_MS = 24 * 3600_000;

export const attachmentArea = (deps: Pick<AppDeps, 'files'>): FileArea => deps.files.area('pqrs/attachments');

// ───────────── filing

/** Citizens read these messages on the form: Spanish, like the page. */

const rawText = (value: unknown): string => (typeof value === 'string' ? value.trim() : '');
const rawTicked = (value: unknown): boolean => value === true || value === 'true' || value === 'on';

/**
 * What a filing needs beyond each field's own shape: a named request needs the person, a way to
 * answer them and their consent; only a denuncia may be anonymous. Read from the raw body so these
 * problems are reported together with the fields' own, all at once.
 */
function filingRuleErrors(body: Record<string, unknown>): FieldError[] {
  const errors: FieldError[] = [];
  if (rawTicked(body.anonymous)) {
    if (body.type !== 'denuncia') errors.push({ path: 'body.anonymous', message: 'Solo una denuncia puede presentarse de forma anónima.' });
    return errors;
  }
  const phone = rawText(body.phone);
  if (rawText(body.name).length < 2) errors.push({ path: 'body.name', message: 'Escribe tu nombre.' });
  if (!phone && !rawText(body.email)) errors.push({ path: 'body.phone', message: 'Déjanos un celular o un correo para enviarte la respuesta.' });
  else if (phone && !normalisePhone(phone)) errors.push({ path: 'body.phone', message: 'Revisa el número: debe ser un celular o teléfono válido, por ejemplo 300 123 4567.' });
  if (!rawTicked(body.consent)) errors.push({ path: 'body.consent', message: 'Para radicar tu solicitud debes autorizar el tratamiento de tus datos.' });
  return errors;
}

/** The filing, or a 400 listing every problem at once (`consent_required` when consent is the only one). */
export function parseFiling(body: Record<string, unknown>): FileInput {
  const parsed = fileBody.safeParse(body, { error: spanishError });
  const errors = parsed.success ? [] : zodIssuesToFieldErrors(parsed.error, 'body');
  for (const error of filingRuleErrors(body)) if (!errors.some((existing) => existing.path === error.path)) errors.push(error);
  if (errors.length || !parsed.success) {
    const consentOnly = errors.every((error) => error.path === 'body.consent');
    throw new ValidationError(
      errors,
      consentOnly ? 'Para radicar tu solicitud debes autorizar el tratamiento de tus datos.' : 'Algunos datos no son válidos.',
      consentOnly ? 'consent_required' : 'validation_failed',
    );
  }
  return parsed.data;
}

const TOO_MANY = 'Recibimos demasiadas solicitudes seguidas desde tu conexión. Espera unos minutos y vuelve a intentarlo.';

export interface FilingMeta {
  ip: string;
  userAgent: string | undefined;
}

export interface Filed {
  request: RequestRecord;
  uploadToken: string | null;
}

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

function numberOf(year: number, sequence: number): string {
  return `PQRS-${year}-${String(sequence).padStart(6, '0')}`;
}

/** A new request's record, numbered in the transaction that inserts it. */
async function newRequest(
  tx: Queries,
  deps: Pick<AppDeps, 'config'>,
  fields: Pick<RequestRecord, 'type' | 'subject' | 'description' | 'channel' | 'anonymous' | 'territoryId' | 'priority' | 'conversationId' | 'createdById' | 'contactId'>,
  now: Date,
  withUploadToken: boolean,
): Promise<Filed> {
  const clock = clockOf(deps);
  const year = Number(localDateOf(now, clock.timeZone).slice(0, 4));
  const sequence = await nextSequence(tx, year);
  const deadline = deadlineFor(now, fields.type, clock);
  const uploadToken = withUploadToken ? randomBytes(24).toString('base64url') : null;
  const request: RequestRecord = {
    ...fields,
    id: newId(),
    number: numberOf(year, sequence),
    year,
    sequence,
    assigneeId: null,
    status: 'received',
    receivedAt: now,
    termDays: deadline.termDays,
    originalDueDate: deadline.dueDate,
    dueDate: deadline.dueDate,
    dueAt: deadline.dueAt,
    extendedAt: null,
    extensionReason: null,
    extendedById: null,
    dueSoonAt: null,
    answer: null,
    answeredAt: null,
    answeredById: null,
    closedAt: null,
    receivedNotice: null,
    answerNotice: null,
    extensionNotice: null,
    uploadTokenHash: uploadToken ? hashToken(uploadToken) : null,
    uploadTokenExpiresAt: uploadToken ? new Date(now.getTime() + UPLOAD_TOKEN_TTL_MS) : null,
    citizenErasedAt: null,
    updatedAt: now,
  };
  return { request, uploadToken };
}

function filedHistory(request: RequestRecord, actorId: string | null): HistoryRecord {
  return {
    id: newId(),
    requestId: request.id,
    at: request.receivedAt,
    actorId,
    action: 'filed',
    changes: {
      number: { before: null, after: request.number },
      type: { before: null, after: request.type },
      channel: { before: null, after: request.channel },
      status: { before: null, after: request.status },
      dueDate: { before: null, after: request.dueDate },
    },
    note: null,
  };
}

function territoryProblem(error: unknown): never {
  if (error instanceof ForeignKeyConstraintViolationException)
    throw new ValidationError([{ path: 'body.territoryId', message: 'Elige un barrio de la lista.' }], 'Algunos datos no son válidos.');
  throw error;
}

/**
 * Files a citizen's request from the public form or API (or, for staff, one received in person,
 * by phone or by email: `channel`). The citizen becomes (or is found as) an audience contact with
 * the proof of their consent; an anonymous denuncia keeps nobody.
 */
export async function fileRequest(deps: AppDeps, input: FileInput, meta: FilingMeta, staff?: { actor: Actor; channel: PqrsChannel }): Promise<Filed> {
  const now = new Date();
  const person: CapturedPerson | null = input.anonymous
    ? null
    : {
        name: input.name!,
        phone: input.phone ? normalisePhone(input.phone)! : null,
        email: input.email ?? null,
        documentId: input.documentId ?? null,
        territoryId: input.territoryId ?? null,
        neighbourhood: null,
        interests: [],
        whatsappOptIn: Boolean(input.phone) && input.whatsappOptIn,
        emailOptIn: Boolean(input.email) && input.emailOptIn,
      };
  if (!staff) {
    const { perIp, perPerson, windowSeconds } = deps.config.pqrsLimits;
    await deps.rateLimits.named('pqrs-ip', { points: perIp, windowSeconds }).consume(meta.ip, TOO_MANY);
    if (person) await deps.rateLimits.named('pqrs-person', { points: perPerson, windowSeconds }).consume(person.phone ?? person.email!, TOO_MANY);
  }
  let filed: Filed;
  try {
    filed = await deps.db.transaction(async (tx) => {
      const settings = await readSettings(tx);
      const created = await newRequest(
        tx,
        deps,
        {
          type: input.type,
          subject: input.subject,
          description: input.description,
          channel: staff?.channel ?? 'web',
          anonymous: input.anonymous,
          territoryId: input.territoryId ?? null,
          priority: 'normal',
          conversationId: null,
          createdById: staff?.actor.id ?? null,
          contactId: null,
        },
        now,
        true,
      );
      if (person) {
        const textId = await ensureConsentText(tx, settings.consentText, settings.privacyPolicyUrl);
        const proof = {
          textId,
          source: staff ? 'pqrs_staff' : 'pqrs',
          sourceRef: created.request.id,
          ipHash: staff ? null : hashIp(deps.secrets.ipHashKey, meta.ip),
          userAgent: staff ? null : (meta.userAgent?.slice(0, 300) ?? null),
        };
        created.request.contactId = await insertRequestWithCitizen(tx, created.request, person, proof);
      } else {
        await insertRequest(tx, created.request);
      }
      await insertHistory(tx, [filedHistory(created.request, staff?.actor.id ?? null)]);
      created.request = await queueCitizenNotice(tx, 'received', created.request, settings, clockOf(deps), staff?.actor.id ?? null);
      return created;
    });
  } catch (error) {
    territoryProblem(error);
  }
  deps.realtime.publish(PQRS_ROOM, 'pqrs:request', presentEvent('filed', filed.request, clockOf(deps)));
  await dispatchAfterCommit(deps);
  return filed;
}

/** The answer to a filing: where it stands and, for the filer, the token that lets them attach files. */
export function presentFiled(deps: Pick<AppDeps, 'config'>, filed: Filed) {
  const { request } = filed;
  return {
    id: request.id,
    number: request.number,
    type: request.type,
    status: request.status,
    receivedAt: request.receivedAt.toISOString(),
    dueDate: request.dueDate,
    dueAt: request.dueAt.toISOString(),
    businessDaysLeft: clockState(request, new Date(), clockOf(deps)).businessDaysLeft,
    uploadToken: filed.uploadToken,
  };
}

/**
 * A request made from an inbound WhatsApp conversation: the conversation's contact is the citizen
 * (they wrote to the campaign; their consent is what audience already holds), and the description,
 * when staff give none, is the conversation's latest inbound texts.
 */
export async function fileFromWhatsApp(deps: AppDeps, input: FromWhatsAppInput, actor: Actor) {
  const conversation = await conversationForExport(deps.db, input.conversationId);
  if (!conversation) throw invalidField('body.conversationId', 'No WhatsApp conversation has this id.', 'unknown_conversation');
  if (!(await contactExists(deps.db, conversation.contactId))) throw new ConflictError('This conversation’s contact had their data erased.', 'contact_erased');
  const description =
    input.description ??
    conversation.inboundTexts
      .map((message) => message.body.trim())
      .filter(Boolean)
      .join('\n\n')
      .slice(0, 10_000);
  if (!description) throw invalidField('body.description', 'The conversation has no inbound text to take the description from; write one.', 'description_required');
  const now = new Date();
  let filed: Filed;
  try {
    filed = await deps.db.transaction(async (tx) => {
      const created = await newRequest(
        tx,
        deps,
        {
          type: input.type,
          subject: input.subject,
          description,
          channel: 'whatsapp',
          anonymous: false,
          territoryId: input.territoryId ?? null,
          priority: input.priority ?? 'normal',
          conversationId: conversation.id,
          createdById: actor.id,
          contactId: conversation.contactId,
        },
        now,
        false,
      );
      await insertRequest(tx, created.request);
      await insertHistory(tx, [filedHistory(created.request, actor.id)]);
      created.request = await queueCitizenNotice(tx, 'received', created.request, await readSettings(tx), clockOf(deps), actor.id);
      return created;
    });
  } catch (error) {
    territoryProblem(error);
  }
  deps.realtime.publish(PQRS_ROOM, 'pqrs:request', presentEvent('filed', filed.request, clockOf(deps)));
  await dispatchAfterCommit(deps);
  return presentOne(deps, filed.request, actor);
}

// ───────────── reading

async function presentMany(deps: Pick<AppDeps, 'db' | 'config'>, requests: RequestRecord[], actor: Actor) {
  const now = new Date();
  const clock = clockOf(deps);
  if (!pqrsPolicy.allows(actor, 'readPersonal')) return requests.map((request) => presentRequest(request, now, clock, null));
  const [citizens, attachments] = await Promise.all([
    citizensOf(
      deps.db,
      requests.flatMap((request) => (request.contactId ? [request.contactId] : [])),
    ),
    attachmentsOf(
      deps.db,
      requests.map((request) => request.id),
    ),
  ]);
  return requests.map((request) =>
    presentRequest(request, now, clock, {
      citizen: request.contactId ? (citizens.get(request.contactId) ?? null) : null,
      attachments: attachments.filter((attachment) => attachment.requestId === request.id),
    }),
  );
}

async function presentOne(deps: Pick<AppDeps, 'db' | 'config'>, request: RequestRecord, actor: Actor) {
  const [presented] = await presentMany(deps, [request], actor);
  return presented!;
}

// A page's cursor: [received_at, id] newest first, ['due', due_at, id] by deadline; one order's cursor is refused by the other.
const receivedCursor = z.tuple([z.iso.datetime(), z.uuid()]);
const dueCursor = z.tuple([z.literal('due'), z.iso.datetime(), z.uuid()]);

function decodeCursor(cursor: string, sort: 'received' | 'due'): PageAfter {
  try {
    const decoded: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (sort === 'due') {
      const [, at, id] = dueCursor.parse(decoded);
      return { sort, at: new Date(at), id };
    }
    const [at, id] = receivedCursor.parse(decoded);
    return { sort, at: new Date(at), id };
  } catch {
    throw invalidField('query.cursor', 'The cursor is not one this list gave out (in this order).');
  }
}

function encodeCursor(request: RequestRecord, sort: 'received' | 'due'): string {
  const key = sort === 'due' ? ['due', request.dueAt.toISOString(), request.id] : [request.receivedAt.toISOString(), request.id];
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

/** The filters the queue and its summary share. */
function queueFilter(query: SummaryInput): RequestFilter {
  return {
    type: query.type,
    channel: query.channel,
    assigneeId: query.assigneeId,
    unassigned: query.unassigned,
    territoryId: query.territoryId,
    search: query.q,
  };
}

export async function listRequests(deps: Pick<AppDeps, 'db' | 'config'>, query: ListInput, actor: Actor) {
  const now = new Date();
  const clock = clockOf(deps);
  if (query.contactId && !pqrsPolicy.allows(actor, 'readPersonal')) throw new ForbiddenError('Only managers may look up a citizen’s requests.');
  const horizon = dueSoonHorizon(localDateOf(now, clock.timeZone), clock);
  const filter: RequestFilter = {
    ...queueFilter(query),
    status: query.status,
    overdueAt: query.overdue === undefined ? undefined : { now, overdue: query.overdue },
    dueSoon: query.dueSoon === undefined ? undefined : { now, horizon, dueSoon: query.dueSoon },
    dueStates: query.dueState ? { states: query.dueState, now, horizon } : undefined,
    dueBefore: query.dueBefore,
    contactId: query.contactId,
  };
  const rows = await requestPage(deps.db, filter, query.sort, query.limit + 1, query.cursor ? decodeCursor(query.cursor, query.sort) : undefined);
  const page = rows.slice(0, query.limit);
  return { data: await presentMany(deps, page, actor), nextCursor: rows.length > query.limit ? encodeCursor(page[page.length - 1]!, query.sort) : null };
}

/** The desk's header: how many requests (matching the filters) are in each due state now. */
export function queueSummary(deps: Pick<AppDeps, 'db' | 'config'>, query: SummaryInput) {
  const now = new Date();
  const clock = clockOf(deps);
  return countByDueState(deps.db, queueFilter(query), now, dueSoonHorizon(localDateOf(now, clock.timeZone), clock));
}

async function existing(q: Queries, id: string, lock = false): Promise<RequestRecord> {
  const request = await findRequest(q, id, lock);
  if (!request) throw new NotFoundError('No PQRS request has this id.');
  return request;
}

export async function getRequest(deps: Pick<AppDeps, 'db' | 'config'>, id: string, actor: Actor) {
  return presentOne(deps, await existing(deps.db, id), actor);
}

export async function requestHistory(deps: Pick<AppDeps, 'db'>, id: string, actor: Actor) {
  await existing(deps.db, id);
  const rows = await historyOf(deps.db, id);
  const actorIds = rows.flatMap((row) => (row.actorId ? [row.actorId] : []));
  const names = await userNames(deps.db, actorIds);
  return presentHistory(rows, pqrsPolicy.allows(actor, 'readPersonal'), names);
}

/** The staff a request may be assigned to (active managers and admins), by name. */
export async function assignees(deps: Pick<AppDeps, 'db'>) {
  return { data: await activeUsersWithRoles(deps.db, ASSIGNABLE_ROLES) };
}

// ───────────── changes

/** The fields whose value differs, each with its before and after. */
function changesBetween(before: Record<string, unknown>, after: Record<string, unknown>): StoredChanges {
  const changes: StoredChanges = {};
  for (const [field, value] of Object.entries(after)) {
    if (JSON.stringify(before[field] ?? null) !== JSON.stringify(value ?? null)) changes[field] = { before: before[field] ?? null, after: value ?? null };
  }
  return changes;
}

const tracked = (request: RequestRecord) => ({
  status: request.status,
  assigneeId: request.assigneeId,
  priority: request.priority,
  territoryId: request.territoryId,
  type: request.type,
  termDays: request.termDays,
  dueDate: request.dueDate,
});

/** Where a status may go by PATCH: open statuses move freely or close; an answer only closes; closed is final. */
function checkTransition(from: PqrsStatus, to: PqrsStatus): void {
  if (from === to) return;
  if (from === 'closed') throw new ConflictError('This request is closed; a closed request does not change.', 'request_closed');
  if (from === 'answered' && to !== 'closed') throw new ConflictError('An answered request can only be closed.', 'invalid_transition');
}

export async function updateRequest(deps: Deps, id: string, input: UpdateInput, actor: Actor) {
  const now = new Date();
  const clock = clockOf(deps);
  if (input.assigneeId) {
    const user = await findUser(deps.db, input.assigneeId);
    if (!user || !user.active) throw invalidField('body.assigneeId', 'No active user has this id.', 'unknown_user');
    if (!ASSIGNABLE_ROLES.includes(user.role))
      throw invalidField('body.assigneeId', 'Requests are assigned to managers (or admins), who may answer them.', 'assignee_cannot_handle');
  }
  let saved: RequestRecord;
  try {
    saved = await deps.db.transaction(async (tx) => {
      const request = await existing(tx, id, true);
      const next: RequestRecord = { ...request, updatedAt: now };
      if (input.status !== undefined) {
        checkTransition(request.status, input.status);
        if (input.status === 'closed' && request.status !== 'closed' && !request.answeredAt && !input.note) {
          throw invalidField('body.note', 'Closing a request without an answer needs a note saying why (withdrawn, duplicate, …).', 'note_required');
        }
        next.status = input.status;
        if (input.status === 'closed' && !request.closedAt) next.closedAt = now;
      } else if (request.status === 'closed') {
        throw new ConflictError('This request is closed; a closed request does not change.', 'request_closed');
      }
      if (input.assigneeId !== undefined) next.assigneeId = input.assigneeId;
      if (input.priority !== undefined) next.priority = input.priority;
      if (input.territoryId !== undefined) next.territoryId = input.territoryId;
      if (input.type !== undefined && input.type !== request.type) {
        if (!OPEN_STATUSES.includes(request.status)) throw new ConflictError('Only an open request can be reclassified.', 'request_not_open');
        if (request.extendedAt) throw new ConflictError('This request’s deadline was extended; its type no longer changes the term.', 'already_extended');
        const deadline = deadlineFor(request.receivedAt, input.type, clock);
        Object.assign(next, {
          type: input.type,
          termDays: deadline.termDays,
          originalDueDate: deadline.dueDate,
          dueDate: deadline.dueDate,
          dueAt: deadline.dueAt,
          dueSoonAt: null,
        });
      }
      const changes = changesBetween(tracked(request), tracked(next));
      if (!Object.keys(changes).length) return request;
      await saveRequest(tx, next);
      await insertHistory(tx, [{ id: newId(), requestId: id, at: now, actorId: actor.id, action: 'update', changes, note: input.note ?? null }]);
      return next;
    });
  } catch (error) {
    territoryProblem(error);
  }
  deps.realtime.publish(PQRS_ROOM, 'pqrs:request', presentEvent('updated', saved, clockOf(deps)));
  return presentOne(deps, saved, actor);
}

/** Records the answer (it stops the clock) and, with `close`, closes the request. */
export async function answerRequest(deps: AppDeps, id: string, input: AnswerInput, actor: Actor) {
  const now = new Date();
  const saved = await deps.db.transaction(async (tx) => {
    const request = await existing(tx, id, true);
    if (request.status === 'closed') throw new ConflictError('This request is closed.', 'request_closed');
    if (request.answeredAt) throw new ConflictError(`This request was answered on ${request.answeredAt.toISOString()}.`, 'already_answered');
    const next: RequestRecord = {
      ...request,
      answer: input.answer,
      answeredAt: now,
      answeredById: actor.id,
      status: input.close ? 'closed' : 'answered',
      closedAt: input.close ? now : request.closedAt,
      updatedAt: now,
    };
    await saveRequest(tx, next);
    const changes: StoredChanges = {
      status: { before: request.status, after: next.status },
      answeredLate: { before: null, after: now.getTime() > request.dueAt.getTime() },
    };
    await insertHistory(tx, [{ id: newId(), requestId: id, at: now, actorId: actor.id, action: 'answer', changes, note: null }]);
    return queueCitizenNotice(tx, 'answered', next, await readSettings(tx), clockOf(deps), actor.id);
  });
  deps.realtime.publish(PQRS_ROOM, 'pqrs:request', presentEvent('answered', saved, clockOf(deps)));
  await dispatchAfterCommit(deps);
  return presentOne(deps, saved, actor);
}

/**
 * The one extension the law allows (Ley 1755 de 2015, art. 14, parágrafo): before the deadline,
 * with the reason, to a business day after the current deadline and no later than twice the
 * original term counted from the same start.
 */
export async function extendRequest(deps: AppDeps, id: string, input: ExtendInput, actor: Actor) {
  const now = new Date();
  const clock = clockOf(deps);
  const saved = await deps.db.transaction(async (tx) => {
    const request = await existing(tx, id, true);
    if (!OPEN_STATUSES.includes(request.status)) throw new ConflictError('Only a request still waiting for its answer can be extended.', 'request_not_open');
    if (request.extendedAt) throw new ConflictError(`This request was already extended on ${request.extendedAt.toISOString()}; the law allows one extension.`, 'already_extended');
    if (now.getTime() > request.dueAt.getTime()) {
      throw new ConflictError(`The deadline (${request.dueDate}) has passed: the citizen must be told of an extension before it.`, 'deadline_passed');
    }
    if (input.newDueDate <= request.dueDate) throw invalidField('body.newDueDate', `The new deadline must be after the current one (${request.dueDate}).`, 'extension_not_later');
    const latest = latestExtension(request.receivedAt, request.termDays, clock);
    if (input.newDueDate > latest) {
      throw invalidField(
        'body.newDueDate',
        `The new deadline may not exceed twice the original term of ${request.termDays} business days: ${latest} at the latest.`,
        'extension_beyond_double',
      );
    }
    if (!isBusinessDay(input.newDueDate, clock.holidayCountry)) throw invalidField('body.newDueDate', `${input.newDueDate} is not a business day.`, 'not_business_day');
    const next: RequestRecord = {
      ...request,
      dueDate: input.newDueDate,
      dueAt: endOfLocalDay(input.newDueDate, clock.timeZone),
      extendedAt: now,
      extensionReason: input.reason,
      extendedById: actor.id,
      dueSoonAt: null,
      updatedAt: now,
    };
    await saveRequest(tx, next);
    await insertHistory(tx, [
      { id: newId(), requestId: id, at: now, actorId: actor.id, action: 'extend', changes: { dueDate: { before: request.dueDate, after: next.dueDate } }, note: input.reason },
    ]);
    return queueCitizenNotice(tx, 'extended', next, await readSettings(tx), clock, actor.id);
  });
  deps.realtime.publish(PQRS_ROOM, 'pqrs:request', presentEvent('extended', saved, clockOf(deps)));
  await dispatchAfterCommit(deps);
  return presentOne(deps, saved, actor);
}

// ───────────── attachments

/** Who attaches: staff who handle requests, or the filer holding the filing's unexpired token. */
export type Uploader = { actor: Actor } | { token: string | undefined };

function tokenMatches(request: RequestRecord, token: string, now: Date): boolean {
  if (!request.uploadTokenHash || !request.uploadTokenExpiresAt || request.uploadTokenExpiresAt.getTime() < now.getTime()) return false;
  return timingSafeEqual(Buffer.from(hashToken(token), 'hex'), Buffer.from(request.uploadTokenHash, 'hex'));
}

/**
 * A file name fit to store and show: no path, no control characters, at most 200 characters, and
 * the extension of the type its bytes were found to be, whatever the uploader's name said (a PDF
 * sent as `factura.html` is `factura.pdf`, so nobody who downloads it opens it as a page).
 */
function storedFileName(raw: string | undefined, type: StoredFileType): string {
  const extension = fileExtension(type);
  const base = (raw ?? '').split(/[\\/]/).pop() ?? '';
  const clean = [...base]
    .filter((char) => char !== '"' && char.charCodeAt(0) > 0x1f && char.charCodeAt(0) !== 0x7f)
    .join('')
    .trim();
  const stem = clean
    .replace(/\.[A-Za-z][A-Za-z0-9]{0,4}$/, '')
    .trim()
    .slice(0, 200 - extension.length - 1);
  return `${stem || 'adjunto'}.${extension}`;
}

export async function addAttachment(deps: Deps, id: string, file: { declaredType: string; fileName: string | undefined; bytes: Buffer }, uploader: Uploader) {
  if (!file.bytes.length) throw invalidField('body', 'The file is empty.', 'empty_body');
  if (isExecutable(file.bytes)) throw new AppError(415, 'executable_refused', 'Unsupported media type', 'Programs and scripts are never accepted as attachments.');
  const detected = detectFileType(file.bytes, ATTACHMENT_TYPES);
  if (!detected || detected !== file.declaredType) {
    throw new AppError(
      415,
      'attachment_type_mismatch',
      'Unsupported media type',
      detected
        ? `The file is ${detected} but was sent as ${file.declaredType}; send it with its own type.`
        : 'The file is not a PDF, JPEG, PNG or Word (.docx) document, whatever its Content-Type says.',
    );
  }
  const now = new Date();
  const area = attachmentArea(deps);
  const attachmentId = newId();
  const staged = await area.stage(attachmentId, file.bytes);
  try {
    const { request, attachment } = await deps.db.transaction(async (tx) => {
      const request = await existing(tx, id, true);
      if ('actor' in uploader) pqrsPolicy.authorize(uploader.actor, 'handle');
      else if (!uploader.token) throw new UnauthorizedError('Attaching a file needs the upload token the filing returned (X-Upload-Token) or a staff token.');
      else if (!tokenMatches(request, uploader.token, now)) throw new ForbiddenError('This upload token is not valid for this request, or it expired.');
      if (request.status === 'closed') throw new ConflictError('This request is closed.', 'request_closed');
      if ((await countAttachments(tx, id)) >= ATTACHMENTS_PER_REQUEST) {
        throw new ConflictError(`A request holds at most ${ATTACHMENTS_PER_REQUEST} attachments.`, 'too_many_attachments');
      }
      const attachment = {
        id: attachmentId,
        requestId: id,
        fileName: storedFileName(file.fileName, detected),
        type: detected,
        size: file.bytes.length,
        sha256: sha256Of(file.bytes),
        uploadedAt: now,
        uploadedById: 'actor' in uploader ? uploader.actor.id : null,
      };
      await insertAttachment(tx, attachment);
      await insertHistory(tx, [
        {
          id: newId(),
          requestId: id,
          at: now,
          actorId: attachment.uploadedById,
          action: 'attachment',
          changes: { attachment: { before: null, after: { id: attachment.id, type: attachment.type, size: attachment.size } } },
          note: null,
        },
      ]);
      await staged.place();
      return { request, attachment };
    });
    deps.realtime.publish(PQRS_ROOM, 'pqrs:request', presentEvent('attachment', request, clockOf(deps)));
    return presentAttachment(attachment);
  } catch (error) {
    await staged.discard();
    throw error;
  }
}

export async function attachmentFile(deps: Pick<AppDeps, 'db' | 'files' | 'logger'>, id: string, attachmentId: string) {
  const attachment = (await attachmentsOf(deps.db, [id])).find((candidate) => candidate.id === attachmentId);
  if (!attachment) throw new NotFoundError('This request has no attachment with this id.');
  const area = attachmentArea(deps);
  const stored = await area.read(attachmentId);
  if (!stored) {
    deps.logger.warn({ attachmentId }, 'pqrs attachment recorded but its file is missing');
    throw new NotFoundError('The attachment is recorded but its file is missing from the file store.');
  }
  return { attachment, size: stored.size, stream: stored.stream };
}

// ───────────── settings

export async function getSettings(deps: Pick<AppDeps, 'db'>) {
  return presentSettings(await readSettings(deps.db));
}

export async function replaceSettings(deps: Pick<AppDeps, 'db'>, input: SettingsInput, actor: Actor) {
  const now = new Date();
  await saveSettings(deps.db, input, actor.id, now);
  return presentSettings({ ...input, updatedAt: now });
}
