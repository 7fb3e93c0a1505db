import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { z } from 'zod';
import type { AppDeps } from '../../kernel/context';
import { headerReader, issuesOf, readCsvRows, reject, rejectedRows } from '../../kernel/csv-import';
import { AppError, ConflictError } from '../../kernel/errors';
import { existingTerritoryIds, placeFinder, placeKey, territoryIdsByCode } from '../territories';
import { GOTV_ROOM, stationRoom } from './gotv.events';
import { publishStations } from './gotv.pushes';
import { insertStationBatch, stationsByCode, updateStationBatch, type RegisteredStation, type StationBatch } from './gotv.stations.repository';

/** Colombia has about 13,000 polling places; a file per department fits well within this. */
export const STATION_IMPORT_MAX_ROWS = 20_000;

export const stationImportColumns = ['code', 'name', 'address', 'territoryId', 'territoryCode', 'lat', 'lng', 'tables', 'registeredVoters', 'previousTurnout'] as const;

/**
 * Each column under the names the files use, matched without case, accents, spaces or underscores:
 * the API's own and the Registraduría's (a puestos file's `PUESTO`, `DIRECCIÓN`, `LATITUD`,
 * `LONGITUD`; a census file's `total` registered voters and `mesas`). Other columns are ignored.
 */
export const STATION_IMPORT_COLUMNS = {
  code: ['code', 'codigo', 'codigoPuesto', 'codPuesto'],
  name: ['name', 'puesto', 'nombrePuesto'],
  address: ['address', 'direccion'],
  territoryId: ['territoryId'],
  territoryCode: ['territoryCode'],
  lat: ['lat', 'latitud', 'latitude'],
  lng: ['lng', 'lon', 'longitud', 'longitude'],
  tables: ['tables', 'mesas'],
  registeredVoters: ['registeredVoters', 'total', 'potencialElectoral'],
  previousTurnout: ['previousTurnout'],
  departamento: ['departamento'],
  municipio: ['municipio'],
  comuna: ['comuna'],
} as const satisfies Record<(typeof stationImportColumns)[number] | 'departamento' | 'municipio' | 'comuna', readonly string[]>;
const readHeader = headerReader(STATION_IMPORT_COLUMNS);

/** The header as the rows are keyed, or the file refused: it needs `code`, or a puesto's departamento, municipio and name. */
function stationHeader(given: string[]): string[] {
  const columns = readHeader(given);
  if (columns.includes('code') || ['departamento', 'municipio', 'name'].every((column) => columns.includes(column))) return columns;
  const missing = ['code', 'or departamento, municipio and puesto'];
  throw new AppError(400, 'missing_columns', 'Missing columns', `The header row has no ${missing.join(' ')} column; nothing was imported.`, undefined, { missing });
}

/**
 * The code of a Registraduría puesto, which its files do not carry: `RNEC-` and 16 hex digits of
 * the SHA-256 of its departamento, municipio and name (as `placeKey` reads them), so every file
 * that names the puesto alike gives it the same code. A name the file repeats within one municipio
 * (Bogotá has a few) also takes its comuna and address.
 */
export function puestoCode(departamento: string, municipio: string, puesto: string, tell?: { comuna?: string | undefined; address?: string | undefined }): string {
  const parts = [departamento, municipio, puesto, ...(tell ? [tell.comuna ?? '', tell.address ?? ''] : [])].map(placeKey);
  return `RNEC-${createHash('sha256').update(parts.join('|')).digest('hex').slice(0, 16)}`;
}

/** Colombia's extent, with a margin: where a repaired coordinate must land. */
const COLOMBIA = { lat: [-4.5, 13.6], lng: [-82, -66.8] } as const;

/**
 * A coordinate the Registraduría's files print with thousands separators instead of its decimal
 * point (`10,965,899` for 10.965899): the one placement of the point that lands inside Colombia,
 * else the cell as it was (and the row is refused).
 */
