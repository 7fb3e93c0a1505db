import { sql } from '../../src/kernel/sql';
import { assertTerritoriesExist, territoryAndDescendants, territoryDirectory } from '../../src/modules/territories';
import { startTestApp, type TestApp } from '../helpers/app';
import { createUser, expectProblem, registerAdmin, type TestUser } from '../helpers/users';

let app: TestApp;
let admin: TestUser;
let manager: TestUser;
let volunteer: TestUser;

beforeAll(async () => {
  app = await startTestApp();
  admin = await registerAdmin(app);
  manager = await createUser(app, admin, 'manager');
  volunteer = await createUser(app, admin, 'volunteer');
});
afterAll(() => app.close());

const square = (lng: number, lat: number, size: number) => [
  [lng, lat],
  [lng + size, lat],
  [lng + size, lat + size],
  [lng, lat + size],
  [lng, lat],
];

async function territoryCount(): Promise<number> {
  const rows = await app.runtime.deps.db.rows(sql<{ n: number }>`select count(*)::int as n from territories`);
  return rows[0]!.n;
}

function create(body: object, user = manager) {
  return app.http.post('/api/territories').set(user.auth).send(body);
}

describe('POST /api/territories', () => {
  it('creates a nested hierarchy and computes a centroid from the geometry', async () => {
    const department = await create({ name: 'Cundinamarca', type: 'department', code: '25' }).expect(201);
    const city = await create({ name: 'Bogotá', type: 'municipality', code: '11001', parentId: department.body.id, registeredVoters: 5_800_000 }).expect(201);
    const commune = await create({
      name: 'Kennedy',
      type: 'commune',
      code: '08',
      parentId: city.body.id,
      geometry: { type: 'Polygon', coordinates: [square(-74.16, 4.6, 0.04)] },
    }).expect(201);
    expect(commune.body).toMatchObject({ name: 'Kennedy', type: 'commune', parentId: city.body.id, code: '08' });
    expect(commune.body.centroid.lat).toBeCloseTo(4.62, 6);
    expect(commune.body.centroid.lng).toBeCloseTo(-74.14, 6);
    expect(commune.body.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7/);
    const fetched = await app.http.get(`/api/territories/${commune.body.id}`).set(volunteer.auth).expect(200);
    expect(fetched.body.geometry.type).toBe('Polygon');
    expect(fetched.body).toEqual(commune.body);
  });

  it('keeps a given centroid and accepts MultiPolygons with holes', async () => {
    const response = await create({
      name: 'Zona sur',
      type: 'zone',
      centroid: { lat: 4.5, lng: -74.1 },
      geometry: { type: 'MultiPolygon', coordinates: [[square(-74.2, 4.4, 0.2), square(-74.15, 4.45, 0.05)]] },
    }).expect(201);
    expect(response.body.centroid).toEqual({ lat: 4.5, lng: -74.1 });
  });

  it('refuses a duplicate code within a type with 409', async () => {
    await create({ name: 'Antioquia', type: 'department', code: '05' }).expect(201);
    expectProblem(await create({ name: 'Antioquia bis', type: 'department', code: '05' }), 409, 'territory_code_taken');
    await create({ name: 'Municipio 05', type: 'municipality', code: '05' }).expect(201);
  });

  it('enforces the level hierarchy', async () => {
    const department = await create({ name: 'Valle', type: 'department' }).expect(201);
    const problem = expectProblem(await create({ name: 'Barrio suelto', type: 'neighbourhood', parentId: department.body.id }), 400, 'validation_failed');
    expect(problem.errors).toEqual([expect.objectContaining({ path: 'body.parentId' })]);
    expectProblem(await create({ name: 'Otro depto', type: 'department', parentId: department.body.id }), 400);
    expectProblem(await create({ name: 'Huérfano', type: 'municipality', parentId: '01960000-0000-7000-8000-000000000000' }), 400);
  });

  it.each([
    [
      'an open ring',
      {
        type: 'Polygon',
        coordinates: [
          [
            [-74, 4],
            [-74.1, 4],
            [-74.1, 4.1],
            [-74, 4.1],
          ],
        ],
      },
    ],
    ['latitude out of range', { type: 'Polygon', coordinates: [square(-74, 89.99, 1)] }],
    ['longitude out of range', { type: 'Polygon', coordinates: [square(179.5, 4, 1)] }],
    [
      'too few positions',
      {
        type: 'Polygon',
        coordinates: [
          [
            [-74, 4],
            [-74.1, 4],
            [-74, 4],
          ],
        ],
      },
    ],
    ['an unknown geometry type', { type: 'Point', coordinates: [-74, 4] }],
    [
      'strings for numbers',
      {
        type: 'Polygon',
        coordinates: [
          [
            ['-74', '4'],
            [-74.1, 4],
            [-74.1, 4.1],
            ['-74', '4'],
          ],
        ],
      },
    ],
  ])('rejects a geometry with %s and writes nothing', async (_name, geometry) => {
    const before = await territoryCount();
    const problem = expectProblem(await create({ name: 'Malo', type: 'zone', geometry }), 400, 'validation_failed');
    expect((problem.errors as { path: string }[])[0]!.path).toMatch(/^body\.geometry/);
    expect(await territoryCount()).toBe(before);
  });

  it.each([
    [{ type: 'zone' }, 'body.name'],
    [{ name: 'X', type: 'planet' }, 'body.type'],
    [{ name: 'X', type: 'zone', population: -1 }, 'body.population'],
    [{ name: 'X', type: 'zone', parentId: 'nope' }, 'body.parentId'],
    [{ name: 'X', type: 'zone', centroid: { lat: 91, lng: 0 } }, 'body.centroid.lat'],
  ])('rejects %j with a 400 naming %s', async (body, path) => {
    const problem = expectProblem(await create(body), 400, 'validation_failed');
    expect(problem.errors).toEqual(expect.arrayContaining([expect.objectContaining({ path })]));
  });

  it('needs a manager: 401 without a token, 403 for a volunteer', async () => {
    expectProblem(await app.http.post('/api/territories').send({ name: 'X', type: 'zone' }), 401);
    expectProblem(await create({ name: 'X', type: 'zone' }, volunteer), 403, 'forbidden');
    await create({ name: 'Zona admin', type: 'zone' }, admin).expect(201);
  });
});

