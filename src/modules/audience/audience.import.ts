import type { KeyObject } from 'node:crypto';
import type { Readable } from 'node:stream';
import { z } from 'zod';
import type { Actor } from '../../kernel/auth/roles';
import type { AppDeps } from '../../kernel/context';
import { headerKey, MAX_REPORTED_REJECTIONS, readCsvRows, reject, rejectedRows } from '../../kernel/csv-import';
import { AppError, ConflictError } from '../../kernel/errors';
import { newId } from '../../kernel/ids';
import type { Queries } from '../../kernel/sql';
import { existingTerritoryIds, territoryIdsByCode } from '../territories';
import { identityKey, normalisePhone } from './audience.contacts';
import { erasedIdentifiersAmong } from './audience.erased';
import {
  contactsByEmail,
  contactsByIdentity,
  documentOwners,
  insertContacts,
  insertImport,
  insertImportOrigins,
  updateContacts,
  type ImportedContact,
  type KnownContact,
} from './audience.import.repository';
import { CONTACT_IMPORT_MAX_RECORD_BYTES, CONTACT_IMPORT_MAX_ROWS, IMPORT_COLUMNS, PREVIEW_ROWS, type ImportQuery } from './audience.import.schemas';
import { ensureConsentText, insertConsentRecords, type ConsentRecord } from './audience.repository';

export { CONTACT_IMPORT_MAX_ROWS, CONTACT_IMPORT_MAX_RECORD_BYTES, IMPORT_COLUMNS, importQuery, PREVIEW_ROWS, type ImportQuery } from './audience.import.schemas';

type Column = keyof typeof IMPORT_COLUMNS;

const COLUMN_BY_HEADER = new Map<string, Column>(Object.entries(IMPORT_COLUMNS).flatMap(([column, names]) => names.map((name) => [headerKey(name), column as Column])));

/** The file's header as the import's column names, or the file refused: unknown or repeated columns, no name, neither phone nor email. */
function readHeader(given: string[]): string[] {
  const columns = given.map((name) => COLUMN_BY_HEADER.get(headerKey(name)));
  const unknown = given.filter((_, index) => !columns[index]);
  if (unknown.length) {
    const accepted = Object.values(IMPORT_COLUMNS).flat().join(', ');
    throw new AppError(
      400,
      'unknown_columns',
      'Unknown columns',
      `The header names columns this import does not read: ${unknown.join(', ')}. It reads: ${accepted}. Nothing was imported.`,
      undefined,
      {
        unknown,
      },
    );
  }
  const repeated = [...new Set(columns.filter((column, index) => columns.indexOf(column) !== index))];
  if (repeated.length) {
    throw new AppError(
      400,
      'repeated_columns',
      'Repeated columns',
      `The header names ${repeated.join(', ')} more than once (in English and Spanish, say); nothing was imported.`,
      undefined,
      {
        repeated,
      },
    );
  }
  const missing = [...(columns.includes('name') ? [] : ['name']), ...(columns.includes('phone') || columns.includes('email') ? [] : ['phone or email'])];
  if (missing.length) {
    throw new AppError(400, 'missing_columns', 'Missing columns', `The header row has no ${missing.join(' and no ')} column; nothing was imported.`, undefined, { missing });
  }
  return columns as string[];
}

const lineMessages = z.array(z.object({ line: z.number().int(), message: z.string() }));

export const IMPORT_ACTIONS = ['create', 'update', 'unchanged'] as const;

export const importPreviewRow = z.object({
  line: z.number().int(),
  action: z.enum(IMPORT_ACTIONS),
  /** The contact the row updates; null for a new one. */
  contactId: z.uuid().nullable(),
  name: z.string(),
  phone: z.string().nullable(),
  email: z.string().nullable(),
  documentId: z.string().nullable(),
  territoryId: z.uuid().nullable(),
  neighbourhood: z.string().nullable(),
  interests: z.array(z.string()),
  tags: z.array(z.string()),
  /** Whether the row opens the channel now, with a consent record. */
  whatsappConsent: z.boolean(),
  emailConsent: z.boolean(),
});

export const contactImportAnswer = z
  .object({
    dryRun: z.boolean(),
    /** The import's record (consent records' `sourceRef`, origins' `refId`); null in a dry run. */
    importId: z.uuid().nullable(),
    created: z.number().int().describe('contacts the file creates'),
    updated: z.number().int().describe('contacts it matched (by phone, else email) and changes'),
    unchanged: z.number().int().describe('contacts it matched whose fields and consent it leaves as they were'),
    consentsRecorded: z.number().int().describe('consent records written, one per person whose consent opened a channel'),
    consentTextId: z.uuid().nullable(),
    ...rejectedRows,
    warnings: lineMessages.describe(`the first ${MAX_REPORTED_REJECTIONS} rows imported with something left undone (a withdrawn channel not re-opened)`),
    warningCount: z.number().int(),
    /** A dry run's first rows as they would be written; empty otherwise. */
    preview: z.array(importPreviewRow).max(PREVIEW_ROWS),
  })
  .meta({ id: 'ContactImportAnswer' });
