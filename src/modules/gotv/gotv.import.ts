import type { Readable } from 'node:stream';
import { z } from 'zod';
import type { AppDeps } from '../../kernel/context';
import { issuesOf, readCsvRows, reject, rejectedRows } from '../../kernel/csv-import';
import { erasedIdentifiersAmong, normalisePhone } from '../audience';
import { VOTER_PRIORITIES } from './gotv.entities';
import { insertVoterBatch, type VoterBatch } from './gotv.repository';
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
  priority: z
    .string()
    .trim()
    .optional()
    .transform((value) => value || 'normal')
    .pipe(z.enum(VOTER_PRIORITIES)),
});

export const importAnswer = z
  .object({
    imported: z.number().int(),
    duplicates: z.number().int().describe('rows whose document number was already registered (skipped)'),
    ...rejectedRows,
    batches: z.number().int(),
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
  readonly priorities: string[] = [];

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
 * Documents already registered are skipped and counted, so a re-run of the same file imports
 * nothing twice.
 */
const ERASED_PERSON =
  'documentId: this person asked for their data to be erased (Ley 1581 de 2012, art. 8); a list does not add them again. If they ask to be a voter again, add them one by one.';

export async function importVoters(deps: Pick<AppDeps, 'db' | 'secrets'>, csv: Readable): Promise<ImportAnswer> {
  const answer: ImportAnswer = { imported: 0, duplicates: 0, rejected: [], rejectedCount: 0, batches: 0 };
  const stations = new Map<string, { id: string; tables: number }>();
  for (const station of await stationsByCode(deps.db)) {
    stations.set(station.code, { id: station.id, tables: station.tables });
  }
  const seen = new Set<string>();
  let valid = new Columns();

  await readCsvRows(csv, { maxRows: IMPORT_MAX_ROWS }, (record, line) => {
    const parsed = row.safeParse(record);
    if (!parsed.success) return reject(answer, line, issuesOf(parsed.error));
    const station = stations.get(parsed.data.pollingStationCode);
    if (!station) return reject(answer, line, `pollingStationCode: no station has code ${parsed.data.pollingStationCode}`);
    if (parsed.data.tableNumber && parsed.data.tableNumber > station.tables) return reject(answer, line, `tableNumber: the station has ${station.tables} tables`);
    const phone = parsed.data.phone ? normalisePhone(parsed.data.phone) : undefined;
    if (parsed.data.phone && !phone) return reject(answer, line, 'phone: not a valid phone number');
    if (seen.has(parsed.data.documentId)) return reject(answer, line, 'documentId: repeated earlier in this file');
    seen.add(parsed.data.documentId);
    valid.lines.push(line);
    valid.names.push(parsed.data.name);
    valid.documentIds.push(parsed.data.documentId);
    valid.phones.push(phone ?? null);
    valid.stationIds.push(station.id);
    valid.tableNumbers.push(parsed.data.tableNumber ?? null);
    valid.priorities.push(parsed.data.priority);
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
    const inserted = await insertVoterBatch(deps.db, valid.slice(from, from + BATCH_SIZE));
    const size = Math.min(BATCH_SIZE, valid.length - from);
    answer.imported += inserted.length;
    answer.duplicates += size - inserted.length;
    answer.batches++;
  }
  return answer;
}
