/**
 * `npm run bench:realtime-outage`: what two Comando processes' screens hear when Redis goes away.
 *
 * Two production servers (`npm start`'s options) share a bench database and a redis-server of the
 * run's own (no persistence, on a free port). A screen on each (socket.io-client, websocket) follows
 * `territories`; the harness creates a territory on the second process every 250 ms throughout.
 *
 * 1. Baseline: 20 territories created on the second process, one at a time; the time from the
 *    request to the first process's screen hearing `territories:created`.
 * 2. Redis stopped: redis-server is killed (SIGKILL) and started again, empty, after
 *    BENCH_SECONDS (default 30, as in the audit that measured 2.7 s from its return to the screens'
 *    `resync`). Beside the servers, a bare ioredis client with the library's default
 *    reconnection (what Comando used before) shows when it finds Redis back.
 * 3. Redis frozen: SIGSTOP for a third as long (10 s by default, 3 s at least), then SIGCONT: connections stay
 *    open and nothing answers, as in a network partition.
 *
 * For 2 and 3: when each process found its link lost (its log line, against the moment Redis
 * stopped), when each screen heard `resync` after Redis was back, and how many of the territories
 * created in between reached the other process's screen, and how late they reached the second
 * process's own screen. Goals: link lost within 2 s, `resync`
 * within 2 s of Redis answering again; exits 1 when a goal is missed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { io, type Socket } from 'socket.io-client';
import { benchDatabase, callJson, comandoServer, freePort, onInterrupt, registerFirstAdmin, settings, startServer, type RunningServer } from './lib';
import { publish, runBenchmark } from './report';

const OUTAGE_S = settings.seconds ?? 30;
/** Long enough for the link watch to notice (about 1.5 s) even in a short run. */
const FREEZE_S = Math.max(3, Math.round(OUTAGE_S / 3));
const goals = { detectMs: 2000, resyncMs: 2000 };
const db = benchDatabase('comando_bench_realtime_outage');
const LOST_MESSAGE = 'link to the other processes lost';