export type ContactImportAnswer = z.infer<typeof contactImportAnswer>;

const YES = new Set(['si', 'sí', 's', 'yes', 'y', 'true', '1', 'x']);
const NO = new Set(['no', 'n', 'false', '0', '']);

/** A list cell: `salud; empleo` or `salud, empleo` or `salud|empleo`, lower-cased, each once. */
function listCell(value: string | undefined, column: string, issues: string[]): string[] {
  const items = [
    ...new Set(
      (value ?? '')
        .split(/[;,|]/)
        .map((item) => item.trim().toLowerCase())
        .filter(Boolean),
    ),
  ];
  if (items.some((item) => item.length > 60)) issues.push(`${column}: each item has at most 60 characters`);
  if (items.length > 50) issues.push(`${column}: at most 50 items`);
  return items;
}

/** A row read and checked on its own: its values, or every problem found with it. */
interface ParsedRow {
  line: number;
  issues: string[];
  name: string;
  phone: string | null;
  email: string | null;
  documentId: string | null;
  territoryId: string | null;
  territoryCode: string | null;
  neighbourhood: string | null;
  interests: string[];
  tags: string[];
  whatsappYes: boolean;
  emailYes: boolean;
}

const emailSchema = z.email();

function parseRow(record: Record<string, string>, line: number): ParsedRow {
  const issues: string[] = [];
  const cell = (column: Column) => record[column]?.trim() ?? '';
  const text = (column: Column, max: number) => {
    const value = cell(column);
    if (value.length > max) issues.push(`${column}: at most ${max} characters`);
    return value || null;
  };
  const name = cell('name');
  if (name.length < 2) issues.push('name: required, at least 2 characters');
  if (name.length > 160) issues.push('name: at most 160 characters');
  const rawPhone = cell('phone');
  const phone = rawPhone ? (normalisePhone(rawPhone) ?? null) : null;
  if (rawPhone && !phone) issues.push('phone: not a valid phone number');
  const email = cell('email').toLowerCase() || null;
  if (email && (email.length > 254 || !emailSchema.safeParse(email).success)) issues.push('email: not an email address');
  if (!rawPhone && !email) issues.push('phone or email: give one (a person is found by their phone, else their email)');
  const rawDocument = cell('documentId').replace(/[.\s-]/g, '');
  if (rawDocument && !/^\d{5,12}$/.test(rawDocument)) issues.push('documentId: a cédula has 5 to 12 digits');
  const givenTerritory = cell('territoryId');
  const territoryId = givenTerritory && z.uuid().safeParse(givenTerritory).success ? givenTerritory.toLowerCase() : null;
  if (givenTerritory && !territoryId) issues.push('territoryId: not a territory id');
  const territoryCode = text('territoryCode', 40);
  if (givenTerritory && territoryCode) issues.push('territoryCode: fill territoryId or territoryCode, not both');
  const consent = (column: 'whatsappConsent' | 'emailConsent') => {
    const value = cell(column).toLowerCase();
    if (YES.has(value)) return true;
    if (!NO.has(value)) issues.push(`${column}: write si or no (true/false, 1/0)`);
    return false;
  };
  return {
    line,
    issues,
    name,
    phone,
    email,
    documentId: rawDocument || null,
    territoryId,
    territoryCode,
    neighbourhood: text('neighbourhood', 120),
    interests: listCell(record.interests, 'interests', issues),
    tags: listCell(record.tags, 'tags', issues),
    whatsappYes: consent('whatsappConsent'),
    emailYes: consent('emailConsent'),
  };
}

/** What the import does with a valid row. */
interface Decision {
  line: number;
  action: (typeof IMPORT_ACTIONS)[number];
  contact: ImportedContact;
  /** Channels this row opens now, with a consent record. */
  opens: { whatsapp: boolean; email: boolean };
}

const sameSet = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((item) => b.includes(item));

/**
 * A row against the contact it matched (or none): the values the contact will hold, the channels
 * it opens, and what it could not do. Fields given replace the contact's, empty cells keep them;
 * interests and tags are added to. A consent column saying yes opens the channel when there is an
 * address for it, unless the person withdrew from it (an import does not overrule a withdrawal:
 * a warning says so); saying no closes nothing.
 */
