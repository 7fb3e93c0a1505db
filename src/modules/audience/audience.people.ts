import { Readable } from 'node:stream';
import { DriverException, UniqueConstraintViolationException } from '@mikro-orm/core';
import { stringify } from 'csv-stringify';
import { z } from 'zod';
import type { Actor } from '../../kernel/auth/roles';
import type { AppDeps } from '../../kernel/context';
import { AppError, invalidField, NotFoundError } from '../../kernel/errors';
import { sql, type Queries } from '../../kernel/sql';
import { safeCell } from '../../kernel/spreadsheet';
import { userNames } from '../auth';
import { identityKey, normalisePhone } from './audience.contacts';
import { audiencePolicy } from './audience.policy';
import {
  applyCorrection,
  contactWithIdentity,
  mergedInto,
  deleteNote,
  findNote,
  holderOf,
  insertNote,
  lockPersonForCorrection,
  notesOf,
  originRefsOf,
  peoplePage,
  personRow,
  type NoteRecord,
  type OriginJson,
  type OriginNamer,
  type PeopleAfter,
  type PeopleFilter,
  type PeopleOrder,
  type PeopleSearch,
  type PersonRecord,
} from './audience.people.repository';
import type { ConsentState, ListPeopleInput, noteView, personDetailView, personOriginView, personPageView, personView, timelinePageView } from './audience.people.schemas';
import type { CorrectPersonInput } from './audience.correction.schemas';
import { consentsOf, contactExists, insertAudit } from './audience.repository';
import { personTimeline } from './audience.timeline';

type Deps = Pick<AppDeps, 'db' | 'personTimeline'>;

const NO_SUCH_PERSON = 'No contact has this id, or their data was erased.';

// ───────────── what staff typed

/** Only digits and the punctuation people put in phones and cédulas. */
const NUMBER_LIKE = /^[\d\s+().-]+$/;
const wholeAddress = z.email();

/**
 * Reads a search: an email when it has `@`, a phone or cédula when it is only digits and phone
 * punctuation (at least 4 digits), otherwise words of a name (one of 3 characters or more, so the
 * trigram index can find it; shorter words narrow what it finds).
 */
export function parseSearch(raw: string): PeopleSearch {
  const text = raw.trim();
  if (text.includes('@')) {
    const address = text.replace(/\s+/g, '').toLowerCase();
    return { kind: 'email', address, whole: wholeAddress.safeParse(address).success };
  }
  if (NUMBER_LIKE.test(text)) {
    const digits = text.replace(/\D/g, '');
    if (digits.length < 4) throw invalidField('query.q', 'Type at least 4 digits of a phone or cédula.', 'search_too_short');
    return { kind: 'digits', digits, phone: normalisePhone(text) };
  }
  const words = text.split(/\s+/).filter(Boolean);
  // Longest first: it is likely the rarest, and rows walked in order are tested with it first.
  const indexed = words.filter((word) => [...word].length >= 3).sort((a, b) => [...b].length - [...a].length);
  if (!indexed.length) throw invalidField('query.q', 'Type at least 3 letters of a name.', 'search_too_short');
  return { kind: 'name', indexed, short: words.filter((word) => [...word].length < 3) };
}

function filterOf(query: ListPeopleInput): PeopleFilter {
  return {
    search: query.q ? parseSearch(query.q) : undefined,
    territoryId: query.territoryId,
    origin: query.originKind ? { kind: query.originKind, refId: query.originRef } : undefined,
    whatsapp: query.whatsapp,
    email: query.email,
    tag: query.tag,
    createdFrom: query.createdFrom ? new Date(query.createdFrom) : undefined,
    createdTo: query.createdTo ? new Date(query.createdTo) : undefined,
  };
}

const orderOf = (sort: ListPeopleInput['sort']): PeopleOrder => ({ key: sort.endsWith('name') ? 'name' : 'createdAt', descending: sort.startsWith('-') });

// ───────────── cursors

/** A timestamp as PostgreSQL writes it (ISO style, microseconds, offset). */
const TIMESTAMP_TEXT = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{1,6})?[+-]\d{2}(:\d{2}){0,2}$/;
const cursorShape = z.tuple([z.string().max(400), z.uuid()]);

const BAD_CURSOR = 'The cursor is not one this list gave out.';

