import type { KeyObject } from 'node:crypto';
import type { InferKyselyDB } from '@mikro-orm/sql';
import type { PersonalDataSection, PersonKeys } from '../../kernel/module';
import { hashIdentifier, type IdentifierKind } from '../../kernel/privacy';
import { sql, tables, type Queries } from '../../kernel/sql';
import { normalisePhone } from './audience.phone';
import type { ErasedIdentifierSchema } from './audience.entities';

type ErasedTables = InferKyselyDB<typeof ErasedIdentifierSchema>;
const db = tables<ErasedTables>();

/** Each identifier in the form every module stores it, once; empty and malformed values dropped. */
function normalised(keys: Partial<PersonKeys>): PersonKeys {
  const distinct = (values: readonly (string | undefined)[]) => [...new Set(values.filter((value): value is string => Boolean(value)))];
  return {
    documentIds: distinct((keys.documentIds ?? []).map((value) => value.replace(/[.\s-]/g, '').toUpperCase())),
    phones: distinct((keys.phones ?? []).map((value) => normalisePhone(value) ?? value.replace(/[^\d+]/g, ''))),
    emails: distinct((keys.emails ?? []).map((value) => value.trim().toLowerCase())),
    userIds: distinct(keys.userIds ?? []),
  };
}

/** Everything the modules know identifies the person (their contact's own fields and what linked rows add), each in its stored form. */
export async function gatherPersonKeys(q: Queries, sections: readonly PersonalDataSection[], contactId: string): Promise<PersonKeys> {
  const found: { [K in keyof PersonKeys]: string[] } = { documentIds: [], phones: [], emails: [], userIds: [] };
  // One after the other: `q` is the caller's transaction, a single connection.
  for (const section of sections) {
    if (!section.keys) continue;
    const keys = await section.keys(q, contactId);
    for (const kind of Object.keys(found) as (keyof PersonKeys)[]) found[kind].push(...(keys[kind] ?? []));
  }
  return normalised(found);
}

const KINDS: readonly [IdentifierKind, 'documentIds' | 'phones' | 'emails'][] = [
  ['document', 'documentIds'],
  ['phone', 'phones'],
  ['email', 'emails'],
];

/** Keeps the erased person's cédulas, phones and emails as keyed hashes (`erased_identifiers`); how many were new. */
export async function recordErasedIdentifiers(q: Queries, key: KeyObject, keys: PersonKeys, at: Date): Promise<number> {
  const rows = KINDS.flatMap(([kind, field]) => keys[field].map((value) => ({ hash: hashIdentifier(key, kind, value), kind, erased_at: at })));
  if (!rows.length) return 0;
  const result = await q.write(
    db
      .insertInto('erased_identifiers')
      .values(rows)
      .onConflict((conflict) => conflict.column('hash').doNothing()),
  );
  return result.count;
}

/** Identifiers to check, each in its stored form (cédula digits, E.164 phone, lower-cased email). */
export interface IdentifierCandidates {
  documentIds?: readonly string[];
  phones?: readonly string[];
  emails?: readonly string[];
}

export interface ErasedMatches {
  documentIds: Set<string>;
  phones: Set<string>;
  emails: Set<string>;
}

/** HMAC-SHA256's inner and outer padded keys (RFC 2104) for a key of at most one block, once per key. */
const padsByKey = new WeakMap<KeyObject, { inner: Buffer; outer: Buffer }>();
function hmacPads(key: KeyObject): { inner: Buffer; outer: Buffer } {
  let pads = padsByKey.get(key);
  if (!pads) {
    const block = Buffer.alloc(64);
    key.export().copy(block);
    pads = { inner: Buffer.from(block.map((byte) => byte ^ 0x36)), outer: Buffer.from(block.map((byte) => byte ^ 0x5c)) };
    padsByKey.set(key, pads);
  }
  return pads;
}

/**
 * Which of these identifiers belonged to a person whose data was erased: a list being imported
 * (GOTV voters, supporters) must not bring them back. Costs one small read while nobody has been
 * erased; otherwise one statement in which PostgreSQL computes `hashIdentifier` of each value
 * (HMAC-SHA256 from its built-in sha256 and the key's padded halves, far cheaper than a Node HMAC
 * per row) and joins them with the erased hashes.
 */
export async function erasedIdentifiersAmong(q: Queries, key: KeyObject, candidates: IdentifierCandidates): Promise<ErasedMatches> {
  const matches: ErasedMatches = { documentIds: new Set(), phones: new Set(), emails: new Set() };
  const total = KINDS.reduce((sum, [, field]) => sum + (candidates[field]?.length ?? 0), 0);
  if (!total || !(await q.first(db.selectFrom('erased_identifiers').select('hash').limit(1)))) return matches;
  const { inner, outer } = hmacPads(key);
  const list = (field: keyof IdentifierCandidates) => [...new Set(candidates[field] ?? [])];
  const found = await q.rows(sql<{ kind: IdentifierKind; value: string }>`
    with x(kind, value) as (
      select 'document', v from unnest(${list('documentIds')}::text[]) v
      union all select 'phone', v from unnest(${list('phones')}::text[]) v
      union all select 'email', v from unnest(${list('emails')}::text[]) v
    )
    select x.kind, x.value from x join erased_identifiers h
      on h.hash = encode(sha256(${outer}::bytea || sha256(${inner}::bytea || convert_to(x.kind || ':' || x.value, 'UTF8'))), 'hex')`);
  const field = Object.fromEntries(KINDS) as Record<IdentifierKind, keyof ErasedMatches>;
  for (const row of found) matches[field[row.kind]].add(row.value);
  return matches;
}
