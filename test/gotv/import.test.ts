import { startTestApp, type TestApp } from '../helpers/app';
import { createUser, expectProblem, registerAdmin, type TestUser } from '../helpers/users';

let app: TestApp;
let manager: TestUser;
let brigade: TestUser;

beforeAll(async () => {
  app = await startTestApp();
  const admin = await registerAdmin(app);
  manager = await createUser(app, admin, 'manager');
  brigade = await createUser(app, admin, 'brigade');
  await app.http
    .post('/api/gotv/polling-stations')
    .set(manager.auth)
    .send({ code: 'P-01', name: 'Puesto 1', lat: 4.6, lng: -74.1, tables: 10, registeredVoters: 9000 })
    .expect(201);
  await app.http.post('/api/gotv/polling-stations').set(manager.auth).send({ code: 'P-02', name: 'Puesto 2', lat: 4.6, lng: -74.1, tables: 3, registeredVoters: 900 }).expect(201);
});
afterAll(() => app.close());

const upload = (csv: string, user = manager) => app.http.post('/api/gotv/voters/import').set(user.auth).set('Content-Type', 'text/csv').send(csv);
const header = 'name,documentId,phone,pollingStationCode,tableNumber,priority';
const count = async () => (await app.runtime.deps.orm.em.fork().execute<{ n: number }[]>('select count(*)::int as n from gotv_voters'))[0]!.n;