function decide(row: ParsedRow, territoryId: string | null, known: KnownContact | undefined, warn: (message: string) => void): Decision {
  const phone = row.phone ?? known?.phone ?? null;
  const email = row.email ?? known?.email ?? null;
  const channel = (given: boolean, address: string | null, label: string, open: boolean, withdrawnAt: Date | null) => {
    if (!given) return false;
    if (!address) {
      warn(`${label}Consent: yes, but the person has no ${label === 'whatsapp' ? 'phone' : 'email'}; no consent recorded`);
      return false;
    }
    if (withdrawnAt) {
      warn(`${label}Consent: the person withdrew from ${label} on ${withdrawnAt.toISOString().slice(0, 10)}; an import does not re-open it (they must opt in again themselves)`);
      return false;
    }
    return !open;
  };
  const opens = {
    whatsapp: channel(row.whatsappYes, phone, 'whatsapp', Boolean(known?.whatsapp_opt_in), known?.whatsapp_opted_out_at ?? null),
    email: channel(row.emailYes, email, 'email', Boolean(known?.email_opt_in), known?.email_opted_out_at ?? null),
  };
  const contact: ImportedContact = {
    id: known?.id ?? newId(),
    identity_key: known && !(row.phone && !known.phone) ? known.identity_key : identityKey({ phone, email }),
    name: row.name,
    phone,
    email,
    document_id: row.documentId ?? known?.document_id ?? null,
    territory_id: territoryId ?? known?.territory_id ?? null,
    neighbourhood: row.neighbourhood ?? known?.neighbourhood ?? null,
    interests: known ? [...new Set([...known.interests, ...row.interests])] : row.interests,
    tags: known ? [...new Set([...known.tags, ...row.tags])] : row.tags,
    whatsapp_opt_in: Boolean(known?.whatsapp_opt_in) || opens.whatsapp,
    email_opt_in: Boolean(known?.email_opt_in) || opens.email,
  };
  if (!known) return { line: row.line, action: 'create', contact, opens };
  const changed =
    opens.whatsapp ||
    opens.email ||
    (['identity_key', 'name', 'phone', 'email', 'document_id', 'territory_id', 'neighbourhood'] as const).some((field) => contact[field] !== known[field]) ||
    !sameSet(contact.interests, known.interests) ||
    !sameSet(contact.tags, known.tags);
  return { line: row.line, action: changed ? 'update' : 'unchanged', contact, opens };
}

/** The consent proof of a file: its text's id once stored, where and how it was collected. */
interface FileConsent {
  text: string;
  collection: string;
  privacyPolicyUrl: string | null;
}

/**
 * Imports supporters from a CSV (header row with `IMPORT_COLUMNS`, English or Spanish; up to
 * 100k rows, streamed), or with `dryRun` checks it and says what it would do, writing nothing.
 *
 * A row matches a held contact by its identity: the phone (E.164) when it has one, else the email
 * (the email-only contact with it, or the one contact of any identity holding it). A matched
 * person is updated, never duplicated. A row is refused, with every problem it has and its line,
 * when a field is invalid, it names a person whose data was erased (a phone, email or cédula kept
 * as a keyed hash) and matches no held contact, it names the same person as an earlier row, its
 * cédula belongs to another contact (the two may be one person: merge them, or correct the
 * cédula), or the contact it matched has another cédula. The file is refused (nothing read further, nothing written) for a
 * header it cannot read, more than 100k rows, or a consent column saying yes without the file's
 * proof (`consentText` and `consentCollection`).
 *
 * Everything is written in one transaction once the whole file is read: the contacts (matched ones
 * locked while they are compared), an origin `import` for each person of the file, a consent
 * record for each person whose consent opened a channel (source `import`, its ref the import, the
 * exact text, the collection as evidence), and the import's own record.
 */
