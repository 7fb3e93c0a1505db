import { Readable } from 'node:stream';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { stringify } from 'csv-stringify';
import type { Actor } from '../../kernel/auth/roles';
import type { AppDeps } from '../../kernel/context';
import { ConflictError, NotFoundError, invalidField } from '../../kernel/errors';
import { newId } from '../../kernel/ids';
import { safeCell } from '../../kernel/spreadsheet';
import type { Queries } from '../../kernel/sql';
import { contactExists, normalisePhone } from '../audience';
import { coveredVoterFilter, gotvPolicy } from './gotv.policy';
import { presentVoter } from './gotv.presenter';
import type { CreateVoterInput, ListVotersInput, UpdateVoterInput } from './gotv.schemas';
import { projectionChanged, publishStations } from './gotv.pushes';
import { scopeOf } from './gotv.scope';
import * as repository from './gotv.voters.repository';
import type { VoterRecord } from './gotv.voters.repository';
import { mapPage } from '../../kernel/pagination';

/**
 * The checks a voter's fields need beyond their shape, for a new voter and a correction alike:
 * the station exists and has the table, the contact exists, the phone is a phone. Only the fields
 * given are checked, against what a corrected voter already has (`current`): a new table at their
 * station, their table at a new station.
 */
async function checkedVoterFields(
  db: Queries,
  input: { pollingStationId?: string | undefined; tableNumber?: number | null | undefined; contactId?: string | null | undefined; phone?: string | null | undefined },
  current?: { stationId: string; tableNumber: number | null },
): Promise<{ phone?: string | null }> {
  if (input.pollingStationId || input.tableNumber) {
    const station = await repository.stationTables(db, input.pollingStationId ?? current!.stationId);
    if (!station) throw invalidField('body.pollingStationId', 'No polling station has this id.');
    const table = input.tableNumber === undefined ? current?.tableNumber : input.tableNumber;
    if (table && table > station.tables) {
      const path = input.tableNumber ? 'body.tableNumber' : 'body.pollingStationId';
      throw invalidField(path, `The station has ${station.tables} tables${input.tableNumber ? '' : `; the voter is at table ${table}: send the new table too`}.`);
    }
  }
  if (input.contactId && !(await contactExists(db, input.contactId))) {
    throw invalidField('body.contactId', 'No contact has this id.');
  }
  if (input.phone === undefined) return {};
  if (input.phone === null || input.phone === '') return { phone: null };
  const phone = normalisePhone(input.phone);
  if (!phone) throw invalidField('body.phone', 'not a valid phone number');
  return { phone };
}

/** A document number already registered is a 409. */
function documentTaken(error: unknown): never {
  if (error instanceof UniqueConstraintViolationException) {
    throw new ConflictError('A voter with this document number is already registered.', 'voter_document_taken');
  }
  throw error;
}

export async function createVoter(db: Queries, input: CreateVoterInput) {
  const { phone } = await checkedVoterFields(db, input);
  const voter = await repository
    .insertVoter(db, {
      id: newId(),
      name: input.name,
      documentId: input.documentId,
      phone: phone ?? null,
      pollingStationId: input.pollingStationId,
      tableNumber: input.tableNumber ?? null,
      contactId: input.contactId ?? null,
      priority: input.priority,
    })
    .catch(documentTaken);
  return presentVoter(voter);
}

/**
 * A manager's correction (an imported list with the wrong station or a mistyped phone). Moving a
 * voter to another station moves them in both stations' figures (the tallies follow), and both
 * stations' rooms are told; whether they voted, and their reports, stay as they are.
 */
export async function updateVoter(deps: AppDeps, id: string, input: UpdateVoterInput) {
  const voter = await getVoter(deps.db, id);
  const previousStation = voter.pollingStationId;
  const { phone } = await checkedVoterFields(deps.db, input, { stationId: previousStation, tableNumber: voter.tableNumber });
  const { phone: _typed, ...fields } = input;
  const given: Partial<repository.VoterFields> = { ...fields, ...(phone !== undefined ? { phone } : {}) };
  // As the unit of work did: a correction that changes nothing writes nothing.
  const changes = Object.fromEntries(Object.entries(given).filter(([field, value]) => value !== undefined && value !== voter[field as keyof typeof given]));
  const saved = Object.keys(changes).length ? await repository.saveVoter(deps.db, id, changes).catch(documentTaken) : voter;
  if (!saved) throw new NotFoundError('No voter has this id.');
  if (saved.pollingStationId !== previousStation) {
    await publishStations(deps, [previousStation, saved.pollingStationId], false);
    projectionChanged(deps)();
  }
  return presentVoter(saved);
}

