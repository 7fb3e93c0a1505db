import { allowedRoles } from '../helpers/policy';
import { type Actor } from '../../src/kernel/auth/roles';
import { sql } from '../../src/kernel/sql';
import { brigadeCoversVoterSql, coversVoter, gotvPolicy, EVERYTHING } from '../../src/modules/gotv/gotv.policy';
import { scopeOf } from '../../src/modules/gotv/gotv.scope';
import { startTestApp, type TestApp } from '../helpers/app';
import { createUser, registerAdmin, type TestUser } from '../helpers/users';

const actor = (role: Actor['role'], id = 'u1'): Actor => ({ id, role });
const allowed = (action: Parameters<typeof gotvPolicy.roles>[0]) => allowedRoles(gotvPolicy, action);

describe('gotvPolicy', () => {
  it('lets managers set up the day, viewers watch and brigade members report and chase', () => {
    expect(allowed('manageStations')).toEqual(['admin', 'manager']);
    expect(allowed('readStations')).toEqual(['admin', 'manager', 'brigade', 'viewer']);
    expect(allowed('readVoters')).toEqual(['admin', 'manager', 'brigade']);
    expect(allowed('watch')).toEqual(['admin', 'manager', 'viewer']);
    expect(allowed('reportAt')).toEqual(['admin', 'manager', 'brigade']);
    expect(allowed('overrideClaims')).toEqual(['admin', 'manager']);
  });

  it('keeps a brigade member to their brigades, stations and voters', () => {
    const scope = { all: false, stations: new Set(['s1']), brigades: new Set(['b1']) };
    const member = actor('brigade');
    expect(gotvPolicy.allows(member, 'reportAt', { scope, stationId: 's1' })).toBe(true);
    expect(gotvPolicy.allows(member, 'reportAt', { scope, stationId: 's2' })).toBe(false);
    expect(gotvPolicy.allows(member, 'chase', { scope, voter: { stationId: 's2', brigadeId: 'b1' } })).toBe(true);
    expect(gotvPolicy.allows(member, 'chase', { scope, voter: { stationId: 's2', brigadeId: null } })).toBe(false);
    expect(gotvPolicy.allows(member, 'readBrigade', { memberIds: ['u1'] })).toBe(true);
    expect(() => gotvPolicy.authorize(member, 'readBrigade', { memberIds: ['u2'] })).toThrow('You are not a member of this brigade.');
    expect(gotvPolicy.allows(actor('viewer'), 'chase', { scope: EVERYTHING, voter: { stationId: 's2', brigadeId: null } })).toBe(false);
    expect(gotvPolicy.allows(actor('manager'), 'chase', { scope: EVERYTHING, voter: { stationId: 's2', brigadeId: null } })).toBe(true);
  });
});

describe('the brigade rule in TypeScript and in SQL', () => {
  let app: TestApp;
  let manager: TestUser;
  const members: TestUser[] = [];
  const voters: { id: string; stationId: string; brigadeId: string | null }[] = [];

  beforeAll(async () => {
    app = await startTestApp();
    const admin = await registerAdmin(app);
    manager = await createUser(app, admin, 'manager');
    for (let i = 0; i < 4; i++) members.push(await createUser(app, admin, 'brigade'));
    const stations: string[] = [];
    for (let i = 0; i < 4; i++) {
      const body = { code: `P${i}`, name: `Puesto ${i}`, lat: 4.6, lng: -74.1, tables: 3, registeredVoters: 500 };
      stations.push((await app.http.post('/api/gotv/polling-stations').set(manager.auth).send(body).expect(201)).body.id);
    }
    // Brigades with overlapping members and stations, one with no station, one member in none.
    const layout = [
      { memberIds: [members[0]!.id], stationIds: [stations[0]!] },
      { memberIds: [members[0]!.id, members[1]!.id], stationIds: [stations[1]!, stations[2]!] },
      { memberIds: [members[2]!.id], stationIds: [] },
    ];
    const brigades: string[] = [];
    for (const [index, brigade] of layout.entries()) {
      brigades.push(
        (
          await app.http
            .post('/api/gotv/brigades')
            .set(manager.auth)
            .send({ name: `Brigada ${index}`, ...brigade })
            .expect(201)
        ).body.id,
      );
    }
    // Every station × (no brigade, each brigade).
    let document = 70_000_000;
    for (const stationId of stations) {
      for (const brigadeId of [null, ...brigades]) {
        const created = await app.http
          .post('/api/gotv/voters')
          .set(manager.auth)
          .send({ name: 'Votante de prueba', documentId: String(document++), pollingStationId: stationId })
          .expect(201);
        if (brigadeId)
          await app.http
            .post(`/api/gotv/brigades/${brigadeId}/voters`)
            .set(manager.auth)
            .send({ voterIds: [created.body.id] })
            .expect(200);
        voters.push({ id: created.body.id, stationId, brigadeId });
      }
    }
  });
  afterAll(() => app.close());

  it('agrees voter by voter for every brigade member, and the voter list shows the same voters', async () => {
    let covered = 0;
    for (const member of members) {
      const scope = await scopeOf(app.runtime.deps, { id: member.id, role: 'brigade' });
      const inSql = await app.runtime.deps.db.rows(
        sql<{ id: string; covered: boolean }>`
          select v.id, ${brigadeCoversVoterSql(member.id, { stationId: sql`v.polling_station_id`, brigadeId: sql`v.brigade_id` })} as covered
          from gotv_voters v`,
      );
      const listed = new Set<string>();
      for (let cursor: string | null | undefined; cursor !== null;) {
        const page = await app.http
          .get('/api/gotv/voters')
          .query({ limit: 200, ...(cursor ? { cursor } : {}) })
          .set(member.auth)
          .expect(200);
        for (const voter of page.body.data as { id: string }[]) listed.add(voter.id);
        cursor = page.body.nextCursor;
      }
      for (const voter of voters) {
        const inTypeScript = coversVoter(scope, voter);
        expect({ voter, member: member.id, sql: inSql.find((row) => row.id === voter.id)!.covered }).toEqual({ voter, member: member.id, sql: inTypeScript });
        expect({ voter, member: member.id, listed: listed.has(voter.id) }).toEqual({ voter, member: member.id, listed: inTypeScript });
        if (inTypeScript) covered++;
      }
    }
    // The layout covers some voters and not others, so agreement is not trivially all-false.
    expect(covered).toBeGreaterThan(0);
    expect(covered).toBeLessThan(voters.length * members.length);
  });
});