const log = (line: string) => process.stdout.write(`${line}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const ms = (value: number | undefined) => (value === undefined || !Number.isFinite(value) ? 'never' : `${Math.round(value)} ms`);

function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('Ready to accept connections')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`redis-server exited with ${code}`)));
  });
}

async function stopRedis(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

interface Heard {
  at: number;
  name: string;
  payload: { name?: string; reason?: string; rooms?: string[] };
}

async function screen(url: string, token: string): Promise<{ socket: Socket; heard: Heard[] }> {
  const socket = io(url, { path: '/socket.io', transports: ['websocket'], auth: { token }, forceNew: true });
  const heard: Heard[] = [];
  socket.onAny((name: string, payload: Heard['payload']) => heard.push({ at: Date.now(), name, payload }));
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('connect_error', reject);
  });
  const ack = (await socket.timeout(5000).emitWithAck('subscribe', { rooms: ['territories'] })) as { joined: string[] };
  if (!ack.joined.includes('territories')) throw new Error('could not join territories');
  return { socket, heard };
}

/** When the server's log says the link was lost, first at or after `since` (pino's `time`, epoch ms). */
function linkLostAt(server: RunningServer, since: number): number | undefined {
  for (const line of readFileSync(server.logFile, 'utf8').split('\n')) {
    if (!line.includes(LOST_MESSAGE)) continue;
    const time = (JSON.parse(line) as { time: number }).time;
    if (time >= since) return time;
  }
  return undefined;
}

function median(values: number[]): number | undefined {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function until<T>(find: () => T | undefined, timeoutMs: number): Promise<T | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = find();
    if (found !== undefined || Date.now() > deadline) return found;
    await sleep(10);
  }
}

runBenchmark(async () => {
  await db.recreate();
  const redisPort = await freePort();
  let redis = await startRedis(redisPort);
  const prefix = `bench-outage-${randomBytes(3).toString('hex')}`;
  const jwtSecret = randomBytes(32).toString('hex');
  const servers: RunningServer[] = [];
  onInterrupt(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await stopRedis(redis);
    await db.drop();
  });
  const env = { REDIS_URL: `redis://127.0.0.1:${redisPort}/0` };
  try {
    const first = await startServer(comandoServer({ name: 'outage-a', databaseUrl: db.url, redisKeyPrefix: prefix, jwtSecret, env }));
    servers.push(first);
    const second = await startServer(comandoServer({ name: 'outage-b', databaseUrl: db.url, redisKeyPrefix: prefix, jwtSecret, env }));
    servers.push(second);
    const token = await registerFirstAdmin(first.url);
    const screens = [await screen(first.url, token), await screen(second.url, token)];
    let sequence = 0;
    const create = async () => {
      const name = `Barrio ${(sequence += 1)}`;
      const started = Date.now();
      await callJson(`${second.url}/api/territories`, { body: { name, type: 'neighbourhood' }, token, expect: 201 });
      return { name, started };
    };
    const heardBy = (target: Heard[], name: string) => target.find((event) => event.name === 'territories:created' && event.payload.name === name);

    const latencies: number[] = [];
    for (let i = 0; i < 20; i += 1) {
      const { name, started } = await create();
      const event = await until(() => heardBy(screens[0]!.heard, name), 5000);
      if (event) latencies.push(event.at - started);
    }
    const baselineMs = median(latencies)!;
    log(`cross-process event, median of ${latencies.length}: ${baselineMs} ms`);

    interface Outcome {
      scenario: string;
      detect: (number | undefined)[];
      resync: (number | undefined)[];
      reasons: string;
      created: number;
      delivered: number;
      /** Median delay of B's own screen hearing what B accepted meanwhile. */
      localMs?: number;
      defaultClientMs?: number;
    }
    const outcomes: Outcome[] = [];

    const outage = async (scenario: string, stop: () => Promise<void>, seconds: number, resume: () => Promise<void>, defaultClient?: Redis) => {
      const stoppedAt = Date.now();
      await stop();
      const accepted: { name: string; started: number }[] = [];
      const deadline = stoppedAt + seconds * 1000;
      while (Date.now() < deadline) {
        const answer = await create().catch(() => undefined);
        if (answer) accepted.push(answer);
        await sleep(250);
      }
      const names = accepted.map((answer) => answer.name);
      let defaultReady: Promise<number> | undefined;
      if (defaultClient) defaultReady = new Promise((resolve) => defaultClient.once('ready', () => resolve(Date.now())));
      await resume();
      const backAt = Date.now();
      const resyncs = await Promise.all(screens.map(({ heard }) => until(() => heard.find((event) => event.name === 'resync' && event.at >= backAt), 30_000)));
      await sleep(2000);
      const defaultAt = defaultReady ? await Promise.race([defaultReady, sleep(10_000).then(() => undefined)]) : undefined;
      const reasons = [
        ...new Set(screens.flatMap(({ heard }) => heard.filter((event) => event.name === 'resync' && event.at >= backAt).map((event) => event.payload.reason))),
      ].join(', ');
      const outcome: Outcome = {
        scenario,
        detect: servers.map((server) => {
          const at = linkLostAt(server, stoppedAt);
          return at === undefined ? undefined : at - stoppedAt;
        }),
        resync: resyncs.map((event) => (event ? event.at - backAt : undefined)),
        reasons,
        created: names.length,
        delivered: names.filter((name) => heardBy(screens[0]!.heard, name)).length,
        localMs: median(accepted.map(({ name, started }) => (heardBy(screens[1]!.heard, name)?.at ?? Infinity) - started)),
        ...(defaultAt === undefined ? {} : { defaultClientMs: defaultAt - backAt }),
      };
      outcomes.push(outcome);
      log(JSON.stringify(outcome));
      // Live again before the next scenario.
      const { name } = await create();
      await until(() => heardBy(screens[0]!.heard, name), 10_000);
    };

    const defaultClient = new Redis(redisPort, '127.0.0.1');
    defaultClient.on('error', () => undefined);
    await new Promise((resolve) => defaultClient.once('ready', resolve));
    await outage(
      `Redis stopped (SIGKILL) for ${OUTAGE_S} s, started again empty`,
      () => stopRedis(redis),
      OUTAGE_S,
      async () => {
        redis = await startRedis(redisPort);
      },
      defaultClient,
    );
    defaultClient.disconnect();
    await outage(
      `Redis frozen (SIGSTOP) for ${FREEZE_S} s, then SIGCONT`,
      async () => void redis.kill('SIGSTOP'),
      FREEZE_S,
      async () => void redis.kill('SIGCONT'),
    );

    for (const { socket } of screens) socket.close();
    const rows = outcomes.map((outcome) => [
      outcome.scenario,
      outcome.detect.map(ms).join(' / '),
      outcome.resync.map(ms).join(' / '),
      outcome.reasons,
      `${outcome.delivered} of ${outcome.created}`,
      ms(outcome.localMs),
      outcome.defaultClientMs === undefined ? '–' : ms(outcome.defaultClientMs),
    ]);
    const worstDetect = Math.max(...outcomes.flatMap((outcome) => outcome.detect.map((value) => value ?? Infinity)));
    const worstResync = Math.max(...outcomes.flatMap((outcome) => outcome.resync.map((value) => value ?? Infinity)));
    publish({
      id: 'realtime-outage',
      title: 'Realtime across a Redis outage',
      command: 'npm run bench:realtime-outage',
      blocks: [
        `Two production servers (A, B) on one database and a redis-server of the run's own; a screen on each
follows \`territories\`, and the harness creates a territory on B every 250 ms throughout. Baseline:
a territory created on B reaches A's screen in ${baselineMs} ms (median of ${latencies.length}, Redis up).
"Link lost" is each process's log line against the moment Redis stopped; "resync" is when each
screen heard it against the moment Redis was started again (or continued); "reached A" counts the
territories B accepted meanwhile that A's screen heard, and the next column how late B's own screen
heard them (an event goes to a process's own sockets once Redis has taken it, or failed). The last column is a bare ioredis client
with the library's default reconnection (what Comando used before): when it found Redis back.`,
        { header: ['Scenario', 'Link lost (A / B)', 'resync heard (A / B)', 'Reasons heard', 'Reached A', "B's screen, median delay", 'Default ioredis back'], rows },
        {
          goals: [
            {
              goal: 'Link lost noticed by each process, after Redis stopped (worst)',
              target: `≤ ${goals.detectMs} ms`,
              measured: ms(worstDetect),
              pass: worstDetect <= goals.detectMs,
            },
            {
              goal: 'Screens hear `resync` after Redis answers again (worst)',
              target: `≤ ${goals.resyncMs} ms`,
              measured: ms(worstResync),
              pass: worstResync <= goals.resyncMs,
            },
          ],
        },
      ],
    });
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
    await stopRedis(redis);
    await db.drop();
  }
});
