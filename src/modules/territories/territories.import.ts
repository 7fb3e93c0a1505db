import type { Readable } from 'node:stream';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { z } from 'zod';
import type { AppDeps } from '../../kernel/context';
import { headerReader, issuesOf, readCsvRows, reject, rejectedRows } from '../../kernel/csv-import';
import { ConflictError } from '../../kernel/errors';
import { newId } from '../../kernel/ids';
import type { Queries } from '../../kernel/sql';
import type { TerritoryType } from './territories.entities';
import { TERRITORIES_ROOM } from './territories.events';
import { communeCell, placeKey, placeName } from './territories.places';
import { administrativePlaces, insertPlaces, renamePlaces, type Place } from './territories.repository';

/** Colombia's puestos file has 12,922 rows; a file of divisions has far fewer. */
export const TERRITORY_IMPORT_MAX_ROWS = 50_000;
/** Up to this many new territories each gets its `territories:created` event; more, and the room gets one `resync`. */
const EVENTS_UP_TO = 100;

type Column = 'departamento' | 'municipio' | 'codigoDepartamento' | 'codigoMunicipio' | 'comuna';

/**
 * The columns the import reads, each under the names the files use (matched without case, accents,
 * spaces or underscores). Other columns (a puestos file's PUESTO, DIRECCIÓN, LATITUD…) are ignored.
 */
export const TERRITORY_IMPORT_COLUMNS: Record<Column, readonly string[]> = {
  departamento: ['departamento', 'department', 'nombreDepartamento', 'depto', 'dpto'],
  municipio: ['municipio', 'municipality', 'nombreMunicipio', 'mpio'],
  codigoDepartamento: ['codigoDepartamento', 'codDepartamento', 'codDepto', 'codDpto', 'departmentCode', 'dd'],
  codigoMunicipio: ['codigoMunicipio', 'codMunicipio', 'codMpio', 'municipalityCode', 'mm'],
  comuna: ['comuna', 'commune', 'localidad'],
};

export const territoryImportAnswer = z
  .object({
    dryRun: z.boolean(),
    created: z.number().int().describe('territories the file adds (departments, municipalities, comunas)'),
    updated: z.number().int().describe('territories it matched and gave a code or a name'),
    unchanged: z.number().int().describe('territories it matched as they were'),
    ...rejectedRows,
  })
  .meta({ id: 'TerritoryImportAnswer' });
export type TerritoryImportAnswer = z.infer<typeof territoryImportAnswer>;

const name = (label: string) => z.string().trim().min(1, `${label} is required`).max(160);
const code = (pattern: RegExp, message: string) =>
  z
    .string()
    .trim()
    .optional()
    .transform((value) => value || undefined)
    .pipe(z.string().regex(pattern, message).optional());

const row = z.object({
  departamento: name('departamento'),
  municipio: name('municipio'),
  codigoDepartamento: code(/^\d{1,2}$/, 'a departamento code has 1 or 2 digits'),
  codigoMunicipio: code(/^\d{3}(\d{2})?$/, 'a municipio code has 3 digits (5 with the departamento’s)'),
  comuna: z.string().trim().max(160).optional(),
});

type Outcome = 'created' | 'updated' | 'unchanged';

/**
 * The hierarchy as held, with what the file does to it: places are matched by their level and
 * code, else by their name (as `placeKey` reads it) under the same parent, and each is counted once.
 */
class Hierarchy {
  private readonly byCode = new Map<string, Place>();
  private readonly byName = new Map<string, Place>();
  readonly outcome = new Map<string, Outcome>();
  readonly fresh: Place[] = [];
  readonly changed = new Map<string, Place>();

  constructor(places: readonly Place[]) {
    for (const place of places) this.index(place);
  }

  private index(place: Place): void {
    if (place.code !== null) this.byCode.set(`${place.type}:${place.code}`, place);
    this.byName.set(`${place.type}|${place.parentId ?? ''}|${placeKey(place.name)}`, place);
  }

  /** The place a row names at one level, made or changed as the row says; or why the row cannot say it. */
  resolve(type: TerritoryType, parentId: string | null, given: string, code: string | null): Place | string {
    const label = `${type} ${given}`;
    const shown = placeName(given);
    const byCode = code === null ? undefined : this.byCode.get(`${type}:${code}`);
    if (byCode && byCode.parentId !== parentId) return `${label}: code ${code} is ${byCode.name}'s, elsewhere in the hierarchy`;
    const found = byCode ?? this.byName.get(`${type}|${parentId ?? ''}|${placeKey(given)}`);
    if (!found) {
      const place: Place = { id: newId(), type, name: shown, code, parentId };
      this.fresh.push(place);
      this.outcome.set(place.id, 'created');
      this.index(place);
      return place;
    }
    const touched = this.outcome.get(found.id);
    const renames = placeKey(found.name) !== placeKey(given);
    const recodes = code !== null && found.code !== code;
    if (!renames && !recodes) {
      if (!touched) this.outcome.set(found.id, 'unchanged');
      return found;
    }
    // A place this file already made or changed keeps what its first line said.
    if (touched === 'created' || touched === 'updated') {
      return renames ? `${label}: code ${code} names ${found.name} on an earlier line` : `${label}: named with code ${found.code ?? 'none'} on an earlier line`;
    }
    if (recodes && this.byCode.has(`${type}:${code}`)) return `${label}: code ${code} is another ${type}'s`;
    if (renames) found.name = shown;
    if (recodes) found.code = code;
    this.index(found);
    this.outcome.set(found.id, 'updated');
    this.changed.set(found.id, found);
    return found;
  }

