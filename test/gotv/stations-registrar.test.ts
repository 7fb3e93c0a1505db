import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { sql } from '../../src/kernel/sql';
import { puestoCode } from '../../src/modules/gotv/gotv.stations.import';
import { startTestApp, type TestApp } from '../helpers/app';
import { createUser, expectProblem, registerAdmin, type TestUser } from '../helpers/users';

/** Polling stations from the Registraduría's own files: puestos with coordinates, and the census of voters and mesas. */
const FIXTURES = join(__dirname, '..', '..', 'fixtures', 'co-puestos');
const file = (name: string) => readFileSync(join(FIXTURES, name)).toString('utf8');

let app: TestApp;
let manager: TestUser;

beforeAll(async () => {
  app = await startTestApp();
  const admin = await registerAdmin(app);
  manager = await createUser(app, admin, 'manager');
});
afterAll(() => app.close());

const send = (target: TestApp, user: TestUser, path: string, csv: string) => target.http.post(path).set(user.auth).set('Content-Type', 'text/csv').send(csv);

interface StationRow {
  code: string;
  name: string;
  address: string | null;
  lat: number;
  lng: number;
  tables: number;
  registeredVoters: number;
  territory: string | null;
}
async function stationByCode(target: TestApp, code: string): Promise<StationRow | undefined> {
  return target.runtime.deps.db.first(
    sql<StationRow>`select s.code, s.name, s.address, s.lat, s.lng, s.tables, s.registered_voters as "registeredVoters", t.name as territory
      from gotv_polling_stations s left join territories t on t.id = s.territory_id where s.code = ${code}`,
  );
}

describe('Bolívar: puestos, then the census', () => {
  it('registers a station per puesto with a derived code, its coordinates and the comuna the territory import made', async () => {
    await send(app, manager, '/api/territories/import', file('Divipole_Territoriales_2023_georref_BOLIVAR.csv')).expect(200);
    const answer = await send(app, manager, '/api/gotv/polling-stations/import', file('Divipole_Territoriales_2023_georref_BOLIVAR.csv')).expect(200);
    expect(answer.body).toEqual({ created: 622, updated: 0, unchanged: 0, rejected: [], rejectedCount: 0, dryRun: false });
    const code = puestoCode('BOLIVAR', 'CARTAGENA', 'CENTRO COMERCIAL BOCAGRANDE');
    expect(code).toMatch(/^RNEC-[0-9a-f]{16}$/);
    expect(await stationByCode(app, code)).toEqual({
      code,
      name: 'CENTRO COMERCIAL BOCAGRANDE',
      address: 'CR 2 NO 8-146 BOCAGRANDE AV SAN MARTIN',
      lat: 10.40436390639,
      lng: -75.5538636446,
      tables: 1,
      registeredVoters: 0,
      territory: 'Localidad 1 Historica y del Caribe',
    });
    // A puesto outside any comuna lies in its municipio.
    expect((await stationByCode(app, puestoCode('BOLIVAR', 'PINILLOS', 'LA RUFINA')))!.territory).toBe('Pinillos');
  });

  it('takes registered voters and mesas from the ;-separated census file, matching puestos by the same code', async () => {
    const answer = await send(app, manager, '/api/gotv/polling-stations/import', file('DvipolaUltimate_BOLIVAR_censo_mesas.csv')).expect(200);
    // 603 puestos of the census are in the georeferenced file (one named with other punctuation); the other 36 have no coordinates to register them with.
    expect(answer.body).toMatchObject({ created: 0, updated: 603, unchanged: 0, rejectedCount: 36 });
    expect(answer.body.rejected[0].message).toContain('registering it needs lat, lng');
    expect(await stationByCode(app, puestoCode('BOLIVAR', 'CARTAGENA', 'CENTRO COMERCIAL BOCAGRANDE'))).toMatchObject({ tables: 23, registeredVoters: 7391, lat: 10.40436390639 });
    const again = await send(app, manager, '/api/gotv/polling-stations/import', file('DvipolaUltimate_BOLIVAR_censo_mesas.csv')).expect(200);
    expect(again.body).toMatchObject({ created: 0, updated: 0, unchanged: 603, rejectedCount: 36 });
  });

  it('still refuses a header with neither a code nor a puesto’s departamento, municipio and name', async () => {
    expectProblem(await send(app, manager, '/api/gotv/polling-stations/import', 'DEPARTAMENTO,MUNICIPIO,LATITUD\nBOLIVAR,ARJONA,10.2'), 400, 'missing_columns');
  });
});

describe('the national file', () => {
  it('registers 12,918 of its 12,922 puestos (four rows’ coordinates cannot be read) in their territories', async () => {
    const fresh = await startTestApp();
    try {
      const admin = await registerAdmin(fresh);
      const national = gunzipSync(readFileSync(join(FIXTURES, 'Camara_Senado_2026_georreferenciada.csv.gz'))).toString('utf8');
      await send(fresh, admin, '/api/territories/import', national).expect(200);
      const answer = await send(fresh, admin, '/api/gotv/polling-stations/import', national).expect(200);
      // A longitude of -795.98; 10,965,899 and 12,250,267, which could be 1.09… or 10.9…, 1.22… or 12.2…; a longitude without its sign.
      expect(answer.body.rejected).toEqual([
        { line: 416, message: expect.stringMatching(/^lng: /) },
        { line: 1252, message: expect.stringMatching(/^lat: /) },
        { line: 9937, message: expect.stringMatching(/^lng: /) },
        { line: 12842, message: expect.stringMatching(/^lat: /) },
      ]);
      expect(answer.body).toMatchObject({ created: 12_918, updated: 0, unchanged: 0, rejectedCount: 4 });
      expect(await stationByCode(fresh, puestoCode('ANTIOQUIA', 'MEDELLIN', 'SEC. ESC. LA ESPERANZA No 2'))).toMatchObject({
        lat: 6.29116,
        lng: -75.541166,
        address: 'KR 29 # 102 - 20',
        territory: 'Comuna 1 Popular',
      });
      // Printed with thousands separators for its decimal point: read where it lands inside Colombia.
      expect(await stationByCode(fresh, puestoCode('CHOCO', 'BOJAYA (BELLAVISTA)', 'CHANO'))).toMatchObject({ lat: 6.19604, lng: -77.10829 });
      expect(await stationByCode(fresh, puestoCode('BOYACA', 'CUBARA', 'PUESTO CABECERA MUNICIPAL'))).toMatchObject({ lat: 6.99491692042285, lng: -72.10658358043875 });
      // The same name twice in Bogotá: two stations, told apart by their localidad and address.
      const bogota = ['BOGOTA D.C.', 'BOGOTA. D.C.', 'UNIVERSIDAD ANTONIO NARIÑO'] as const;
      expect(await stationByCode(fresh, puestoCode(...bogota))).toBeUndefined();
      expect(await stationByCode(fresh, puestoCode(...bogota, { comuna: '03LOCALIDAD 3 SANTA FE', address: 'CRA 7 No 16- 75 SEDE IBERICA' }))).toMatchObject({
        territory: 'Localidad 3 Santa Fe',
      });
      expect(await stationByCode(fresh, puestoCode(...bogota, { comuna: '13LOCALIDAD 13 TEUSAQUILLO', address: 'CLL 58A BIS # 37-94' }))).toMatchObject({
        territory: 'Localidad 13 Teusaquillo',
      });
      const placed = await fresh.runtime.deps.db.first(sql<{ n: number }>`select count(*)::int as n from gotv_polling_stations where territory_id is null`);
      expect(placed!.n).toBe(0);
    } finally {
      await fresh.close();
    }
  });
});
