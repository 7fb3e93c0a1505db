/**
 * The bare Socket.IO baseline of bench:gotv: an HTTP server whose `POST /report` takes
 * `{ voterId, stationId }` and a Socket.IO server (same version, same Redis streams adapter as
 * Comando) whose clients are in room `gotv` from the moment they connect — no authentication, no
 * validation, no database. Reports received within 100 ms go out as one `{ items }` broadcast whose
 * items have the shape and size of Comando's `gotv:turnout` items, so the clients receive the same
 * messages per second and the same bytes per message.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { createAdapter } from '@socket.io/redis-streams-adapter';
import { Redis } from 'ioredis';
import { Server } from 'socket.io';

const WINDOW_MS = 100;

async function main(): Promise<void> {
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/14';
  const prefix = process.env.REDIS_KEY_PREFIX ?? 'bench-baseline';
  const redis = new Redis(redisUrl);
  let pending: unknown[][] = [];
  let timer: NodeJS.Timeout | undefined;

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
      pending.push(['voter', randomUUID(), stationId, voterId]);
      timer ??= setTimeout(() => {
        timer = undefined;
        const items = pending;
        pending = [];
        io.to('gotv').emit('gotv:turnout', { items });
      }, WINDOW_MS);
      res.writeHead(201, { 'content-type': 'application/json' }).end('{"accepted":1}');
    });
  });
  const io = new Server(server, {
    path: '/socket.io',
    serveClient: false,
    adapter: createAdapter(redis, { streamName: `${prefix}:socket.io`, channelPrefix: `${prefix}:socket.io`, blockTimeInMs: 1000 }),
  });
  io.on('connection', (socket) => void socket.join('gotv'));

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
