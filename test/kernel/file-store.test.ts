import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config';
import { createFileStore, type FileStore } from '../../src/kernel/file-store';
import { startTestApp, type TestApp } from '../helpers/app';
import { FILE_STORES, fileStoreEnv, s3Env, storedBytes, storedNames } from '../helpers/file-stores';
import { freePort } from '../helpers/redis-server';
import { createUser, expectProblem, registerAdmin } from '../helpers/users';

const PDF = Buffer.from('%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\n%%EOF\n');
const dirs: string[] = [];
const tempDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'comando-files-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => dirs.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

describe.each(FILE_STORES)('the %s file store', (kind) => {
  let files: FileStore;
  beforeAll(async () => {
    files = createFileStore(loadConfig({ DATA_DIR: tempDir(), ...(await fileStoreEnv(kind)) }).files);
  });
  afterAll(() => files.close());

  it('shows a staged file only once it is placed, and a discarded one never', async () => {
    const area = files.area('tests/staging');
    const staged = await area.stage('first', Buffer.from('uno'));
    expect(await area.read('first')).toBeUndefined();
    expect(await storedNames(files, 'tests/staging', { staged: true })).toEqual([expect.stringMatching(/^\.first\.[0-9a-f]{12}\.part$/)]);
    await staged.place();
    expect(await storedBytes(files, 'tests/staging', 'first')).toEqual(Buffer.from('uno'));
    expect(await area.sizeOf('first')).toBe(3);

    // A replacement lands whole; a discarded one leaves the placed file as it was.
    await (await area.stage('first', Buffer.from('dos!'))).place();
    const dropped = await area.stage('first', Buffer.from('never'));
    await dropped.discard();
    expect(await storedBytes(files, 'tests/staging', 'first')).toEqual(Buffer.from('dos!'));
    expect(await storedNames(files, 'tests/staging', { staged: true })).toEqual(['first']);
  });

  it('lists an area with sizes and times, removes files (twice is no error) and keeps areas apart', async () => {
    const before = Date.now() - 5_000;
    await files.area('tests/list').put('a@b.eml', Buffer.from('x'.repeat(10)));
    await files.area('tests/list-other').put('c', Buffer.from('y'));
    const [entry, ...rest] = await files.area('tests/list').list();
    expect(rest).toEqual([]);
    expect(entry).toMatchObject({ name: 'a@b.eml', size: 10 });
    expect(entry!.modifiedAt.getTime()).toBeGreaterThan(before);
    await files.area('tests/list').remove('a@b.eml');
    await files.area('tests/list').remove('a@b.eml');
    expect(await files.area('tests/list').list()).toEqual([]);
    expect(await files.area('tests/empty').list()).toEqual([]);
    expect(await files.area('tests/list').sizeOf('a@b.eml')).toBeUndefined();
  });

  it('refuses names that could leave their area', async () => {
    const area = files.area('tests/names');
    for (const name of ['../escape', 'a/b', '.hidden', '', 'a b']) await expect(area.stage(name, Buffer.from('x'))).rejects.toThrow(/stored file name/);
    expect(() => files.area('Tests/../x')).toThrow(/file area/);
  });
});

describe('an S3 store that cannot be reached', () => {
  let app: TestApp;
  afterAll(() => app?.close());

  it('answers an upload 503 busy with Retry-After, not a 500, and records no attachment', async () => {
    const closedPort = await freePort();
    app = await startTestApp({ DATA_DIR: tempDir(), ...(await s3Env()), S3_ENDPOINT: `http://127.0.0.1:${closedPort}` }, { workers: false });
    const admin = await registerAdmin(app);
    const manager = await createUser(app, admin, 'manager');
    const filed = await app.http
      .post('/api/pqrs')
      .send({ type: 'peticion', subject: 'Alumbrado', description: 'La calle 10 sigue sin alumbrado público.', name: 'Ana Pérez', phone: '300 555 0102', consent: true })
      .expect(201);
    const upload = await app.http.post(`/api/pqrs/${filed.body.id}/attachments`).set('X-Upload-Token', filed.body.uploadToken).set('Content-Type', 'application/pdf').send(PDF);
    expectProblem(upload, 503, 'busy');
    expect(upload.headers['retry-after']).toBe('10');
    const request = await app.http.get(`/api/pqrs/${filed.body.id}`).set(manager.auth).expect(200);
    expect(request.body.personal.attachments).toEqual([]);
  });
});

describe('two Comando processes on one S3 bucket', () => {
  let app: TestApp;
  afterAll(() => app?.close());

  it('one reads the attachment the other stored, each with a DATA_DIR of its own', async () => {
    const env = await s3Env();
    app = await startTestApp({ DATA_DIR: tempDir(), ...env }, { workers: false });
    const other = await app.sibling({ DATA_DIR: tempDir(), ...env });
    const admin = await registerAdmin(app);
    const manager = await createUser(app, admin, 'manager');
    const filed = await app.http
      .post('/api/pqrs')
      .send({ type: 'peticion', subject: 'Alumbrado', description: 'La calle 10 sigue sin alumbrado público.', name: 'Ana Pérez', phone: '300 555 0101', consent: true })
      .expect(201);
    const attached = await app.http
      .post(`/api/pqrs/${filed.body.id}/attachments`)
      .set('X-Upload-Token', filed.body.uploadToken)
      .set('Content-Type', 'application/pdf')
      .send(PDF)
      .expect(201);
    const read = await other.http.get(`/api/pqrs/${filed.body.id}/attachments/${attached.body.id}`).set(manager.auth).buffer(true).expect(200);
    expect(Buffer.from(read.body as Buffer)).toEqual(PDF);
    expect(await storedNames(other.runtime.deps.files, 'pqrs/attachments')).toEqual([attached.body.id]);
  });

  it('where each local store would not: the other process has no such file', async () => {
    const local = await startTestApp({ DATA_DIR: tempDir() }, { workers: false });
    try {
      const other = await local.sibling({ DATA_DIR: tempDir() });
      await local.runtime.deps.files.area('pqrs/attachments').put('only-here', PDF);
      expect(await other.runtime.deps.files.area('pqrs/attachments').read('only-here')).toBeUndefined();
    } finally {
      await local.close();
    }
  });
});
