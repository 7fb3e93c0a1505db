import type { Readable } from 'node:stream';
import { z } from 'zod';
import type { AppDeps } from '../../kernel/context';
import { issuesOf, readCsvRows, reject, rejectedRows } from '../../kernel/csv-import';
import { erasedIdentifiersAmong, normalisePhone } from '../audience';
import { VOTER_PRIORITIES } from './gotv.entities';
import { countVoterBatch, upsertVoterBatch, type VoterBatch } from './gotv.repository';
import { stationsByCode } from './gotv.stations.repository';

export const IMPORT_MAX_ROWS = 100_000;
const BATCH_SIZE = 2000;

export const importColumns = ['name', 'documentId', 'phone', 'pollingStationCode', 'tableNumber', 'priority'] as const;

const row = z.object({
  // Stored as given (a name may begin with = + - @); PostgreSQL text cannot hold a NUL character.
  name: z
    .string()
    .trim()
    .min(2)
    .max(160)
    .refine((value) => !value.includes('\u0000'), 'contains a NUL character'),
  documentId: z
    .string()
    .trim()
    .transform((value) => value.replace(/[.\s-]/g, ''))
    .pipe(z.string().regex(/^\d{5,12}$/, 'a cédula has 5 to 12 digits')),
  phone: z
    .string()
    .trim()
    .max(30)
    .optional()
    .transform((value) => value || undefined),
  pollingStationCode: z.string().trim().min(1).max(40),
  tableNumber: z
    .string()
    .trim()
    .optional()
    .transform((value) => (value ? Number(value) : undefined))
    .pipe(z.number().int().min(1).max(1000).optional()),
  // Empty: `normal` for a new voter, kept for a registered one.
  priority: z
    .string()
    .trim()
    .optional()
    .transform((value) => value || undefined)
    .pipe(z.enum(VOTER_PRIORITIES).optional()),
});

export const importAnswer = z
  .object({
    dryRun: z.boolean().describe('true: nothing was written; the counts say what the file would do'),
    created: z.number().int().describe('voters the file registers'),
    updated: z.number().int().describe('registered voters (by document number) whose row changed their name, phone, station, table or priority'),
    unchanged: z.number().int().describe('rows of registered voters that already hold those values'),
    ...rejectedRows,
    batches: z.number().int().describe('batches written (on a dry run, the batches the file would take)'),
  })
  .meta({ id: 'VoterImportAnswer' });
export type ImportAnswer = z.infer<typeof importAnswer>;

/** The valid rows read so far, one array per column (the shape a batch insert binds). */
class Columns implements VoterBatch {
  readonly lines: number[] = [];
  readonly names: string[] = [];
  readonly documentIds: string[] = [];
  readonly phones: (string | null)[] = [];
  readonly stationIds: string[] = [];
  readonly tableNumbers: (number | null)[] = [];
  readonly priorities: (string | null)[] = [];

  get length(): number {
    return this.names.length;
  }

  /**
   * Leaves out the rows whose cédula belongs to a person who asked for their data to be erased
   * (each reported on its line) and drops a phone that was such a person's.
   */
  withoutErased(erased: { documentIds: ReadonlySet<string>; phones: ReadonlySet<string> }, answer: ImportAnswer): Columns {
    const kept = new Columns();
    for (let index = 0; index < this.length; index++) {
      if (erased.documentIds.has(this.documentIds[index]!)) {
        reject(answer, this.lines[index]!, ERASED_PERSON);
        continue;
      }
      const phone = this.phones[index]!;
      kept.lines.push(this.lines[index]!);
      kept.names.push(this.names[index]!);
      kept.documentIds.push(this.documentIds[index]!);
      kept.phones.push(phone !== null && erased.phones.has(phone) ? null : phone);
      kept.stationIds.push(this.stationIds[index]!);
      kept.tableNumbers.push(this.tableNumbers[index]!);
      kept.priorities.push(this.priorities[index]!);
    }
    return kept;
  }

  slice(from: number, to: number): VoterBatch {
    return {
      names: this.names.slice(from, to),
      documentIds: this.documentIds.slice(from, to),
      phones: this.phones.slice(from, to),
      stationIds: this.stationIds.slice(from, to),
      tableNumbers: this.tableNumbers.slice(from, to),
      priorities: this.priorities.slice(from, to),
    };
  }
}

