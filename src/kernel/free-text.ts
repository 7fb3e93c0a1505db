/*
 * What an erasure does to free text that other people wrote (a staff note on another contact, an
 * incident's description, another citizen's petition): the person's identifiers are cut out where
 * they are written in any common way, and their full name, which can be another person's too, is
 * only reported for staff to read.
 */
import type { FreeTextColumn, PersonKeys } from './module';
import { sql, type Queries } from './sql';

/** What replaces a phone, email or cédula of the erased person inside someone else's text. */
export const IDENTIFIER_REDACTED = '(dato suprimido)';

/** Colombia's country code: a phone stored as `+57…` is written in text without it (`315 888 4422`). */
const HOME_COUNTRY_CODE = '57';

/** Digit strings shorter than this are not searched: too many other numbers contain them. */
const MIN_DIGITS = 6;

/** The digit strings a person's phones and cédulas are written with: a phone with and without its country code. */
function digitKeys(keys: PersonKeys): string[] {
  const found = new Set<string>();
  for (const phone of keys.phones) {
    const digits = phone.replace(/\D/g, '');
    found.add(digits);
    if (phone.startsWith(`+${HOME_COUNTRY_CODE}`)) found.add(digits.slice(HOME_COUNTRY_CODE.length));
  }
  for (const documentId of keys.documentIds) found.add(documentId.replace(/\D/g, ''));
  return [...found].filter((digits) => digits.length >= MIN_DIGITS);
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Patterns for the person's identifiers as people type them: digits with spaces, dots, dashes or
 * brackets between them (`315 888-4422`, `52.987.123`, `+57 (315) 8884422`), never inside a longer
 * number; emails in any case.
 */
export function identifierPatterns(keys: PersonKeys): RegExp[] {
  const digits = digitKeys(keys)
    // Longest first, so that `57 315 888 4422` goes whole rather than leaving `57` behind.
    .sort((a, b) => b.length - a.length)
    .map((key) => new RegExp(`(?<!\\d)(?:\\+\\s?)?${[...key].join('[\\s.\\-()]{0,2}')}(?!\\d)`, 'g'));
  const emails = keys.emails.map((email) => new RegExp(escapeRegExp(email), 'gi'));
  return [...digits, ...emails];
}

/** The text with every identifier the patterns find replaced. */
export function redactIdentifiers(text: string, patterns: readonly RegExp[]): string {
  return patterns.reduce((current, pattern) => current.replace(pattern, IDENTIFIER_REDACTED), text);
}

/** Lower case, without accents, single spaces: how a name is compared (`Quiñones` is `quinones`). */
export function comparableName(text: string): string {
  return text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase().replace(/\s+/g, ' ').trim();
}

/** A full name worth searching for: two words or more (a first name alone is everyone's). */
export function searchableName(name: string | null | undefined): string | null {
  const comparable = comparableName(name ?? '');
  return comparable.split(' ').length >= 2 ? comparable : null;
}

/** A row of someone else's text that names the person: for staff to read and decide. */
export interface FreeTextMention {
  module: string;
  kind: string;
  id: string;
  /** The record whose screen shows the text (the contact a note is on, the request a history note is in); null when the row has none. */
  recordId: string | null;
}

export interface FreeTextOutcome {
  /** Rows whose text lost an identifier, by kind (`staffNotesRedacted`: apart from what the module's own erasure counts). */
  redacted: Record<string, number>;
  mentions: FreeTextMention[];
}

/** Each plain letter of a comparable name as a class of its accented forms, both cases (the database's locale may not fold `Ñ`). */
const ACCENT_CLASSES: Record<string, string> = {
  a: '[aáàäâAÁÀÄÂ]',
  e: '[eéèëêEÉÈËÊ]',
  i: '[iíìïîIÍÌÏÎ]',
  o: '[oóòöôOÓÒÖÔ]',
  u: '[uúùüûUÚÙÜÛ]',
  n: '[nñNÑ]',
  c: '[cçCÇ]',
};

/**
 * One PostgreSQL regular expression (for `~*`) that every row holding one of the identifiers or the
 * name matches, and few others: the patterns, looser (no boundaries), in one pass over each text
 * rather than normalising every text first (the erasure reads whole tables of notes).
 */
export function candidatePattern(keys: PersonKeys, name: string | null): string | null {
  const alternatives = [
    ...digitKeys(keys).map((key) => [...key].join('[[:space:].()-]{0,2}')),
    ...keys.emails.map(escapeRegExp),
    ...(name ? [[...name].map((letter) => (letter === ' ' ? '[[:space:]]+' : (ACCENT_CLASSES[letter] ?? escapeRegExp(letter)))).join('')] : []),
  ];
  return alternatives.length ? alternatives.join('|') : null;
}

/** A `varchar(n)` column's n, or null for `text`. */
async function lengthLimit(q: Queries, table: string, column: string): Promise<number | null> {
  const row = await q.first(sql<{ limit: number | null }>`
    select character_maximum_length as limit from information_schema.columns
    where table_schema = current_schema() and table_name = ${table} and column_name = ${column}`);
  return row?.limit ?? null;
}

/** A column's values as read for clearing: one text, or a list's texts. */
interface FreeTextRow {
  id: string;
  record: string | null;
  /** A list's elements other than texts (a number in a template's values) are kept as they are. */
  value: string | unknown[] | null;
}

/**
 * Cuts the person's identifiers out of one module's free-text columns and finds the rows that still
 * name them in full. Candidates are narrowed in SQL (`candidatePattern`); the patterns then decide,
 * so a row is written only when an identifier is really there. A row is reported once, under its
 * first column that names the person (a petition's description and its answer are one mention).
 */
export async function clearFreeText(q: Queries, module: string, columns: readonly FreeTextColumn[], keys: PersonKeys, name: string | null): Promise<FreeTextOutcome> {
  const outcome: FreeTextOutcome = { redacted: {}, mentions: [] };
  const candidates = candidatePattern(keys, name);
  if (!candidates) return outcome;
  const patterns = identifierPatterns(keys);
  const mentioned = new Set<string>();
  for (const { table, column, kind, record, list = false, where } of columns) {
    const value = sql.raw(column);
    const rows = await q.rows<FreeTextRow>(sql`
      select id::text as id, ${sql.raw(record ?? 'id')}::text as record, ${value} as value
      from ${sql.raw(table)} where ${value}::text ~* ${candidates}${where ? sql` and (${sql.raw(where)})` : sql``}`);
    // The marker can be longer than what it replaces: a text at its column's limit is cut to fit.
    const limit = rows.length && !list ? await lengthLimit(q, table, column) : null;
    const clear = (text: string) => {
      const redacted = redactIdentifiers(text, patterns);
      return limit !== null && redacted.length > limit ? [...redacted].slice(0, limit).join('') : redacted;
    };
    const changed: { id: string; value: string }[] = [];
    for (const row of rows) {
      const values = Array.isArray(row.value) ? row.value : row.value === null ? [] : [row.value];
      const cleared = values.map((value) => (typeof value === 'string' ? clear(value) : value));
      if (cleared.some((value, index) => value !== values[index])) changed.push({ id: row.id, value: list ? JSON.stringify(cleared) : String(cleared[0]) });
      const key = `${table} ${row.id}`;
      if (name && !mentioned.has(key) && cleared.some((value) => typeof value === 'string' && comparableName(value).includes(name))) {
        mentioned.add(key);
        outcome.mentions.push({ module, kind, id: row.id, recordId: row.record });
      }
    }
    if (changed.length) {
      const newValue = list ? sql`v.value::jsonb` : sql`v.value`;
      await q.write(sql`
        update ${sql.raw(table)} set ${value} = ${newValue}
        from unnest(${changed.map((row) => row.id)}::text[], ${changed.map((row) => row.value)}::text[]) as v(id, value)
        where ${sql.raw(table)}.id::text = v.id`);
      outcome.redacted[`${kind}Redacted`] = changed.length;
    }
  }
  return outcome;
}
