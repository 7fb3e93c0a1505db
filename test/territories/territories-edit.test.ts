import { sql } from '../../src/kernel/sql';
import { startTestApp, type TestApp } from '../helpers/app';
import { station, territory, volunteer as newVolunteer, voter, type TerritoryOverrides } from '../helpers/factories';
import { connectSocket, nextEvent, subscribe } from '../helpers/sockets';
import { createUser, expectProblem, registerAdmin, type TestUser } from '../helpers/users';

/** Changing and deleting territories; levels named in Spanish. */
let app: TestApp;
let manager: TestUser;
let volunteer: TestUser;

beforeAll(async () => {
  app = await startTestApp();
  const admin = await registerAdmin(app);
  [manager, volunteer] = await Promise.all([createUser(app, admin, 'manager'), createUser(app, admin, 'volunteer')]);
});
afterAll(() => app.close());

async function create(body: TerritoryOverrides): Promise<{ id: string; type: string; parentId: string | null }> {
  return (await territory(app, manager, body)) as unknown as { id: string; type: string; parentId: string | null };
}
const patch = (id: string, body: object, user = manager) => app.http.patch(`/api/territories/${id}`).set(user.auth).send(body);
const remove = (id: string, user = manager) => app.http.delete(`/api/territories/${id}`).set(user.auth);

describe('Spanish level names', () => {
  it('takes departamento, municipio, localidad, corregimiento, barrio and vereda on input and answers the English name', async () => {
    const department = await create({ name: 'Bolívar', type: 'departamento' });
    expect(department.type).toBe('department');
    const city = await create({ name: 'Cartagena', type: 'municipio', parentId: department.id });
    expect(city.type).toBe('municipality');
    const locality = await create({ name: 'Localidad 1', type: 'localidad', parentId: city.id });
    const rural = await create({ name: 'Corregimiento Bayunca', type: 'corregimiento', parentId: city.id });
    expect([locality.type, rural.type]).toEqual(['commune', 'commune']);
    expect((await create({ name: 'Manga', type: 'barrio', parentId: locality.id })).type).toBe('neighbourhood');
    expect((await create({ name: 'Vereda Pontezuela', type: 'vereda', parentId: rural.id })).type).toBe('neighbourhood');
    const filtered = await app.http.get(`/api/territories?type=localidad&parentId=${city.id}`).set(volunteer.auth).expect(200);
    expect(filtered.body.data.map((t: { name: string }) => t.name)).toEqual(['Corregimiento Bayunca', 'Localidad 1']);
    const english = await app.http.get(`/api/territories?type=commune&parentId=${city.id}`).set(volunteer.auth).expect(200);
    expect(english.body.data).toEqual(filtered.body.data);
  });

  it('refuses an unknown level name, in a body and in a filter', async () => {
    expectProblem(await app.http.post('/api/territories').set(manager.auth).send({ name: 'X', type: 'provincia' }), 400, 'validation_failed');
    expectProblem(await app.http.get('/api/territories?type=provincia').set(manager.auth), 400);
  });
});

describe('PATCH /api/territories/:id', () => {
  it('changes name, code, level and parent, and recomputes the centroid from a new geometry', async () => {
    const department = await create({ name: 'Antioquia', type: 'department', code: '05-edit' });
    const city = await create({ name: 'Medelin', type: 'municipality' });
    const changed = await patch(city.id, { name: 'Medellín', code: '05001-edit', parentId: department.id, population: 2_600_000 }).expect(200);
    expect(changed.body).toMatchObject({ name: 'Medellín', code: '05001-edit', parentId: department.id, population: 2_600_000, type: 'municipality' });
    const zone = await create({ name: 'Zona norte', type: 'zone' });
    const moved = await patch(zone.id, {
      type: 'comuna',
      parentId: city.id,
      geometry: {
        type: 'Polygon',
        coordinates: [
          [
            [-75.6, 6.2],
            [-75.5, 6.2],
            [-75.5, 6.3],
            [-75.6, 6.3],
            [-75.6, 6.2],
          ],
        ],
      },
    }).expect(200);
    expect(moved.body).toMatchObject({ type: 'commune', parentId: city.id });
    expect(moved.body.centroid.lat).toBeCloseTo(6.25, 6);
    const cleared = await patch(city.id, { code: null, population: null, parentId: null }).expect(200);
    expect(cleared.body).toMatchObject({ code: null, population: null, parentId: null });
    const fetched = await app.http.get(`/api/territories/${zone.id}`).set(volunteer.auth).expect(200);
    expect(fetched.body).toEqual(moved.body);
  });

  it('refuses a cycle: a territory under itself or under one of its own sub-territories', async () => {
    const city = await create({ name: 'Cali', type: 'municipality' });
    const commune = await create({ name: 'Comuna 3', type: 'commune', parentId: city.id });
    const barrio = await create({ name: 'San Antonio', type: 'neighbourhood', parentId: commune.id });
    const self = expectProblem(await patch(commune.id, { parentId: commune.id }), 400, 'validation_failed');
    expect(self.errors).toEqual([expect.objectContaining({ path: 'body.parentId', message: expect.stringContaining('itself') })]);
    const zone = await create({ name: 'Zona Cali', type: 'zone', parentId: city.id });
    const below = await create({ name: 'Zona dentro', type: 'zone', parentId: commune.id });
    const cycle = expectProblem(await patch(zone.id, { parentId: below.id }), 400, 'validation_failed');
    expect(cycle.errors).toEqual([expect.objectContaining({ path: 'body.parentId' })]);
    // Moving the zone under its own descendant: make `below` a child of `zone` first.
    await patch(below.id, { parentId: null }).expect(200);
    const inner = await create({ name: 'Zona 2', type: 'zone' });
    expect((await patch(inner.id, { parentId: barrio.id })).status).toBe(400);
  });

  it('refuses a parent of an incompatible level, and a level its sub-territories could not sit in', async () => {
    const department = await create({ name: 'Nariño', type: 'department' });
    const city = await create({ name: 'Pasto', type: 'municipality', parentId: department.id });
    await create({ name: 'Barrio Centro', type: 'barrio', parentId: city.id });
    const level = expectProblem(await patch(city.id, { parentId: null, type: 'neighbourhood' }), 400, 'validation_failed');
    expect(level.errors).toEqual([expect.objectContaining({ path: 'body.type', message: expect.stringContaining('1 neighbourhood') })]);
    const elsewhere = await create({ name: 'Ipiales', type: 'municipality' });
    const parent = expectProblem(await patch(department.id, { parentId: elsewhere.id }), 400, 'validation_failed');
    expect(parent.errors).toEqual([expect.objectContaining({ path: 'body.parentId', message: 'A department cannot be inside another territory.' })]);
    expectProblem(await patch(city.id, { parentId: '01960000-0000-7000-8000-000000000000' }), 400, 'validation_failed');
  });

  it('answers 409 for a code another territory of the level has, 404 for an unknown id, 400 for bad bodies, 401/403 without the role', async () => {
    await create({ name: 'Caldas', type: 'department', code: '17-edit' });
    const other = await create({ name: 'Caldaz', type: 'department' });
    expectProblem(await patch(other.id, { code: '17-edit' }), 409, 'territory_code_taken');
    expectProblem(await patch('01960000-0000-7000-8000-000000000000', { name: 'Nada' }), 404, 'not_found');
    expectProblem(await patch('nope', { name: 'Nada' }), 400);
    expectProblem(await patch(other.id, {}), 400, 'validation_failed');
    expectProblem(await patch(other.id, { name: '' }), 400, 'validation_failed');
    expectProblem(await patch(other.id, { type: 'planet' }), 400, 'validation_failed');
    expectProblem(await patch(other.id, { population: -3 }), 400, 'validation_failed');
    expectProblem(await patch(other.id, { name: 'X' }, volunteer), 403);
    expectProblem(await app.http.patch(`/api/territories/${other.id}`).send({ name: 'X' }), 401);
  });
});

