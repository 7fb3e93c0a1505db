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
 * Exits 1 when the goal is missed or the run fails. BENCH_SCALE changes the number of clients.
 */
import { randomBytes } from 'node:crypto';
import { io, type Socket } from 'socket.io-client';
import { benchDatabase, benchRedisUrl, callJson, comandoServer, cpuProfileArgs, deleteRedisKeys, measure, onInterrupt, registerFirstAdmin, scaled, withServer } from './lib';
import { atMost, loadTable, noErrors, publish, runBenchmark } from './report';

const SOCKETS = scaled(2000);
const ROOMS = ['gotv', 'dashboard', 'pqrs', 'whatsapp:inbox', 'territories'];
const goal = { p99Ms: 50 };
const db = benchDatabase('comando_bench_metrics');
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

runBenchmark(async () => {
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
    publish({
      id: 'metrics',
      title: 'Metrics scrape with 2,000 sockets',
      command: 'npm run bench:metrics',
      blocks: [
        `${SOCKETS} socket.io clients connected (websocket, ${results.connectSeconds.toFixed(1)} s to connect them), each in ${ROOMS.length} rooms (${ROOMS.join(', ')}); ` +
          `one connection loading each route, one after the other in the same server. A scrape is ${(results.bytes / 1024).toFixed(0)} KiB, ${results.series} samples.`,
        loadTable([
          { target: 'GET /api/test (baseline)', m: baseline },
          { target: 'GET /metrics', m: metrics, vs: { baseline, name: '/api/test' } },
        ]),
        {
          goals: [
            atMost('Scrape p99 with the sockets connected', metrics.p99Ms, goal.p99Ms, { digits: 1, unit: ' ms' }),
            noErrors('No errors or non-2xx answers', [baseline, metrics]),
          ],
        },
      ],
    });
  } finally {
    for (const socket of sockets) socket.close();
    await db.drop();
    await deleteRedisKeys(benchRedisUrl, REDIS_KEY_PREFIX);
  }
});
