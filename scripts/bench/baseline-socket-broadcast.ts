/**
 * The bare Socket.IO baseline of bench:gotv: an HTTP server whose `POST /report` takes
 * `{ voterId, stationId }` and a Socket.IO server (same version, same Redis streams adapter as
 * Comando) whose clients are in room `gotv` from the moment they connect — no authentication, no
 * validation, no database. Reports received within 100 ms go out as one broadcast packed as
 * Comando's `gotv:turnout` is (with its encoder), so the clients receive the same messages per
 * second and the same bytes per message. Like Comando's, the window is shared by both
 * processes: the one started with WINDOW_OWNER=1 batches and broadcasts; the other forwards each
 * report to it (`serverSideEmit`, through the same adapter). The owner also pushes the
 * `gotv:projection` Comando pushed in a run of this benchmark (recorded: gotv-projection-push.ts) as
 * often as Comando pushes it, so that the clients read the same messages from both.
 */
import http from 'node:http';
import { createAdapter } from '@socket.io/redis-streams-adapter';
import { Redis } from 'ioredis';
import { Server } from 'socket.io';
import type { TurnoutItem } from '../../src/modules/gotv/gotv.events';
import { encodeTurnout } from '../../src/modules/gotv/gotv.turnout-wire';
import { projectionPushSeconds, recordedProjectionPush } from './gotv-projection-push';

const WINDOW_MS = 100;

async function main(): Promise<void> {
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/14';
  const prefix = process.env.REDIS_KEY_PREFIX ?? 'bench-baseline';
  const redis = new Redis(redisUrl);
  const owner = process.env.WINDOW_OWNER === '1';
  let pending: TurnoutItem[] = [];
  let timer: NodeJS.Timeout | undefined;
  const add = (item: TurnoutItem) => {
    pending.push(item);
    timer ??= setTimeout(() => {
      timer = undefined;
      const items = pending;
      pending = [];
      io.to('gotv').emit('gotv:turnout', encodeTurnout(items));
    }, WINDOW_MS);
  };

  const server = http.createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/healthz') {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      return;
    }
    if (req.method !== 'POST' || req.url !== '/report') {
      res.writeHead(404).end();
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const { voterId, stationId } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { voterId: string; stationId: string };
      const item: TurnoutItem = ['voter', stationId, voterId];
      if (owner) add(item);
      else io.serverSideEmit('report', item);
      res.writeHead(201, { 'content-type': 'application/json' }).end('{"accepted":1}');
    });
  });
  const io = new Server(server, {
    path: '/socket.io',
    serveClient: false,
    adapter: createAdapter(redis, { streamName: `${prefix}:socket.io`, channelPrefix: `${prefix}:socket.io`, blockTimeInMs: 1000 }),
  });
  io.on('connection', (socket) => void socket.join('gotv'));
  if (owner) io.on('report', (item: TurnoutItem) => add(item));
  if (owner) {
    setInterval(() => io.to('gotv').emit('gotv:projection', { ...recordedProjectionPush, generatedAt: new Date().toISOString() }), projectionPushSeconds * 1000).unref();
  }

  const port = Number(process.env.PORT ?? 0);
  server.listen(port, process.env.HOST ?? '127.0.0.1');
  process.once('SIGTERM', () => {
    void io.close(() => {
      redis.disconnect();
      process.exit(0);
    });
  });
}

void main();