describe('GET /api/territories', () => {
  let city: string;
  beforeAll(async () => {
    city = (await create({ name: 'Medellín', type: 'municipality', code: '05001' }).expect(201)).body.id;
    for (const name of ['Laureles', 'El Poblado', 'Belén', 'Robledo', 'Castilla', '50%_off']) {
      await create({ name, type: 'neighbourhood', parentId: city }).expect(201);
    }
  });

  it('filters by parent and type, sorted by name, paginated with a cursor', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = `/api/territories?parentId=${city}&type=neighbourhood&limit=4${cursor ? `&cursor=${cursor}` : ''}`;
      const page = await app.http.get(query).set(volunteer.auth).expect(200);
      seen.push(...page.body.data.map((territory: { name: string }) => territory.name));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual(['50%_off', 'Belén', 'Castilla', 'El Poblado', 'Laureles', 'Robledo']);
  });

  it('searches names with q, taking % and _ literally', async () => {
    const found = await app.http.get('/api/territories?q=poblado').set(volunteer.auth).expect(200);
    expect(found.body.data.map((territory: { name: string }) => territory.name)).toEqual(['El Poblado']);
    const literal = await app.http
      .get(`/api/territories?q=${encodeURIComponent('%_')}`)
      .set(volunteer.auth)
      .expect(200);
    expect(literal.body.data.map((territory: { name: string }) => territory.name)).toEqual(['50%_off']);
  });

  it('leaves geometry out of lists', async () => {
    const page = await app.http.get('/api/territories?type=commune').set(volunteer.auth).expect(200);
    expect(page.body.data[0]).not.toHaveProperty('geometry');
  });

  it('answers bad filters and ids with 4xx', async () => {
    expectProblem(await app.http.get('/api/territories?type=galaxy').set(volunteer.auth), 400);
    expectProblem(await app.http.get('/api/territories?parentId=123').set(volunteer.auth), 400);
    expectProblem(await app.http.get('/api/territories?limit=0').set(volunteer.auth), 400);
    expectProblem(await app.http.get('/api/territories/123').set(volunteer.auth), 400);
    expectProblem(await app.http.get('/api/territories/01960000-0000-7000-8000-000000000000').set(volunteer.auth), 404);
    expectProblem(await app.http.get('/api/territories'), 401);
  });
});

describe('for other modules', () => {
  let city: string;
  let commune: string;
  let barrio: string;
  beforeAll(async () => {
    city = (await create({ name: 'Cali', type: 'municipality', code: '76001' }).expect(201)).body.id;
    commune = (await create({ name: 'Comuna 2', type: 'commune', parentId: city }).expect(201)).body.id;
    barrio = (await create({ name: 'Granada', type: 'neighbourhood', parentId: commune }).expect(201)).body.id;
  });

  it('assertTerritoriesExist names the first unknown id', async () => {
    const unknown = '01960000-0000-7000-8000-000000000000';
    const path = (index: number) => `body.items.${index}.territoryId`;
    const source = app.runtime.deps.db;
    await expect(assertTerritoriesExist(source, [city, null, barrio], path)).resolves.toBeUndefined();
    await expect(assertTerritoriesExist(source, [city, undefined, unknown], path)).rejects.toMatchObject({
      status: 400,
      errors: [{ path: 'body.items.2.territoryId', message: expect.any(String) }],
    });
  });

  it('publishes a territory with everything inside it, and names without geometry, as fragments', async () => {
    const rows = await app.runtime.deps.db.rows(
      sql<{ name: string; type: string; parent_id: string | null }>`select t.name, t.type, t.parent_id from ${territoryDirectory()} t
        where t.id in (${territoryAndDescendants([commune])}) order by t.name`,
    );
    expect(rows).toEqual([
      { name: 'Comuna 2', type: 'commune', parent_id: city },
      { name: 'Granada', type: 'neighbourhood', parent_id: commune },
    ]);
    const [columns] = await app.runtime.deps.db.rows(sql<Record<string, unknown>>`select * from ${territoryDirectory()} t limit 1`);
    expect(columns).not.toHaveProperty('geometry');
  });
});
