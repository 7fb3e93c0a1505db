/**
 * `npm run bench:metrics`: what a Prometheus scrape of `GET /metrics` costs on a busy process.
 *
 * Comando's production build on a fresh bench database and Redis, with 2,000 socket.io clients
 * connected (websocket, as the screens) and each following the rooms a manager may join, so the
 * scrape walks as many room memberships as an election day's war rooms and phones make. Then, in the
 * same server one after the other, `GET /api/test` (the baseline) and `GET /metrics` (with its token)
 * are each loaded by one connection, as a scraper does (autocannon, warm-up then measured run). Goal:
 * the scrape's p99 ≤ 50 ms. Its ratio to the baseline is reported for reading across machines.
 *
 * Results are printed and written to the "metrics" section of docs/benchmarks.md. Exits 1 when the
 * goal is missed or the run fails. BENCH_METRICS_SOCKETS changes the number of clients.
 */
import { randomBytes } from 'node:crypto';
import { io, type Socket } from 'socket.io-client';
import {
  benchDatabase,
  benchRedisUrl,
  callJson,
  comandoServer,
  cpuProfileArgs,
  deleteRedisKeys,
  machineNote,
  markdownTable,
  measure,
  onInterrupt,
  registerFirstAdmin,
  withServer,
  writeDocSection,
  type Measurement,
} from './lib';

const SOCKETS = Number(process.env.BENCH_METRICS_SOCKETS ?? 2000);
const ROOMS = ['gotv', 'dashboard', 'pqrs', 'whatsapp:inbox', 'territories'];
const goal = { p99Ms: 50 };
const db = benchDatabase(process.env.BENCH_METRICS_DB ?? 'comando_bench_metrics');
const REDIS_KEY_PREFIX = 'bench-metrics';
const TOKEN = randomBytes(24).toString('hex');

function connect(url: string, token: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = io(url, { path: '/socket.io', transports: ['websocket'], auth: { token }, reconnection: false, forceNew: true });
    socket.once('connect', () => {
      socket
        .timeout(10_000)
        .emitWithAck('subscribe', { rooms: ROOMS })
        .then(() => resolve(socket), reject);
    });
    socket.once('connect_error', reject);
  });
}

/** Opens the clients a hundred at a time (the server's handshakes are what is slow). */
async function connectAll(url: string, token: string): Promise<Socket[]> {
  const sockets: Socket[] = [];
  for (let start = 0; start < SOCKETS; start += 100) {
    const batch = await Promise.all(Array.from({ length: Math.min(100, SOCKETS - start) }, () => connect(url, token)));
    sockets.push(...batch);
  }
  return sockets;
}

const row = (name: string, m: Measurement) => [name, m.requestsPerSecond.toFixed(0), m.p50Ms.toFixed(1), m.p99Ms.toFixed(1), String(m.errors + m.non2xx)];

async function main(): Promise<void> {
  const machine = machineNote();
  await db.recreate();
  onInterrupt(() => db.drop());
  let sockets: Socket[] = [];
  try {
    const results = await withServer(
      comandoServer({
        name: 'comando-metrics',
        databaseUrl: db.url,
        redisKeyPrefix: REDIS_KEY_PREFIX,
        nodeArgs: cpuProfileArgs(),
        logLevel: 'warn',
        env: { METRICS_TOKEN: TOKEN },
      }),
      async (server) => {
        const adminToken = await registerFirstAdmin(server.url);
        const manager = await callJson<{ token?: string }>(`${server.url}/api/auth/register`, {
          token: adminToken,
          body: { email: 'bench-manager@example.org', password: 'bench-password-123', name: 'Bench Manager', role: 'manager' },
          expect: 201,
        });
        const started = performance.now();
        sockets = await connectAll(server.url, manager.token ?? adminToken);
        const connectSeconds = (performance.now() - started) / 1000;
        const scrape = await (await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).text();
        const connected = /comando_socket_room_members\{kind="connected"\} (\d+)/.exec(scrape)?.[1];
        if (Number(connected) !== SOCKETS) throw new Error(`the scrape counts ${connected} sockets, not ${SOCKETS}`);
        const baseline = await measure({ url: `${server.url}/api/test`, connections: 1, serverPid: server.pid });
        const metrics = await measure({ url: `${server.url}/metrics`, connections: 1, headers: { authorization: `Bearer ${TOKEN}` }, serverPid: server.pid });
        return { baseline, metrics, connectSeconds, bytes: Buffer.byteLength(scrape), series: scrape.split('\n').filter((line) => line && !line.startsWith('#')).length };
      },
    );
    const { baseline, metrics } = results;
    const pass = metrics.p99Ms <= goal.p99Ms && metrics.errors + metrics.non2xx === 0;
    const markdown = [
      '## Metrics scrape with 2,000 sockets',
      '',
      `\`npm run bench:metrics\`, ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC. ${machine}.`,
      '',
      `${SOCKETS} socket.io clients connected (websocket, ${results.connectSeconds.toFixed(1)} s to connect them), each in ${ROOMS.length} rooms (${ROOMS.join(', ')}); ` +
        `one connection loading each route, one after the other in the same server. A scrape is ${(results.bytes / 1024).toFixed(0)} KiB, ${results.series} samples.`,
      '',
      markdownTable(['Route', 'req/s', 'p50 ms', 'p99 ms', 'errors'], [row('GET /api/test (baseline)', baseline), row('GET /metrics', metrics)]),
      '',
      `Scrape p99 / baseline p99: ${(metrics.p99Ms / Math.max(0.1, baseline.p99Ms)).toFixed(1)}×; server CPU per scrape ${(metrics.serverCpuUsPerRequest ?? 0).toFixed(0)} µs ` +
        `(baseline ${(baseline.serverCpuUsPerRequest ?? 0).toFixed(0)} µs per request).`,
      '',
      markdownTable(
        ['Goal', 'Target', 'Measured', 'Result'],
        [['Scrape p99 with the sockets connected', `≤ ${goal.p99Ms} ms`, `${metrics.p99Ms.toFixed(1)} ms`, pass ? 'PASS' : 'FAIL']],
      ),
    ].join('\n');
    console.log(markdown);
    writeDocSection('metrics', markdown);
    if (!pass) process.exitCode = 1;
  } finally {
    for (const socket of sockets) socket.close();
    await db.drop();
    await deleteRedisKeys(benchRedisUrl, REDIS_KEY_PREFIX);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