describe('DELETE /api/territories/:id', () => {
  it('refuses while stations, voters, volunteers, contacts or sub-territories point at it, naming each with its count', async () => {
    const city = await create({ name: 'Montería', type: 'municipality' });
    await create({ name: 'Comuna 1 Montería', type: 'commune', parentId: city.id });
    const puesto = await station(app, manager, { name: 'Puesto Montería', lat: 8.75, lng: -75.88, territoryId: city.id });
    await voter(app, manager, { name: 'Ana Pérez', pollingStationId: puesto.id });
    await voter(app, manager, { name: 'Luis Gómez', pollingStationId: puesto.id });
    await newVolunteer(app, manager, { name: 'Voluntaria Uno', territoryId: city.id });
    const refused = expectProblem(await remove(city.id), 409, 'territory_in_use');
    expect(refused.detail).toContain('1 puesto');
    expect(refused.detail).toContain('2 votantes');
    expect(refused.detail).toContain('1 voluntario');
    expect(refused.detail).toContain('1 contacto');
    expect(refused.detail).toContain('1 sub-territorio');
    expect(refused.references).toEqual(
      expect.arrayContaining([
        { module: 'gotv', count: 1, one: 'puesto', many: 'puestos' },
        { module: 'territories', count: 1, one: 'sub-territorio', many: 'sub-territorios' },
      ]),
    );
    await app.http.get(`/api/territories/${city.id}`).set(manager.auth).expect(200);
  });

  it('deletes a territory nothing points at, telling live maps of the change and the deletion', async () => {
    const zone = await create({ name: 'Zona borrable', type: 'zone' });
    const socket = await connectSocket(app.url, volunteer.token);
    try {
      expect((await subscribe(socket, ['territories'])).joined).toEqual(['territories']);
      const updated = nextEvent(socket, 'territories:updated');
      await patch(zone.id, { name: 'Zona por borrar' }).expect(200);
      expect(await updated).toEqual({ id: zone.id, name: 'Zona por borrar', type: 'zone', parentId: null });
      const deleted = nextEvent(socket, 'territories:deleted');
      await remove(zone.id).expect(204);
      expect(await deleted).toEqual({ id: zone.id });
    } finally {
      socket.close();
    }
    expectProblem(await app.http.get(`/api/territories/${zone.id}`).set(manager.auth), 404);
    expectProblem(await remove(zone.id), 404, 'not_found');
  });

  it('keeps every foreign key to a territory from deleting or orphaning rows, even without the check', async () => {
    const rules = await app.runtime.deps.db.rows(
      sql<{ rule: string; n: number }>`select confdeltype as rule, count(*)::int as n from pg_constraint where confrelid = 'territories'::regclass group by confdeltype`,
    );
    expect(rules).toEqual([{ rule: 'r', n: expect.any(Number) }]);
  });

  it('answers 400 for a bad id and 401/403 without the role', async () => {
    expectProblem(await remove('nope'), 400);
    const zone = await create({ name: 'Zona ajena', type: 'zone' });
    expectProblem(await remove(zone.id, volunteer), 403);
    expectProblem(await app.http.delete(`/api/territories/${zone.id}`), 401);
  });
});