function repairedCoordinate(cell: string | undefined, axis: 'lat' | 'lng'): string | undefined {
  if (!cell || !/^-?\d{1,3}(,\d{3})+$/.test(cell.trim())) return cell;
  const digits = cell.trim().replace(/,/g, '');
  const sign = digits.startsWith('-') ? '-' : '';
  const bare = sign ? digits.slice(1) : digits;
  const [low, high] = COLOMBIA[axis];
  const fits = [1, 2].map((whole) => `${sign}${bare.slice(0, whole)}.${bare.slice(whole)}`).filter((value) => Number(value) >= low && Number(value) <= high);
  return fits.length === 1 ? fits[0] : cell;
}
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
  departamento: cell.pipe(z.string().max(160).optional()),
  municipio: cell.pipe(z.string().max(160).optional()),
  comuna: cell.pipe(z.string().max(160).optional()),
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
    dryRun: z.boolean().describe('true: nothing was written; the counts say what the file would do'),
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
 * With `dryRun` the answer counts what the file would create and update, and nothing is written.
 */
export async function importStations(deps: AppDeps, csv: Readable, dryRun = false): Promise<StationImportAnswer> {
  const answer: StationImportAnswer = { dryRun, created: 0, updated: 0, unchanged: 0, rejected: [], rejectedCount: 0 };
  const registered = new Map((await stationsByCode(deps.db)).map((station) => [station.code, station]));
  const read: { line: number; record: Record<string, string> }[] = [];
  await readCsvRows(csv, { maxRows: STATION_IMPORT_MAX_ROWS, header: stationHeader, delimiters: [',', ';'] }, (record, line) => void read.push({ line, record }));

  // A puesto without a code gets its derived one; names a file repeats in a municipio take more to tell them apart.
  const puesto = (record: Record<string, string>) =>
    !record.code?.trim() && record.departamento?.trim() && record.municipio?.trim() && record.name?.trim()
      ? [record.departamento, record.municipio, record.name].map(placeKey).join('|')
      : undefined;
  const named = new Map<string, number>();
  for (const { record } of read) {
    const key = puesto(record);
    if (key) named.set(key, (named.get(key) ?? 0) + 1);
  }
  const place = await placeFinder(deps.db);
  const seen = new Set<string>();
  const rows: { line: number; row: Row; known: RegisteredStation | undefined }[] = [];
  for (const { line, record } of read) {
    const key = puesto(record);
    const fromRegistrar = Boolean(record.departamento?.trim() && record.municipio?.trim());
    const given = fromRegistrar ? { ...record, lat: repairedCoordinate(record.lat, 'lat'), lng: repairedCoordinate(record.lng, 'lng') } : record;
    const withCode = key
      ? { ...given, code: puestoCode(record.departamento!, record.municipio!, record.name!, named.get(key)! > 1 ? { comuna: record.comuna, address: record.address } : undefined) }
      : given;
    const parsed = row.safeParse(withCode);
    if (!parsed.success) {
      reject(answer, line, issuesOf(parsed.error));
      continue;
    }
    const r = parsed.data;
    if (seen.has(r.code)) {
      reject(answer, line, `code: ${r.code} appears earlier in this file`);
      continue;
    }
    if (r.territoryId && r.territoryCode) {
      reject(answer, line, 'territoryCode: fill territoryId or territoryCode, not both');
      continue;
    }
    seen.add(r.code);
    const known = registered.get(r.code);
    if (!known) {
      // A puesto's file may not say how many mesas and voters it has: the census file, imported after, does.
      if (fromRegistrar) {
        r.tables ??= 1;
        r.registeredVoters ??= 0;
      }
      const missing = NEW_STATION_NEEDS.filter((field) => r[field] === undefined);
      if (missing.length) {
        reject(answer, line, `no station has code ${r.code}, and registering it needs ${missing.join(', ')}`);
        continue;
      }
    }
    if (fromRegistrar && !r.territoryId && !r.territoryCode) r.territoryId = place(r.departamento!, r.municipio!, r.comuna);
    // Checked against the registered voters the station will have once the row is applied.
    const registeredVoters = r.registeredVoters ?? known?.registeredVoters ?? 0;
    const previousTurnout = r.previousTurnout ?? known?.previousTurnout ?? null;
    if (previousTurnout !== null && previousTurnout > registeredVoters) {
      reject(answer, line, `previousTurnout (${previousTurnout}) cannot exceed registeredVoters (${registeredVoters})`);
      continue;
    }
    rows.push({ line, row: r, known });
  }

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
  if (dryRun) return { ...answer, created: fresh.length, updated: changed.length };
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