export async function importContacts(deps: Pick<AppDeps, 'db' | 'logger' | 'secrets'>, actor: Actor, csv: Readable, query: ImportQuery): Promise<ContactImportAnswer> {
  const dryRun = query.dryRun === 'true';
  const proof: FileConsent | null =
    query.consentText && query.consentCollection ? { text: query.consentText, collection: query.consentCollection, privacyPolicyUrl: query.privacyPolicyUrl ?? null } : null;
  const answer: ContactImportAnswer = {
    dryRun,
    importId: null,
    created: 0,
    updated: 0,
    unchanged: 0,
    consentsRecorded: 0,
    consentTextId: null,
    rejected: [],
    rejectedCount: 0,
    warnings: [],
    warningCount: 0,
    preview: [],
  };
  const rows: ParsedRow[] = [];
  let dataRows = 0;
  await readCsvRows(csv, { maxRows: CONTACT_IMPORT_MAX_ROWS, maxRecordSize: CONTACT_IMPORT_MAX_RECORD_BYTES, header: readHeader }, (record, line) => {
    dataRows++;
    const row = parseRow(record, line);
    if (!proof && (row.whatsappYes || row.emailYes)) {
      throw new AppError(
        400,
        'consent_proof_missing',
        'Consent without its proof',
        `Line ${line} says the person agreed to be contacted, but the import names no consent text: send consentText (the exact words they agreed to) and consentCollection (where and how it was collected) with the file. Nothing was imported.`,
        [{ path: 'query.consentText', message: 'required when a consent column says yes' }],
      );
    }
    rows.push(row);
  });

  const write = async (q: Queries) => {
    const decisions = await resolve(q, deps.secrets.erasureKey, rows, answer, !dryRun);
    answer.rejected.sort((a, b) => a.line - b.line);
    answer.warnings.sort((a, b) => a.line - b.line);
    for (const decision of decisions) answer[decision.action === 'create' ? 'created' : decision.action === 'update' ? 'updated' : 'unchanged']++;
    const consenting = decisions.filter((decision) => decision.opens.whatsapp || decision.opens.email);
    answer.consentsRecorded = consenting.length;
    if (dryRun) {
      answer.preview = decisions.slice(0, PREVIEW_ROWS).map(presentPreview);
      return;
    }
    if (!decisions.length) return;
    const at = new Date();
    const importId = newId();
    const textId = proof ? await ensureConsentText(q, proof.text, proof.privacyPolicyUrl) : null;
    const fresh = decisions.filter((decision) => decision.action === 'create').map((decision) => decision.contact);
    const written = await insertContacts(q, fresh, at);
    if (written.length < fresh.length) {
      throw new ConflictError('A person in the file was added by someone else while it was read; nothing was imported. Send the file again.', 'contact_created_meanwhile');
    }
    await updateContacts(
      q,
      decisions.filter((decision) => decision.action === 'update').map((decision) => decision.contact),
      at,
    );
    await insertImportOrigins(
      q,
      decisions.map((decision) => decision.contact.id),
      importId,
      at,
    );
    const records: ConsentRecord[] = consenting.map((decision) => ({
      contactId: decision.contact.id,
      textId: textId!,
      action: 'given',
      source: 'import',
      sourceRef: importId,
      whatsappOptIn: decision.opens.whatsapp,
      emailOptIn: decision.opens.email,
      ipHash: null,
      userAgent: null,
      evidence: proof!.collection,
      at,
    }));
    for (let from = 0; from < records.length; from += 1000) await insertConsentRecords(q, records.slice(from, from + 1000));
    await insertImport(q, {
      id: importId,
      importedBy: actor.id,
      importedAt: at,
      rows: dataRows,
      created: answer.created,
      updated: answer.updated,
      unchanged: answer.unchanged,
      rejected: answer.rejectedCount,
      warnings: answer.warningCount,
      consentTextId: textId,
      consentCollection: proof?.collection ?? null,
      consentsRecorded: answer.consentsRecorded,
    });
    answer.importId = importId;
    answer.consentTextId = textId;
  };
  // A dry run reads without locking; an import reads and writes in one transaction.
  if (dryRun) await write(deps.db);
  else await deps.db.transaction(write);
  deps.logger.info(
    { actorId: actor.id, importId: answer.importId, dryRun, created: answer.created, updated: answer.updated, unchanged: answer.unchanged, rejected: answer.rejectedCount },
    'contacts imported',
  );
  return answer;
}

function presentPreview(decision: Decision): ContactImportAnswer['preview'][number] {
  const { contact } = decision;
  return {
    line: decision.line,
    action: decision.action,
    contactId: decision.action === 'create' ? null : contact.id,
    name: contact.name,
    phone: contact.phone,
    email: contact.email,
    documentId: contact.document_id,
    territoryId: contact.territory_id,
    neighbourhood: contact.neighbourhood,
    interests: contact.interests,
    tags: contact.tags,
    whatsappConsent: decision.opens.whatsapp,
    emailConsent: decision.opens.email,
  };
}

const ERASED_PERSON = 'this person asked for their data to be erased (Ley 1581 de 2012, art. 8): a list does not add them again; they come back by signing up themselves';

/**
 * The rows against the database: territories resolved, each row matched to a held contact (or
 * none), cédulas checked against their owners, repeats within the file found. Every problem of a
 * row is reported together, on its line; the valid rows come back decided, in line order.
 */
