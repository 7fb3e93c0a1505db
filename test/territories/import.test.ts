import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { sql } from '../../src/kernel/sql';
import { communeCell, placeName } from '../../src/modules/territories';
import { startTestApp, type TestApp } from '../helpers/app';
import { createUser, expectProblem, registerAdmin, type TestUser } from '../helpers/users';

/** departamento → municipio → comuna from the country's divisions and the Registraduría's puestos files. */
const FIXTURES = join(__dirname, '..', '..', 'fixtures', 'co-puestos');
const BOLIVAR_GEOREF = readFileSync(join(FIXTURES, 'Divipole_Territoriales_2023_georref_BOLIVAR.csv'));
const BOLIVAR_CENSUS = readFileSync(join(FIXTURES, 'DvipolaUltimate_BOLIVAR_censo_mesas.csv'));

let app: TestApp;
let manager: TestUser;
let viewer: TestUser;

beforeAll(async () => {
  app = await startTestApp();
  const admin = await registerAdmin(app);
  [manager, viewer] = await Promise.all([createUser(app, admin, 'manager'), createUser(app, admin, 'viewer')]);
});
afterAll(() => app.close());

const upload = (csv: string | Buffer, query = '', user = manager) =>
  app.http
    .post(`/api/territories/import${query}`)
    .set(user.auth)
    .set('Content-Type', 'text/csv')
    .send(typeof csv === 'string' ? csv : csv.toString('utf8'));

async function territories(type: string): Promise<{ name: string; code: string | null; parent: string | null }[]> {
  return app.runtime.deps.db.rows(
    sql<{ name: string; code: string | null; parent: string | null }>`select t.name, t.code, p.name as parent from territories t left join territories p on p.id = t.parent_id
      where t.type = ${type} order by t.name, t.id`,
  );
}

describe('naming', () => {
  it('strips a comuna’s number and spells out its abbreviations; names from upper-case files read as people write them', () => {
    expect(communeCell('01COMUNA 1 POPULAR')).toEqual({ number: '01', name: 'Comuna 1 Popular' });
    expect(communeCell('01LOC. 1 HISTORICA Y DEL CARIBE')).toEqual({ number: '01', name: 'Localidad 1 Historica y del Caribe' });
    expect(communeCell('03LOC.3 INDUSTRIAL DE LA BAHIA')).toEqual({ number: '03', name: 'Localidad 3 Industrial de la Bahia' });
    expect(communeCell('32CORRE. SAN JOSE DE LAS MARTAS')).toEqual({ number: '32', name: 'Corregimiento San Jose de las Martas' });
    expect(communeCell('  ')).toBeUndefined();
    expect(placeName('EL CARMEN DE BOLIVAR')).toBe('El Carmen de Bolivar');
    expect(placeName('BOGOTA D.C.')).toBe('Bogota D.C.');
    expect(placeName('Cartagena de Indias')).toBe('Cartagena de Indias');
  });
});

