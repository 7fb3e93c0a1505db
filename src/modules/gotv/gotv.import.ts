import type { Readable } from 'node:stream';
import { parse } from 'csv-parse';
import type { MikroORM } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { PreparedStatement } from '../../kernel/db';
import { newId } from '../../kernel/ids';
import { normalisePhone } from '../audience';
import { VOTER_PRIORITIES } from './gotv.entities';

export const IMPORT_MAX_ROWS = 100_000;
const BATCH_SIZE = 2000;
const MAX_REPORTED_ERRORS = 1000;

export const importColumns = ['name', 'documentId', 'phone', 'pollingStationCode', 'tableNumber', 'priority'] as const;

const row = z.object({
  name: z.string().trim().min(2).max(160),
  documentId: z
    .string()
    .trim()
    .transform((value) => value.replace(/[.\s-]/g, ''))
    .pipe(z.string().regex(/^\d{5,12}$/, 'a cédula has 5 to 12 digits')),
  phone: z.string().trim().max(30).optional().transform((value) => value || undefined),
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
    rejected: z.array(z.object({ line: z.number().int(), message: z.string() })).describe(`the first ${MAX_REPORTED_ERRORS} rejected rows`),
    rejectedCount: z.number().int(),
    batches: z.number().int(),
  })
  .meta({ id: 'VoterImportAnswer' });
export type ImportAnswer = z.infer<typeof importAnswer>;

/** One statement per batch: atomic, and PostgreSQL expands the arrays itself (no row-by-row ORM inserts). */
const insertBatch = new PreparedStatement<{ document_id: string }>(
  'gotv_voters_import',
  `insert into gotv_voters (id, name, document_id, phone, polling_station_id, table_number, priority, status, created_at, updated_at)
   select id, name, document_id, phone, station_id, table_number, priority, 'pending', now(), now()
   from unnest(?::uuid[], ?::text[], ?::text[], ?::text[], ?::uuid[], ?::int[], ?::text[])
     as t(id, name, document_id, phone, station_id, table_number, priority)
   on conflict (document_id) do nothing
   returning document_id`,
);

interface ValidRow {
  line: number;
  name: string;
  documentId: string;
  phone: string | null;
  stationId: string;
  tableNumber: number | null;
  priority: string;
}

/**
 * Streams a voter CSV (header row with `importColumns`; up to 100k rows): each row is validated,
 * rows with errors are reported by line and skipped, and the valid ones are written a batch of
 * 2,000 at a time, each batch in one statement (all of it or none of it). Documents already
 * registered are skipped and counted, so a re-run of the same file imports nothing twice.
 */
export async function importVoters(orm: MikroORM, csv: Readable): Promise<ImportAnswer> {
  const answer: ImportAnswer = { imported: 0, duplicates: 0, rejected: [], rejectedCount: 0, batches: 0 };
  const reject = (line: number, message: string) => {
    answer.rejectedCount++;
    if (answer.rejected.length < MAX_REPORTED_ERRORS) answer.rejected.push({ line, message });
  };
  const stations = new Map<string, { id: string; tables: number }>();
  for (const station of await orm.em.fork().execute<{ code: string; id: string; tables: number }[]>('select code, id, tables from gotv_polling_stations')) {
    stations.set(station.code, { id: station.id, tables: station.tables });
  }
  const seen = new Set<string>();
  let batch: ValidRow[] = [];
  const flush = async () => {
    if (!batch.length) return;
    const inserted = await insertBatch.run(orm, [
      batch.map(() => newId()),
      batch.map((item) => item.name),
      batch.map((item) => item.documentId),
      batch.map((item) => item.phone),
      batch.map((item) => item.stationId),
      batch.map((item) => item.tableNumber),
      batch.map((item) => item.priority),
    ]);
    answer.imported += inserted.length;
    answer.duplicates += batch.length - inserted.length;
    answer.batches++;
    batch = [];
  };

  const parser = csv.pipe(parse({ columns: true, skip_empty_lines: true, trim: true, bom: true, relax_column_count: true, max_record_size: 10_000 }));
  let line = 1;
  for await (const record of parser as AsyncIterable<Record<string, string>>) {
    line++;
    if (line - 1 > IMPORT_MAX_ROWS) {
      reject(line, `the import takes at most ${IMPORT_MAX_ROWS} rows; the rest was not read`);
      csv.destroy();
      break;
    }
    const parsed = row.safeParse(record);
    if (!parsed.success) {
      reject(line, parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; '));
      continue;
    }
    const station = stations.get(parsed.data.pollingStationCode);
    if (!station) {
      reject(line, `pollingStationCode: no station has code ${parsed.data.pollingStationCode}`);
      continue;
    }
    if (parsed.data.tableNumber && parsed.data.tableNumber > station.tables) {
      reject(line, `tableNumber: the station has ${station.tables} tables`);
      continue;
    }
    const phone = parsed.data.phone ? normalisePhone(parsed.data.phone) : undefined;
    if (parsed.data.phone && !phone) {
      reject(line, 'phone: not a valid phone number');
      continue;
    }
    if (seen.has(parsed.data.documentId)) {
      reject(line, 'documentId: repeated earlier in this file');
      continue;
    }
    seen.add(parsed.data.documentId);
    batch.push({
      line,
      name: parsed.data.name,
      documentId: parsed.data.documentId,
      phone: phone ?? null,
      stationId: station.id,
      tableNumber: parsed.data.tableNumber ?? null,
      priority: parsed.data.priority,
    });
    if (batch.length >= BATCH_SIZE) await flush();
  }
  await flush();
  return answer;
}