/**
 * Removes a confirmed voter: one registered by mistake, or a citizen who asked to be removed
 * (habeas data). Their contact log (its notes may hold personal data) goes with them; their
 * turnout reports stay as facts of the day without the person (station and time only), so the
 * hourly curve does not change, while the station's confirmed figures drop them.
 */
export async function deleteVoter(deps: AppDeps, id: string): Promise<void> {
  const stationId = await repository.deleteVoterRow(deps.db, id);
  if (!stationId) throw new NotFoundError('No voter has this id.');
  await publishStations(deps, [stationId], false);
  projectionChanged(deps)();
}

export async function getVoter(q: Queries, id: string): Promise<VoterRecord> {
  const voter = await repository.findVoter(q, id);
  if (!voter) throw new NotFoundError('No voter has this id.');
  return voter;
}

/**
 * `status=pending` is the call list brigades work from; a brigade member sees only the voters of
 * their stations and brigades, and `claim=free` hides the ones a colleague is calling right now.
 * `territoryId` includes the stations of the territories inside it, as the live map does.
 */
export async function listVoters(deps: AppDeps, actor: Actor, query: ListVotersInput) {
  const scope = await scopeOf(deps, actor);
  const { cursor, limit, pollingStationId, territoryId, brigadeId, status, priority, claim, q } = query;
  const filter = { covered: coveredVoterFilter(scope), stationId: pollingStationId, territoryId, brigadeId, status, priority, claim, userId: actor.id, search: q };
  const page = await repository.voterPage(deps.db, filter, { cursor, limit });
  return mapPage(page, presentVoter);
}

/** The people a reader needs in a voters file: names where they read, the ids last (for joining with other files). */
const VOTER_CSV_COLUMNS = [
  'name',
  'documentId',
  'phone',
  'stationCode',
  'station',
  'territory',
  'tableNumber',
  'brigade',
  'priority',
  'status',
  'votedAt',
  'createdAt',
  'id',
  'pollingStationId',
  'brigadeId',
  'contactId',
];
const VOTER_CSV_BATCH = 1000;

/**
 * The filtered list as CSV, streamed a thousand voters at a time in the list's order (never the
 * whole list in memory): a manager's file of personal data, so only those who manage voters may
 * take it. Cells are formula-safe.
 */
export function votersCsv(deps: AppDeps, actor: Actor, query: ListVotersInput): Readable {
  gotvPolicy.authorize(actor, 'manageVoters');
  async function* rows() {
    yield VOTER_CSV_COLUMNS;
    let cursor: string | undefined;
    do {
      const page = await listVoters(deps, actor, { ...query, cursor, limit: VOTER_CSV_BATCH });
      const names = await repository.voterPlaceNames(
        deps.db,
        page.data.map((voter) => voter.pollingStationId),
        page.data.flatMap((voter) => (voter.brigadeId ? [voter.brigadeId] : [])),
      );
      for (const voter of page.data) {
        const station = names.stations.get(voter.pollingStationId);
        yield [
          voter.name,
          voter.documentId,
          voter.phone,
          station?.code ?? '',
          station?.name ?? '',
          station?.territory ?? null,
          voter.tableNumber ?? null,
          voter.brigadeId ? (names.brigades.get(voter.brigadeId) ?? '') : null,
          voter.priority,
          voter.status,
          voter.votedAt ?? null,
          voter.createdAt,
          voter.id,
          voter.pollingStationId,
          voter.brigadeId ?? null,
          voter.contactId ?? null,
        ].map(safeCell);
      }
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
  }
  return Readable.from(rows()).pipe(stringify({ bom: true }));
}

/** One voter; a brigade member may read only voters their brigade covers. */
export async function getVoterFor(deps: AppDeps, actor: Actor, id: string) {
  const voter = await getVoter(deps.db, id);
  const scope = await scopeOf(deps, actor);
  gotvPolicy.authorize(actor, 'chase', { scope, voter: { stationId: voter.pollingStationId, brigadeId: voter.brigadeId } });
  return presentVoter(voter);
}