async function resolve(q: Queries, erasureKey: KeyObject, rows: ParsedRow[], answer: ContactImportAnswer, lock: boolean): Promise<Decision[]> {
  const distinct = (values: (string | null)[]) => [...new Set(values.filter((value): value is string => value !== null))];
  const territories = await existingTerritoryIds(q, distinct(rows.map((row) => row.territoryId)));
  const byCode = await territoryIdsByCode(q, distinct(rows.map((row) => row.territoryCode)));
  const keys = distinct(rows.flatMap((row) => [row.phone ? identityKey({ phone: row.phone }) : null, row.email ? identityKey({ email: row.email }) : null]));
  const known = new Map((await contactsByIdentity(q, keys, lock)).map((contact) => [contact.identity_key, contact]));
  const byEmail = new Map<string, KnownContact[]>();
  for (const contact of await contactsByEmail(q, distinct(rows.filter((row) => !row.phone).map((row) => row.email)), lock)) {
    byEmail.set(contact.email!, [...(byEmail.get(contact.email!) ?? []), contact]);
  }
  const owners = await documentOwners(q, distinct(rows.map((row) => row.documentId)));
  const erased = await erasedIdentifiersAmong(q, erasureKey, {
    phones: distinct(rows.map((row) => row.phone)),
    emails: distinct(rows.map((row) => row.email)),
    documentIds: distinct(rows.map((row) => row.documentId)),
  });

  const people = new Map<string, number>();
  const cedulas = new Map<string, { line: number; person: string }>();
  const decisions: Decision[] = [];
  for (const row of rows) {
    const issues = [...row.issues];
    let territoryId: string | null = null;
    if (row.territoryId) {
      if (territories.has(row.territoryId)) territoryId = row.territoryId;
      else issues.push(`territoryId: no territory has id ${row.territoryId}`);
    } else if (row.territoryCode) {
      const named = byCode.get(row.territoryCode) ?? [];
      if (named.length === 1) territoryId = named[0]!;
      else issues.push(`territoryCode: ${row.territoryCode} ${named.length ? `names ${named.length} territories (one per type); use territoryId` : 'names no territory'}`);
    }
    // The contact this row is: by phone; else by email, the contact whose identity it is (who has no phone yet),
    // or, for a row without a phone, the one contact holding that email.
    const emailOnly = row.email ? known.get(identityKey({ email: row.email })) : undefined;
    let match = row.phone ? known.get(identityKey({ phone: row.phone })) : undefined;
    if (!match && emailOnly && !emailOnly.phone) match = emailOnly;
    if (!match && !row.phone && row.email) {
      const holders = byEmail.get(row.email) ?? [];
      if (holders.length === 1) match = holders[0];
      if (holders.length > 1) issues.push(`email: ${holders.length} contacts have this email; add the phone to say which one this is`);
    }
    // A person who asked to be erased is not brought back by a list; one who came back on their own is held, and matched.
    if (!match && [erased.phones.has(row.phone ?? ''), erased.emails.has(row.email ?? ''), erased.documentIds.has(row.documentId ?? '')].some(Boolean)) {
      issues.push(ERASED_PERSON);
    }
    const person = match?.id ?? (row.phone ? `tel:${row.phone}` : row.email ? `mail:${row.email}` : null);
    if (person !== null && row.issues.every((issue) => !issue.startsWith('phone'))) {
      const earlier = people.get(person);
      if (earlier !== undefined) issues.push(`the same person as line ${earlier} (by phone or email)`);
      else people.set(person, row.line);
    }
    if (row.documentId) {
      const others = (owners.get(row.documentId) ?? []).filter((id) => id !== match?.id);
      if (others.length) {
        issues.push(
          `documentId: this cédula belongs to another contact (${others.join(', ')}); the two may be one person: merge them (POST /api/audience/contacts/{id}/merge) or correct the cédula`,
        );
      } else if (match?.document_id && match.document_id !== row.documentId) {
        issues.push('documentId: the contact matched by phone or email has another cédula; an import does not change a cédula');
      }
      const earlier = cedulas.get(row.documentId);
      if (earlier && earlier.person !== person) issues.push(`documentId: the same cédula as line ${earlier.line}, for another person`);
      else if (!earlier && person) cedulas.set(row.documentId, { line: row.line, person });
    }
    if (issues.length) {
      reject(answer, row.line, issues.join('; '));
      continue;
    }
    decisions.push(
      decide(row, territoryId, match, (message) => {
        answer.warningCount++;
        if (answer.warnings.length < MAX_REPORTED_REJECTIONS) answer.warnings.push({ line: row.line, message });
      }),
    );
  }
  return decisions;
}