/**
 * Imports a voter CSV (header row with `importColumns`; up to 100k data rows), in two steps.
 * Reading: the body is parsed as it streams in and each row validated; rows with errors are
 * reported by line and skipped, valid rows are kept (a compact column store, at most 100k rows).
 * A problem with the file itself — more than 100k data rows (413 `too_many_rows`) or CSV that
 * cannot be parsed (400 `malformed_csv`) — refuses the whole file before anything is written.
 * Writing: a row naming a person whose data was erased is refused (by its cédula; their phone is
 * dropped from a row of another cédula), then the valid rows go in 2,000 at a time, each batch in
 * one statement (all of it or none of it; the earlier batches stay if a later one fails).
 * A registered document number updates that voter: the name and station the row gives, and the
 * phone, table and priority it fills (an empty cell keeps them; a move to another station without a
 * table clears the table); a re-run of the same file changes nothing and says so (`unchanged`).
 * With `dryRun` everything is read and checked the same way and the answer counts what the file
 * would create, update and leave unchanged, but nothing is written.
 */
const ERASED_PERSON =
  'documentId: this person asked for their data to be erased (Ley 1581 de 2012, art. 8); a list does not add them again. If they ask to be a voter again, add them one by one.';

export async function importVoters(deps: Pick<AppDeps, 'db' | 'secrets'>, csv: Readable, dryRun = false): Promise<ImportAnswer> {
  const answer: ImportAnswer = { dryRun, created: 0, updated: 0, unchanged: 0, rejected: [], rejectedCount: 0, batches: 0 };
  const stations = new Map<string, { id: string; tables: number }>();
  for (const station of await stationsByCode(deps.db)) {
    stations.set(station.code, { id: station.id, tables: station.tables });
  }
  const seen = new Set<string>();
  let valid = new Columns();

  await readCsvRows(csv, { maxRows: IMPORT_MAX_ROWS }, (record, line) => {
    // Every problem of the row, not only the first: the fields' own, then what they say together.
    const parsed = row.safeParse(record);
    const problems = parsed.success ? [] : [issuesOf(parsed.error)];
    const issueAt = (field: string) => !parsed.success && parsed.error.issues.some((issue) => issue.path[0] === field);
    const code = record.pollingStationCode?.trim();
    const station = code ? stations.get(code) : undefined;
    if (code && !issueAt('pollingStationCode') && !station) problems.push(`pollingStationCode: no station has code ${code}`);
    const table = parsed.success ? parsed.data.tableNumber : undefined;
    if (station && table && table > station.tables) problems.push(`tableNumber: the station has ${station.tables} tables`);
    const given = parsed.success ? parsed.data.phone : undefined;
    const phone = given ? normalisePhone(given) : undefined;
    if (given && !phone) problems.push('phone: not a valid phone number');
    const documentId = parsed.success ? parsed.data.documentId : undefined;
    if (documentId && seen.has(documentId)) problems.push('documentId: repeated earlier in this file');
    if (problems.length || !parsed.success || !station) return reject(answer, line, problems.join('; '));
    seen.add(parsed.data.documentId);
    valid.lines.push(line);
    valid.names.push(parsed.data.name);
    valid.documentIds.push(parsed.data.documentId);
    valid.phones.push(phone ?? null);
    valid.stationIds.push(station.id);
    valid.tableNumbers.push(parsed.data.tableNumber ?? null);
    valid.priorities.push(parsed.data.priority ?? null);
  });

  const erased = await erasedIdentifiersAmong(deps.db, deps.secrets.erasureKey, {
    documentIds: valid.documentIds,
    phones: valid.phones.filter((phone): phone is string => phone !== null),
  });
  if (erased.documentIds.size || erased.phones.size) {
    valid = valid.withoutErased(erased, answer);
    answer.rejected.sort((a, b) => a.line - b.line);
  }
  for (let from = 0; from < valid.length; from += BATCH_SIZE) {
    // A dry run counts with the same rules the write applies, and writes nothing.
    const written = await (dryRun ? countVoterBatch : upsertVoterBatch)(deps.db, valid.slice(from, from + BATCH_SIZE));
    const size = Math.min(BATCH_SIZE, valid.length - from);
    answer.created += written.created;
    answer.updated += written.updated;
    answer.unchanged += size - written.created - written.updated;
    answer.batches++;
  }
  return answer;
}
