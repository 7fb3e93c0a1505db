import type { Readable } from 'node:stream';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { z } from 'zod';
import type { AppDeps } from '../../kernel/context';
import { issuesOf, readCsvRows, reject, rejectedRows } from '../../kernel/csv-import';
import { ConflictError } from '../../kernel/errors';
import { existingTerritoryIds, territoryIdsByCode } from '../territories';
import { GOTV_ROOM, stationRoom } from './gotv.events';
import { publishStations } from './gotv.pushes';
import { insertStationBatch, stationsByCode, updateStationBatch, type RegisteredStation, type StationBatch } from './gotv.stations.repository';

/** Colombia has about 13,000 polling places; a file per department fits well within this. */
export const STATION_IMPORT_MAX_ROWS = 20_000;

export const stationImportColumns = ['code', 'name', 'address', 'territoryId', 'territoryCode', 'lat', 'lng', 'tables', 'registeredVoters', 'previousTurnout'] as const;
/** Up to this many changed stations each gets its `gotv:station` event; more, and their rooms get one `resync`. */
export const EVENTS_UP_TO = 100;
/** What a new station cannot be registered without (an existing one keeps what a row leaves empty). */
const NEW_STATION_NEEDS = ['name', 'lat', 'lng', 'tables', 'registeredVoters'] as const;

/** An empty cell, or a column the file does not have, leaves the field as it is. */
const cell = z
  .string()
  .trim()
  .optional()
  .transform((value) => value || undefined);
const numberCell = (schema: z.ZodNumber) =>
  cell.pipe(
    z
      .string()
      .regex(/^-?\d+(\.\d+)?$/, 'a number, with a dot for decimals')
      .transform(Number)
      .pipe(schema)
      .optional(),
  );
const countCell = numberCell(z.number().int('a whole number').min(0).max(10_000_000));

const row = z.object({
  code: z.string().trim().min(1, 'the station code is required').max(40),
  name: cell.pipe(z.string().max(200).optional()),
  address: cell.pipe(z.string().max(300).optional()),
  territoryId: cell.pipe(z.uuid().optional()),
  territoryCode: cell.pipe(z.string().max(40).optional()),
  lat: numberCell(z.number().min(-90).max(90)),
  lng: numberCell(z.number().min(-180).max(180)),
  tables: numberCell(z.number().int('a whole number').min(1).max(1000)),
  registeredVoters: countCell,
  previousTurnout: countCell,
});
type Row = z.infer<typeof row>;

export const stationImportAnswer = z
  .object({
    created: z.number().int().describe('stations registered by this file'),
    updated: z.number().int().describe('registered stations (by code) whose row changed at least one field'),
    unchanged: z.number().int().describe('rows naming a registered station whose filled fields already hold those values'),
    ...rejectedRows,
  })
  .meta({ id: 'StationImportAnswer' });
export type StationImportAnswer = z.infer<typeof stationImportAnswer>;

/** The rows of one kind (new or existing stations), one array per column as the batch statements bind them. */
function columnsOf(rows: Row[]): StationBatch {
  return {
    codes: rows.map((r) => r.code),
    names: rows.map((r) => r.name ?? null),
    addresses: rows.map((r) => r.address ?? null),
    territoryIds: rows.map((r) => r.territoryId ?? null),
    lats: rows.map((r) => r.lat ?? null),
    lngs: rows.map((r) => r.lng ?? null),
    tables: rows.map((r) => r.tables ?? null),
    registeredVoters: rows.map((r) => r.registeredVoters ?? null),
    previousTurnouts: rows.map((r) => r.previousTurnout ?? null),
  };
}

const STATION_FIELDS = ['name', 'address', 'territoryId', 'lat', 'lng', 'tables', 'registeredVoters', 'previousTurnout'] as const;
/** Whether a row (its territory resolved to an id) sets a field of a registered station to another value. */
const changes = (r: Row, known: RegisteredStation) => STATION_FIELDS.some((field) => r[field] !== undefined && r[field] !== known[field]);

/**
 * Registers and updates polling stations from a CSV whose header names `code` and any of the other
 * `stationImportColumns`: a new code registers a station (it needs name, lat, lng, tables and
 * registeredVoters), a registered code changes the fields its row fills and keeps the rest. So the
 * same route loads a department's stations before the campaign and, later, the previous election's
 * results per station (`code,previousTurnout`) for the projection. Rows with errors are reported by
 * line and skipped; the valid rows are written in one transaction once the whole file has been read.
 */