describe('voter CSV import', () => {
  it('imports valid rows, reports bad ones by line, and imports nothing twice on a re-run', async () => {
    const csv = [
      'name,documentId,phone,pollingStationCode,tableNumber,priority',
      'Ana Ruiz,52.111.222,300 555 0001,P-01,2,high',
      'Beto Díaz,1020304050,,P-02,,',
      'Sin Cédula,,3005550003,P-01,1,normal',
      'Caro Gil,52333444,3005550004,P-99,1,normal',
      'Dani Paz,52555666,3005550005,P-02,7,normal',
      'Ana Repetida,52111222,,P-01,,',
      '=cmd|calc,52777888,,P-01,,low',
    ].join('\n');
    const first = await upload(csv).expect(200);
    expect(first.body).toMatchObject({ created: 3, updated: 0, unchanged: 0, rejectedCount: 4, batches: 1 });
    expect(first.body.rejected.map((item: { line: number }) => item.line)).toEqual([4, 5, 6, 7]);
    expect(first.body.rejected[1].message).toContain('P-99');
    const again = await upload(csv).expect(200);
    expect(again.body).toMatchObject({ created: 0, updated: 0, unchanged: 3 });
    expect(await count()).toBe(3);
    const ana = await app.http.get('/api/gotv/voters?q=ana').set(manager.auth).expect(200);
    expect(ana.body.data[0]).toMatchObject({ documentId: '52111222', phone: '+573005550001', tableNumber: 2, priority: 'high' });
  });

  it('updates the voters a corrected file changes and leaves the others, keeping what its empty cells do not say', async () => {
    const csv = [
      header,
      'Ana María Ruiz,52111222,,P-01,,', // renamed; phone, table and priority kept
      'Beto Díaz,1020304050,3005550002,P-01,3,low', // moved, with a phone, a table and a priority
      'Dani Paz,52555666,,P-02,2,', // new
      '=cmd|calc,52777888,,P-01,,low', // as it was
    ].join('\n');
    const answer = await upload(csv).expect(200);
    expect(answer.body).toMatchObject({ created: 1, updated: 2, unchanged: 1, rejectedCount: 0 });
    const voter = async (q: string) => (await app.http.get(`/api/gotv/voters?q=${q}`).set(manager.auth).expect(200)).body.data[0];
    expect(await voter('52111222')).toMatchObject({ name: 'Ana María Ruiz', phone: '+573005550001', tableNumber: 2, priority: 'high' });
    expect(await voter('1020304050')).toMatchObject({ phone: '+573005550002', tableNumber: 3, priority: 'low' });
    // A move to another station without a table clears the old station's table.
    await upload([header, 'Beto Díaz,1020304050,,P-02,,'].join('\n')).expect(200);
    expect(await voter('1020304050')).toMatchObject({ tableNumber: null, priority: 'low', phone: '+573005550002' });
    expect((await upload(csv).expect(200)).body).toMatchObject({ created: 0, updated: 1, unchanged: 3 });
  });

  it('lists every error of a bad row on its line', async () => {
    const answer = await upload([header, 'X,12,abc,P-99,0,urgent', 'Eva Luna,52999000,123,P-02,9,', 'Eva Otra,52999000,,P-01,,'].join('\n')).expect(200);
    expect(answer.body).toMatchObject({ created: 1, rejectedCount: 2 });
    const [first, second] = answer.body.rejected as { line: number; message: string }[];
    expect(first!.line).toBe(2);
    for (const field of ['name', 'documentId', 'tableNumber', 'priority', 'pollingStationCode']) expect(first!.message).toContain(`${field}:`);
    expect(second).toEqual({ line: 3, message: 'tableNumber: the station has 3 tables; phone: not a valid phone number' });
  });

  it('streams ten thousand rows in batches', async () => {
    const rows = Array.from({ length: 10_000 }, (_, i) => `Votante ${i},${70_000_000 + i},,P-01,,`);
    const answer = await upload(['name,documentId,phone,pollingStationCode,tableNumber,priority', ...rows].join('\n')).expect(200);
    expect(answer.body).toMatchObject({ created: 10_000, rejectedCount: 0, batches: 5 });
  });

  it('refuses a file of more than 100,000 data rows with 413 and writes none of it', async () => {
    const before = await count();
    const rows = Array.from({ length: 100_001 }, (_, i) => `V ${i},${80_000_000 + i},,P-01,,`);
    // Every row is valid: the first 100,000 would fit, but the file is refused as a whole.
    const problem = expectProblem(await upload([header, ...rows].join('\n')), 413, 'too_many_rows');
    expect(problem.detail).toContain('100,000');
    expect(problem.maxRows).toBe(100_000);
    expect(await count()).toBe(before);
  }, 20_000);

  it('refuses CSV it cannot parse with 400 and writes nothing', async () => {
    const before = await count();
    const csv = [header, 'Valeria Ríos,91000001,,P-01,,', 'Walter Soto,91000002,,P-01,,', '"Quote Abierta,91000003,,P-01,,'].join('\n');
    expectProblem(await upload(csv), 400, 'malformed_csv');
    expectProblem(await upload([header, `${'x'.repeat(20_000)},91000004,,P-01,,`].join('\n')), 400, 'malformed_csv');
    expect(await count()).toBe(before);
  });

  it('rejects a name with a NUL character by its line and imports the rest of its batch', async () => {
    const rows = Array.from({ length: 3000 }, (_, i) => `${i === 2500 ? 'Mala\u0000Fila' : `Fila ${i}`},${92_000_000 + i},,P-01,,`);
    const answer = await upload([header, ...rows].join('\n')).expect(200);
    expect(answer.body).toMatchObject({ created: 2999, rejectedCount: 1, batches: 2 });
    expect(answer.body.rejected[0]).toMatchObject({ line: 2502, message: expect.stringContaining('NUL') });
  });

  it('stores names that begin with = + - @ as given (no voter CSV export exists to neutralise them in)', async () => {
    const names = ['=HYPERLINK("x")', '+Pedro Mora', '-Lina Vega', '@Rafa Toro'];
    const csv = [header, ...names.map((name, i) => `"${name.replace(/"/g, '""')}",${987_654_300 + i},,P-01,,`)].join('\n');
    expect((await upload(csv).expect(200)).body).toMatchObject({ created: 4, rejectedCount: 0 });
    const stored = await app.http.get('/api/gotv/voters?q=98765430&limit=10').set(manager.auth).expect(200);
    expect(stored.body.data.map((voter: { name: string }) => voter.name).sort()).toEqual([...names].sort());
  });

  it('checks a file with dryRun: the counts and errors of the real import, nothing written', async () => {
    const csv = [
      header,
      'Ana María Ruiz,52111222,,P-01,,urgent', // a registered voter, a bad priority
      'Ana María Ruiz,52111222,,P-01,5,', // the same voter, a new table: an update
      'Seca Nueva,61000001,3005550099,P-02,1,', // new
      'Seca Otra,61000002,,P-77,,', // no such station
    ].join('\n');
    const before = await count();
    const ana = async () => (await app.http.get('/api/gotv/voters?q=52111222').set(manager.auth).expect(200)).body.data[0];
    const anaBefore = await ana();
    const dry = await app.http.post('/api/gotv/voters/import?dryRun=true').set(manager.auth).set('Content-Type', 'text/csv').send(csv).expect(200);
    expect(dry.body).toMatchObject({ dryRun: true, created: 1, updated: 1, unchanged: 0, rejectedCount: 2, batches: 1 });
    expect(dry.body.rejected.map((item: { line: number }) => item.line)).toEqual([2, 5]);
    expect(await count()).toBe(before);
    expect(await ana()).toEqual(anaBefore);
    const real = await upload(csv).expect(200);
    expect({ ...real.body, dryRun: true }).toEqual(dry.body);
    expect(await count()).toBe(before + 1);
    expect((await ana()).tableNumber).toBe(5);
    // Sent again, the dry run finds it all in place.
    expect((await app.http.post('/api/gotv/voters/import?dryRun=true').set(manager.auth).set('Content-Type', 'text/csv').send(csv).expect(200)).body).toMatchObject({
      created: 0,
      updated: 0,
      unchanged: 2,
    });
  });

  it('refuses a dryRun that is not true or false with 400, and a dry run from a brigade member with 403', async () => {
    const before = await count();
    const problem = expectProblem(
      await app.http.post('/api/gotv/voters/import?dryRun=1').set(manager.auth).set('Content-Type', 'text/csv').send([header, 'Nadie Nunca,61000009,,P-01,,'].join('\n')),
      400,
    );
    expect(problem.errors).toEqual([expect.objectContaining({ path: 'query.dryRun' })]);
    expectProblem(await app.http.post('/api/gotv/voters/import?dryRun=true').set(brigade.auth).set('Content-Type', 'text/csv').send(header), 403);
    expect(await count()).toBe(before);
  });

  it('wants CSV from a manager', async () => {
    expectProblem(await app.http.post('/api/gotv/voters/import').set(manager.auth).send({ rows: [] }), 415, 'unsupported_media_type');
    expectProblem(await upload('name\nx', brigade), 403);
    expectProblem(await app.http.post('/api/gotv/voters/import').set('Content-Type', 'text/csv').send('a'), 401);
  });
});