describe('POST /api/territories/import (DIVIPOLE columns)', () => {
  const divipole = [
    'codigo_departamento,departamento,codigo_municipio,municipio,comuna',
    '5,ANTIOQUIA,001,MEDELLIN,01COMUNA 1 POPULAR',
    '05,ANTIOQUIA,001,MEDELLIN,02COMUNA 2 SANTA CRUZ',
    '05,ANTIOQUIA,088,BELLO,',
  ].join('\n');

  it('checks a file with dryRun and writes nothing, then builds the hierarchy with codes', async () => {
    const dry = await upload(divipole, '?dryRun=true').expect(200);
    expect(dry.body).toMatchObject({ dryRun: true, created: 5, updated: 0, unchanged: 0, rejectedCount: 0 });
    expect(await territories('department')).toEqual([]);
    const answer = await upload(divipole).expect(200);
    expect(answer.body).toMatchObject({ dryRun: false, created: 5, updated: 0, unchanged: 0, rejectedCount: 0 });
    expect(await territories('department')).toEqual([{ name: 'Antioquia', code: '05', parent: null }]);
    expect(await territories('municipality')).toEqual([
      { name: 'Bello', code: '05088', parent: 'Antioquia' },
      { name: 'Medellin', code: '05001', parent: 'Antioquia' },
    ]);
    expect(await territories('commune')).toEqual([
      { name: 'Comuna 1 Popular', code: '05001-01', parent: 'Medellin' },
      { name: 'Comuna 2 Santa Cruz', code: '05001-02', parent: 'Medellin' },
    ]);
  });

  it('matches held places on a re-import: by code, else by name under the same parent, giving codes and names it brings', async () => {
    expect((await upload(divipole).expect(200)).body).toMatchObject({ created: 0, updated: 0, unchanged: 5 });
    // Made by hand without a code: the file gives it one; a renamed code gives the held place the new name.
    await app.http.post('/api/territories').set(manager.auth).send({ name: 'Envigado', type: 'municipio' }).expect(201);
    const envigado = (await app.http.get('/api/territories?q=Envigado').set(manager.auth).expect(200)).body.data[0];
    const department = (await app.http.get('/api/territories?type=departamento').set(manager.auth).expect(200)).body.data[0];
    await app.http.patch(`/api/territories/${envigado.id}`).set(manager.auth).send({ parentId: department.id }).expect(200);
    const answer = await upload(
      ['departamento,municipio,codigo_municipio,codigo_departamento', 'Antioquia,ENVIGADO,266,05', 'ANTIOQUIA,Bello (Antioquia),088,05'].join('\n'),
    ).expect(200);
    expect(answer.body).toMatchObject({ created: 0, updated: 2, unchanged: 1, rejectedCount: 0 });
    const municipalities = await territories('municipality');
    expect(municipalities).toContainEqual({ name: 'Envigado', code: '05266', parent: 'Antioquia' });
    expect(municipalities).toContainEqual({ name: 'Bello (Antioquia)', code: '05088', parent: 'Antioquia' });
  });

  it('reports every error of a bad row on its line and imports the others', async () => {
    const answer = await upload(
      [
        'departamento,municipio,codigo_departamento,codigo_municipio,comuna',
        ',,123,12,',
        'CORDOBA,MONTERIA,23,001,',
        'CORDOBA,LORICA,23,001,',
        'SUCRE,SINCELEJO,,001,',
        'SUCRE,COROZAL,70,23417,',
        `SUCRE,${'X'.repeat(161)},70,,`,
      ].join('\n'),
    ).expect(200);
    expect(answer.body).toMatchObject({ created: 2, rejectedCount: 5 });
    const messages = new Map((answer.body.rejected as { line: number; message: string }[]).map((r) => [r.line, r.message]));
    expect([...messages.keys()]).toEqual([2, 4, 5, 6, 7]);
    expect(messages.get(2)).toMatch(/departamento: .*required.*; municipio: .*required.*; codigoDepartamento: .*; codigoMunicipio: /);
    expect(messages.get(4)).toContain('code 23001 names Monteria on an earlier line');
    expect(messages.get(5)).toContain('needs the departamento’s code');
    expect(messages.get(6)).toContain('does not begin with the departamento');
    expect(messages.get(7)).toMatch(/^municipio: /);
  });

  it('refuses files it cannot read, bad options and people without the role', async () => {
    expectProblem(await upload('departamento,comuna\nX,Y'), 400, 'missing_columns');
    expectProblem(await upload('departamento,municipio\n"X,Y'), 400, 'malformed_csv');
    expectProblem(await upload('departamento,municipio\nX,Y', '?dryRun=maybe'), 400, 'validation_failed');
    expectProblem(await upload('departamento,municipio\nX,Y', '?other=1'), 400);
    expectProblem(await upload('departamento,municipio\nX,Y', '', viewer), 403);
    expectProblem(await app.http.post('/api/territories/import').set('Content-Type', 'text/csv').send('departamento,municipio\nX,Y'), 401);
    expectProblem(await app.http.post('/api/territories/import').set(manager.auth).send({ departamento: 'X' }), 415);
  });
});

describe('the Registraduría’s puestos files', () => {
  it('builds Bolívar from the georeferenced puestos, and matches it all again from the ;-separated census file with a BOM', async () => {
    const answer = await upload(BOLIVAR_GEOREF).expect(200);
    // 1 departamento, 46 municipios, 64 comunas, localidades and corregimientos (Magangué's 43 and 46 are both "Corregimiento Sabaneta": one place by name).
    expect(answer.body).toMatchObject({ created: 111, updated: 0, unchanged: 0, rejectedCount: 0 });
    const cartagena = (await territories('commune')).filter((t) => t.parent === 'Cartagena');
    expect(cartagena.map((t) => t.name)).toEqual(['Localidad 1 Historica y del Caribe', 'Localidad 2 La Virgen y Turistica', 'Localidad 3 Industrial de la Bahia']);
    expect(BOLIVAR_CENSUS.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
    const census = await upload(BOLIVAR_CENSUS).expect(200);
    expect(census.body).toMatchObject({ created: 0, updated: 0, unchanged: 111, rejectedCount: 0 });
  });

  it('imports the national file on an empty campaign: 33 departamentos, 1,121 municipios, and a second time changes nothing', async () => {
    const fresh = await startTestApp();
    try {
      const admin = await registerAdmin(fresh);
      const national = gunzipSync(readFileSync(join(FIXTURES, 'Camara_Senado_2026_georreferenciada.csv.gz')));
      const send = () => fresh.http.post('/api/territories/import').set(admin.auth).set('Content-Type', 'text/csv').send(national.toString('utf8'));
      const first = await send().expect(200);
      const count = async (type: string) => (await fresh.runtime.deps.db.first(sql<{ n: number }>`select count(*)::int as n from territories where type = ${type}`))!.n;
      expect(await count('department')).toBe(33);
      expect(await count('municipality')).toBe(1121);
      const communes = await count('commune');
      expect(communes).toBeGreaterThan(900);
      expect(first.body).toEqual({ dryRun: false, created: 33 + 1121 + communes, updated: 0, unchanged: 0, rejected: [], rejectedCount: 0 });
      const again = await send().expect(200);
      expect(again.body).toMatchObject({ created: 0, updated: 0, unchanged: first.body.created, rejectedCount: 0 });
    } finally {
      await fresh.close();
    }
  });
});