  count(outcome: Outcome): number {
    let n = 0;
    for (const value of this.outcome.values()) if (value === outcome) n++;
    return n;
  }
}

/** The municipio's code as the hierarchy keeps it: five digits, the departamento's two first. */
function municipalityCodeOf(r: z.infer<typeof row>, departmentCode: string | null): string | null | { problem: string } {
  const given = r.codigoMunicipio;
  if (!given) return null;
  if (given.length === 5) {
    if (departmentCode && !given.startsWith(departmentCode)) return { problem: `codigoMunicipio: ${given} does not begin with the departamento's code ${departmentCode}` };
    return given;
  }
  if (!departmentCode) return { problem: 'codigoMunicipio: a 3-digit municipio code needs the departamento’s code' };
  return `${departmentCode}${given}`;
}

/**
 * Builds departamento → municipio → comuna from a CSV of the country's divisions (DIVIPOLE
 * columns, codes when present) or of the Registraduría's puestos (one row per puesto, `,` or `;`
 * separated): every row's places are matched with the held ones or made. Rows with errors are
 * reported by line, each with all its errors; the rest are written in one transaction once the
 * whole file is read. `dryRun` answers the same and writes nothing.
 */
export async function importTerritories(deps: Pick<AppDeps, 'db' | 'realtime'>, csv: Readable, dryRun: boolean): Promise<TerritoryImportAnswer> {
  const answer: TerritoryImportAnswer = { dryRun, created: 0, updated: 0, unchanged: 0, rejected: [], rejectedCount: 0 };
  const hierarchy = new Hierarchy(await administrativePlaces(deps.db));

  await readCsvRows(
    csv,
    {
      maxRows: TERRITORY_IMPORT_MAX_ROWS,
      requiredColumns: ['departamento', 'municipio'],
      header: headerReader(TERRITORY_IMPORT_COLUMNS),
      delimiters: [',', ';'],
    },
    (record, line) => {
      const parsed = row.safeParse(record);
      if (!parsed.success) return reject(answer, line, issuesOf(parsed.error));
      const r = parsed.data;
      const departmentCode = r.codigoDepartamento ? r.codigoDepartamento.padStart(2, '0') : null;
      const municipalityCode = municipalityCodeOf(r, departmentCode);
      if (municipalityCode !== null && typeof municipalityCode === 'object') return reject(answer, line, municipalityCode.problem);
      const commune = communeCell(r.comuna ?? '');
      const department = hierarchy.resolve('department', null, r.departamento, departmentCode);
      if (typeof department === 'string') return reject(answer, line, department);
      const municipality = hierarchy.resolve('municipality', department.id, r.municipio, municipalityCode);
      if (typeof municipality === 'string') return reject(answer, line, municipality);
      if (!commune) return;
      const communeCode = commune.number !== null && municipality.code !== null ? `${municipality.code}-${commune.number}` : null;
      const place = hierarchy.resolve('commune', municipality.id, commune.name, communeCode);
      if (typeof place === 'string') return reject(answer, line, place);
    },
  );
  answer.created = hierarchy.count('created');
  answer.updated = hierarchy.count('updated');
  answer.unchanged = hierarchy.count('unchanged');
  if (dryRun || (!hierarchy.fresh.length && !hierarchy.changed.size)) return answer;

  await deps.db
    .transaction(async (tx: Queries) => {
      await insertPlaces(tx, hierarchy.fresh, new Date());
      await renamePlaces(tx, [...hierarchy.changed.values()]);
    })
    .catch((error: unknown) => {
      if (error instanceof UniqueConstraintViolationException) {
        throw new ConflictError('A code in the file was given to another territory while it was read; nothing was imported. Send the file again.', 'territory_code_taken');
      }
      throw error;
    });
  if (hierarchy.fresh.length <= EVENTS_UP_TO) {
    for (const place of hierarchy.fresh)
      deps.realtime.publish(TERRITORIES_ROOM, 'territories:created', { id: place.id, name: place.name, type: place.type, parentId: place.parentId });
  } else {
    deps.realtime.publish(TERRITORIES_ROOM, 'resync', { rooms: [TERRITORIES_ROOM], reason: 'bulk_change', at: new Date().toISOString() });
  }
  return answer;
}

/**
 * Finds the territory a puesto lies in by the names its row gives: the comuna under the municipio
 * under the departamento when the hierarchy holds it, else the municipio; undefined when the
 * hierarchy holds neither (import the territories first). Matched as the territory import matches.
 */
export async function placeFinder(q: Queries): Promise<(departamento: string, municipio: string, comuna: string | undefined) => string | undefined> {
  const byName = new Map<string, string>();
  for (const place of await administrativePlaces(q)) byName.set(`${place.parentId ?? ''}|${place.type}|${placeKey(place.name)}`, place.id);
  return (departamento, municipio, comuna) => {
    const department = byName.get(`|department|${placeKey(departamento)}`);
    const municipality = department && byName.get(`${department}|municipality|${placeKey(municipio)}`);
    if (!municipality) return undefined;
    const commune = comuna ? communeCell(comuna) : undefined;
    return (commune && byName.get(`${municipality}|commune|${placeKey(commune.name)}`)) ?? municipality;
  };
}