export async function importStations(deps: AppDeps, csv: Readable): Promise<StationImportAnswer> {
  const answer: StationImportAnswer = { created: 0, updated: 0, unchanged: 0, rejected: [], rejectedCount: 0 };
  const registered = new Map((await stationsByCode(deps.db)).map((station) => [station.code, station]));
  const seen = new Set<string>();
  const rows: { line: number; row: Row; known: RegisteredStation | undefined }[] = [];

  await readCsvRows(csv, { maxRows: STATION_IMPORT_MAX_ROWS, requiredColumns: ['code'] }, (record, line) => {
    const parsed = row.safeParse(record);
    if (!parsed.success) return reject(answer, line, issuesOf(parsed.error));
    const r = parsed.data;
    if (seen.has(r.code)) return reject(answer, line, `code: ${r.code} appears earlier in this file`);
    if (r.territoryId && r.territoryCode) return reject(answer, line, 'territoryCode: fill territoryId or territoryCode, not both');
    seen.add(r.code);
    const known = registered.get(r.code);
    if (!known) {
      const missing = NEW_STATION_NEEDS.filter((field) => r[field] === undefined);
      if (missing.length) return reject(answer, line, `no station has code ${r.code}, and registering it needs ${missing.join(', ')}`);
    }
    // Checked against the registered voters the station will have once the row is applied.
    const registeredVoters = r.registeredVoters ?? known?.registeredVoters ?? 0;
    const previousTurnout = r.previousTurnout ?? known?.previousTurnout ?? null;
    if (previousTurnout !== null && previousTurnout > registeredVoters) {
      return reject(answer, line, `previousTurnout (${previousTurnout}) cannot exceed registeredVoters (${registeredVoters})`);
    }
    rows.push({ line, row: r, known });
  });

  const distinct = (pick: (r: Row) => string | undefined) => [...new Set(rows.flatMap(({ row: r }) => pick(r) ?? []))];
  const territories = await existingTerritoryIds(
    deps.db,
    distinct((r) => r.territoryId),
  );
  const byCode = await territoryIdsByCode(
    deps.db,
    distinct((r) => r.territoryCode),
  );
  /** The row's territory as an id, or why it has none: an id that is not a territory, a code that names none or several. */
  const territoryOf = (r: Row): { id?: string; problem?: string } => {
    if (r.territoryId) return territories.has(r.territoryId) ? { id: r.territoryId } : { problem: `territoryId: no territory has id ${r.territoryId}` };
    if (r.territoryCode === undefined) return {};
    const named = byCode.get(r.territoryCode) ?? [];
    if (named.length === 1) return { id: named[0] };
    return { problem: `territoryCode: ${r.territoryCode} ${named.length ? `names ${named.length} territories (one per type); use territoryId` : 'names no territory'}` };
  };
  const fresh: Row[] = [];
  const changed: Row[] = [];
  for (const { line, row: r, known } of rows) {
    const territory = territoryOf(r);
    if (territory.problem) {
      reject(answer, line, territory.problem);
      continue;
    }
    const resolved = { ...r, territoryId: territory.id };
    if (!known) fresh.push(resolved);
    else if (changes(resolved, known)) changed.push(resolved);
    else answer.unchanged++;
  }
  answer.rejected.sort((a, b) => a.line - b.line);
  if (!fresh.length && !changed.length) return answer;

  const ids = await deps.db
    .transaction(async (tx) => [
      ...(fresh.length ? await insertStationBatch(tx, columnsOf(fresh)) : []),
      ...(changed.length ? await updateStationBatch(tx, columnsOf(changed)) : []),
    ])
    .catch((error: unknown) => {
      if (error instanceof UniqueConstraintViolationException) {
        throw new ConflictError('A station with one of these codes was registered while the file was read; nothing was imported. Send the file again.', 'station_code_taken');
      }
      throw error;
    });
  answer.created = fresh.length;
  answer.updated = changed.length;
  if (ids.length <= EVENTS_UP_TO) await publishStations(deps, ids, true);
  else {
    // One message instead of two events per station: screens and phones reload what they show.
    deps.realtime.publish([GOTV_ROOM, ...ids.map(stationRoom)], 'resync', { rooms: [], reason: 'bulk_change', at: new Date().toISOString() });
  }
  return answer;
}
