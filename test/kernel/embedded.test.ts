import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { until } from '../helpers/wait';

/**
 * `npm start` on a fresh machine: no DATABASE_URL, no REDIS_URL, no JWT_SECRET. The real entry
 * point runs in a child process on the embedded PostgreSQL, and is stopped with SIGTERM.
 */
jest.setTimeout(90_000);

const root = path.resolve(__dirname, '../..');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'comando-embedded-'));

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

interface Started {
  child: ChildProcess;
  url: string;
  output: () => string;
  exited: Promise<number | null>;
}

async function start(port: number, pgPort: number): Promise<Started> {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, DATA_DIR: dataDir, PORT: String(port), EMBEDDED_PG_PORT: String(pgPort), LOG_LEVEL: 'info' };
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await until(
    () => {
      if (child.exitCode !== null) throw new Error(`did not start:\n${output}`);
      return output.includes('Comando listening');
    },
    60_000,
    'the process to listen',
  );
  return { child, url: `http://127.0.0.1:${port}`, output: () => output, exited };
}

let running: Started | undefined;
afterAll(async () => {
  if (running?.child.exitCode === null) {
    running.child.kill('SIGTERM');
    await running.exited;
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
});

it('starts on the embedded PostgreSQL, serves the API, drains in-flight requests on SIGTERM and keeps its data', async () => {
  const [port, pgPort] = [await freePort(), await freePort()];
  running = await start(port, pgPort);
  const http = request(running.url);
  await http.get('/api/test').expect(200, { status: 'ok', service: 'comando', version: '1.0' });
  await http.get('/readyz').expect(200, { status: 'ready', checks: { database: 'ok', redis: 'not_configured' } });
  const credentials = { email: 'first@example.org', password: 'a long enough password' };
  const registered = await http
    .post('/api/auth/register')
    .send({ ...credentials, name: 'First' })
    .expect(201);
  expect(registered.body.user.role).toBe('admin');
  const auth = { Authorization: `Bearer ${registered.body.token}` };
  await http.post('/api/territories').set(auth).send({ name: 'Bosa', type: 'commune' }).expect(201);

  // A request still arriving when SIGTERM comes is answered before the process exits.
  const body = JSON.stringify({ email: 'nobody@example.org', password: 'whatever it is' });
  const socket = net.connect(port, '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  let answer = '';
  socket.on('data', (chunk) => (answer += chunk));
  socket.write(`POST /api/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 10)}`);
  // Time for the server to read the request's head: nothing outside the process shows that it has.
  await new Promise((resolve) => setTimeout(resolve, 300));
  running.child.kill('SIGTERM');
  const started = running;
  await until(() => started.output().includes('shutting down'), 10_000, 'the shutdown to begin');
  socket.write(body.slice(10));
  expect(await running.exited).toBe(0);
  expect(answer).toMatch(/^HTTP\/1\.1 401/);
  expect(running.output()).toContain('shutdown complete');

  // Same DATA_DIR: same database, same signing secret.
  running = await start(port, pgPort);
  const again = request(running.url);
  await again.get('/api/auth/me').set(auth).expect(200);
  await again.post('/api/auth/login').send(credentials).expect(200);
  const territories = await again.get('/api/territories').set(auth).expect(200);
  expect(territories.body.data.map((territory: { name: string }) => territory.name)).toEqual(['Bosa']);
});