function decodeCursor(cursor: string, order: PeopleOrder): PeopleAfter {
  try {
    const [key, id] = cursorShape.parse(JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')));
    if (order.key === 'createdAt' && !TIMESTAMP_TEXT.test(key)) throw new Error('not a timestamp');
    return { key, id };
  } catch {
    throw invalidField('query.cursor', BAD_CURSOR);
  }
}

const encodeCursor = (row: PersonRecord): string => Buffer.from(JSON.stringify([row.sortKey, row.id])).toString('base64url');

// ───────────── presenting

function consentState(phoneOrEmail: string | null, optIn: boolean, optedOutAt: Date | null): ConsentState {
  if (optedOutAt) return 'opted_out';
  return phoneOrEmail && optIn ? 'reachable' : 'no_consent';
}

/**
 * What an origin is called, as one expression: each module's fragment for the kinds it owns
 * (`originNames` of the manifests' `personTimeline`), so a page's origins are named in its statement.
 */
function originNamer(deps: Deps): OriginNamer {
  const named = deps.personTimeline.flatMap((section) => Object.entries(section.originNames ?? {}));
  return (kind, refId) =>
    named.length
      ? sql`(case ${sql.join(
          named.map(([owned, name]) => sql`when ${kind} = ${owned} then ${name(refId)}`),
          ' ',
        )} end)`
      : sql`null::text`;
}

function presentOrigin(origin: OriginJson): z.input<typeof personOriginView> {
  return { kind: origin.kind, refId: origin.refId, name: origin.name, firstSeenAt: new Date(origin.firstSeenAt).toISOString() };
}

/** Shown with each row: the first few origins, the rest counted. */
const ORIGINS_IN_ROW = 5;

function presentPerson(row: PersonRecord): z.input<typeof personView> {
  return {
    id: row.id,
    name: row.name,
    phone: row.phone,
    email: row.email,
    documentId: row.documentId,
    territory: row.territoryId ? { id: row.territoryId, name: row.territoryName ?? '' } : null,
    tags: row.tags,
    consent: {
      whatsapp: consentState(row.phone, row.whatsappOptIn, row.whatsappOptedOutAt),
      email: consentState(row.email, row.emailOptIn, row.emailOptedOutAt),
    },
    origins: row.origins.slice(0, ORIGINS_IN_ROW).map(presentOrigin),
    originCount: row.originCount,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

// ───────────── the list

async function page(deps: Deps, filter: PeopleFilter, order: PeopleOrder, after: PeopleAfter | undefined, limit: number): Promise<PersonRecord[]> {
  try {
    return await peoplePage(deps.db, filter, order, { after, limit, originName: originNamer(deps), originsPerRow: ORIGINS_IN_ROW });
  } catch (error) {
    // A cursor edited into a value its column cannot take (a 13th month) is the client's mistake.
    if (after && error instanceof DriverException && /^22/.test(String(error.code))) throw invalidField('query.cursor', BAD_CURSOR);
    throw error;
  }
}

/** A page of the people database: searched, filtered and sorted as asked; erased people never appear. */
export async function listPeople(deps: Deps, query: ListPeopleInput): Promise<z.input<typeof personPageView>> {
  const order = orderOf(query.sort);
  const after = query.cursor ? decodeCursor(query.cursor, order) : undefined;
  const rows = await page(deps, filterOf(query), order, after, query.limit + 1);
  const shown = rows.slice(0, query.limit);
  return { data: shown.map(presentPerson), nextCursor: rows.length > query.limit ? encodeCursor(shown[shown.length - 1]!) : null };
}

const CSV_COLUMNS = ['id', 'name', 'phone', 'email', 'documentId', 'territory', 'tags', 'whatsapp', 'emailConsent', 'origins', 'createdAt', 'updatedAt'];
const CSV_BATCH = 1000;

/**
 * The same selection as CSV (UTF-8 with BOM), a thousand rows at a time, never the whole list in
 * memory: names rather than ids (the territory's, each origin's), every text cell formula-safe.
 */
export function peopleCsv(deps: Deps, query: ListPeopleInput): Readable {
  const filter = filterOf(query);
  const order = orderOf(query.sort);
  async function* rows() {
    yield CSV_COLUMNS;
    let after: PeopleAfter | undefined;
    for (;;) {
      const batch = await page(deps, filter, order, after, CSV_BATCH);
      for (const person of batch.map(presentPerson)) {
        yield [
          person.id,
          person.name,
          person.phone,
          person.email,
          person.documentId,
          person.territory?.name ?? null,
          person.tags.join('; '),
          person.consent.whatsapp,
          person.consent.email,
          person.origins.map((origin) => origin.name ?? origin.kind).join('; '),
          person.createdAt,
          person.updatedAt,
        ].map(safeCell);
      }
      if (batch.length < CSV_BATCH) return;
      const last = batch[batch.length - 1]!;
      after = { key: last.sortKey, id: last.id };
    }
  }
  return Readable.from(rows()).pipe(stringify({ bom: true }));
}

// ───────────── one person

async function presentNotes(q: Queries, notes: readonly NoteRecord[]): Promise<z.input<typeof noteView>[]> {
  const names = await userNames(
    q,
    notes.flatMap((note) => (note.authorId ? [note.authorId] : [])),
  );
  return notes.map((note) => ({
    id: note.id,
    text: note.text,
    author: note.authorId ? { id: note.authorId, name: names.get(note.authorId) ?? '' } : null,
    createdAt: note.createdAt.toISOString(),
  }));
}

async function heldPerson(deps: Deps, id: string) {
  const row = await personRow(deps.db, id, originNamer(deps));
  if (row) return row;
  // A record merged into another: still not found, but the answer says where the person is now.
  const survivor = await mergedInto(deps.db, id);
  if (survivor) throw new AppError(404, 'contact_merged', 'Not found', `This record was merged into contact ${survivor}.`, undefined, { mergedIntoId: survivor });
  throw new NotFoundError(NO_SUCH_PERSON);
}

const NOTES_IN_DETAIL = 100;

/** The person's page: their data, every origin named, each consent with its text, staff notes, and the newest facts from every module. */
export async function personDetail(deps: Deps, actor: Actor, id: string): Promise<z.input<typeof personDetailView>> {
  const row = await heldPerson(deps, id);
  const refs = row.origins.map((origin) => ({ kind: origin.kind, refId: origin.refId }));
  const [consents, notes, timeline] = await Promise.all([
    consentsOf(deps.db, id),
    notesOf(deps.db, id, NOTES_IN_DETAIL),
    personTimeline(deps, { contactId: id, origins: refs }, actor, { limit: 200 }),
  ]);
  return {
    ...presentPerson(row),
    origins: row.origins.map(presentOrigin),
    neighbourhood: row.neighbourhood,
    interests: row.interests,
    whatsappOptedOutAt: row.whatsappOptedOutAt?.toISOString() ?? null,
    emailOptedOutAt: row.emailOptedOutAt?.toISOString() ?? null,
    consents: consents.map((consent) => ({
      id: consent.id,
      action: consent.action,
      source: consent.source,
      sourceRef: consent.sourceRef,
      whatsappOptIn: consent.whatsappOptIn,
      emailOptIn: consent.emailOptIn,
      evidence: consent.evidence,
      at: consent.givenAt.toISOString(),
      text: { id: consent.textId, text: consent.text, privacyPolicyUrl: consent.privacyPolicyUrl },
    })),
    notes: await presentNotes(deps.db, notes),
    timeline,
  };
}

/** Older facts of the person's timeline, from the cursor the previous page gave. */
export async function personTimelinePage(deps: Deps, actor: Actor, id: string, query: { before?: string | undefined; limit: number }): Promise<z.input<typeof timelinePageView>> {
  if (!(await contactExists(deps.db, id))) throw new NotFoundError(NO_SUCH_PERSON);
  const origins = await originRefsOf(deps.db, id);
  return personTimeline(deps, { contactId: id, origins: origins }, actor, query);
}

/** A person's row as the list shows it (after a correction). */
async function presentOne(deps: Deps, id: string): Promise<z.input<typeof personView>> {
  return presentPerson(await heldPerson(deps, id));
}

// ───────────── corrections

const CORRECTABLE = ['name', 'phone', 'email', 'documentId'] as const;
type Correctable = (typeof CORRECTABLE)[number];

/** 409 naming the contact that already holds the phone or email, so the screen can offer to merge the two. */
function heldBy(field: 'phone' | 'email', otherId: string): AppError {
  const what = field === 'phone' ? 'phone' : 'email address';
  return new AppError(
    409,
    field === 'phone' ? 'phone_held' : 'email_held',
    'Conflict',
    `Another person, contact ${otherId}, already has this ${what}: merge the two instead of correcting one into the other.`,
    undefined,
    { contactId: otherId, field },
  );
}

/**
 * Staff correct a person's name, phone, email or cédula, or replace their tags. The identity key
 * follows the phone, else the email (as `identityKey` builds it everywhere), so the person stays
 * one contact; a phone or email another held contact has is a 409 naming that contact. Consent
 * stays as it was: it belongs to the person, not to the address. Audited without values: which
 * fields changed, and how many tags came and went.
 */
export async function correctPerson(deps: Deps, actor: Actor, id: string, body: CorrectPersonInput): Promise<z.input<typeof personView>> {
  let identity: string | undefined;
  try {
    await deps.db.transaction(async (tx) => {
      const current = await lockPersonForCorrection(tx, id);
      if (!current) throw new NotFoundError(NO_SUCH_PERSON);
      const before: Record<Correctable, string | null> = { name: current.name, phone: current.phone, email: current.email, documentId: current.documentId };
      const after: Record<Correctable, string | null> = {
        name: body.name ?? before.name,
        phone: body.phone === undefined ? before.phone : body.phone,
        email: body.email === undefined ? before.email : body.email,
        documentId: body.documentId === undefined ? before.documentId : body.documentId,
      };
      const changed = CORRECTABLE.filter((field) => after[field] !== before[field]);
      const tags = body.tags ? [...new Set(body.tags)] : current.tags;
      const added = tags.filter((tag) => !current.tags.includes(tag)).length;
      const removed = current.tags.filter((tag) => !tags.includes(tag)).length;
      const tagsChanged = added > 0 || removed > 0;
      if (!changed.length && !tagsChanged) return;
      if (!after.phone && !after.email) throw invalidField('body', 'A person keeps a phone or an email: they are how the campaign knows them.', 'identity_required');
      const holder = await holderOf(tx, id, {
        phone: changed.includes('phone') ? (after.phone ?? undefined) : undefined,
        email: changed.includes('email') ? (after.email ?? undefined) : undefined,
      });
      if (holder) throw heldBy(holder.phone ? 'phone' : 'email', holder.id);
      identity = identityKey(after);
      const at = new Date();
      await applyCorrection(tx, id, { name: after.name!, phone: after.phone, email: after.email, documentId: after.documentId, tags, identityKey: identity, updatedAt: at });
      if (changed.length) {
        await insertAudit(tx, { actorId: actor.id, action: 'correction', contactId: id, detail: changed.join(','), counts: { audience: { fields: changed.length } }, at });
      }
      if (tagsChanged) {
        await insertAudit(tx, { actorId: actor.id, action: 'tags', contactId: id, detail: null, counts: { audience: { added, removed, tags: tags.length } }, at });
      }
    });
  } catch (error) {
    // Another contact took the identity between the check and the write.
    if (error instanceof UniqueConstraintViolationException && identity) {
      const other = await contactWithIdentity(deps.db, identity);
      if (other && other !== id) throw heldBy(identity.startsWith('tel:') ? 'phone' : 'email', other);
    }
    throw error;
  }
  return presentOne(deps, id);
}

// ───────────── notes

export async function addNote(deps: Deps, actor: Actor, contactId: string, text: string): Promise<z.input<typeof noteView>> {
  const note = await deps.db.transaction(async (tx) => {
    if (!(await lockPersonForCorrection(tx, contactId))) throw new NotFoundError(NO_SUCH_PERSON);
    return insertNote(tx, { contactId, authorId: actor.id, text });
  });
  const [presented] = await presentNotes(deps.db, [note]);
  return presented!;
}

/** Deletes a note: its author or an admin (403 for anyone else). */
export async function removeNote(deps: Deps, actor: Actor, contactId: string, noteId: string): Promise<void> {
  if (!(await contactExists(deps.db, contactId))) throw new NotFoundError(NO_SUCH_PERSON);
  const note = await findNote(deps.db, contactId, noteId);
  if (!note) throw new NotFoundError('This person has no note with this id.');
  audiencePolicy.authorize(actor, 'deleteNote', { authorId: note.authorId });
  await deleteNote(deps.db, noteId);
}
