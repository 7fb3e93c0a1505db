import { spawn, type ChildProcess } from 'node:child_process';
import { connect, createServer, type Socket } from 'node:net';
import { Redis } from 'ioredis';

/** A free TCP port on the loopback, for a Redis of a test's own (stopping it disturbs no other test). */
export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** A private redis-server without persistence; resolves once it accepts connections. */
export function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('Ready to accept connections')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`redis-server exited with ${code}`)));
  });
}

/** Stops a private redis-server and waits until it has exited (its pipes would keep the test process alive). */
export async function stopRedis(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

/** How many connections the private redis-server on `port` holds, this probe's own left out. */
export async function connectedClients(port: number): Promise<number> {
  const probe = new Redis(port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  try {
    await probe.connect();
    const list = (await probe.client('LIST')) as string;
    return list.trim().split('\n').length - 1;
  } finally {
    probe.disconnect();
  }
}

export interface SlowRelay {
  port: number;
  /** How long every reply from Redis is held back; change it at any time. */
  delayMs: number;
  close(): Promise<void>;
}

/**
 * A TCP relay in front of the Redis on `targetPort` that holds back each of Redis's replies by
 * `delayMs`, in order: a Redis (or a machine) that answers slowly.
 */
export async function slowRelay(targetPort: number): Promise<SlowRelay> {
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(targetPort, '127.0.0.1');
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
    }
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.pipe(upstream);
    let released = Promise.resolve();
    upstream.on('data', (chunk: Buffer) => {
      const due = Date.now() + relay.delayMs;
      released = released.then(() => new Promise((resolve) => setTimeout(resolve, Math.max(0, due - Date.now())))).then(() => void (client.destroyed || client.write(chunk)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const relay: SlowRelay = {
    port: (server.address() as { port: number }).port,
    delayMs: 0,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
  return relay;
}

export interface CuttableRelay {
  port: number;
  /**
   * Cuts the way to Redis. `silent`: the network goes quiet, as in a partition (connections stay
   * open, nothing passes either way, bytes are held as TCP would retransmit them); `reset`: every
   * connection is dropped and new ones are refused, while Redis keeps its data.
   */
  cut(mode: 'silent' | 'reset'): void;
  /** Lets traffic through again; what a silent cut held back is delivered first, in order. */
  restore(): void;
  close(): Promise<void>;
}

/** A TCP relay in front of the Redis on `targetPort` that a test can cut and restore. */
export async function cuttableRelay(targetPort: number): Promise<CuttableRelay> {
  const sockets = new Set<Socket>();
  let mode: 'open' | 'silent' | 'reset' = 'open';
  /** Per direction of each connection, what a silent cut holds back. */
  const held = new Map<Socket, Buffer[]>();
  const forward = (to: Socket, chunk: Buffer) => {
    const queue = held.get(to);
    if (queue) queue.push(chunk);
    else if (mode === 'silent') held.set(to, [chunk]);
    else if (!to.destroyed) to.write(chunk);
  };
  const server = createServer((client) => {
    const upstream = connect(targetPort, '127.0.0.1');
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => {
        sockets.delete(socket);
        held.delete(socket);
      });
      socket.on('error', () => undefined);
    }
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.on('data', (chunk: Buffer) => forward(upstream, chunk));
    upstream.on('data', (chunk: Buffer) => forward(client, chunk));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    port,
    cut(next) {
      mode = next;
      if (next !== 'reset') return;
      // Refused rather than accepted and closed: a handshake cut short leaves ioredis timers behind.
      server.close();
      for (const socket of sockets) socket.destroy();
    },
    restore() {
      if (mode === 'reset') server.listen(port, '127.0.0.1');
      mode = 'open';
      for (const [socket, chunks] of held) if (!socket.destroyed) for (const chunk of chunks) socket.write(chunk);
      held.clear();
    },
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        if (server.listening) server.close(() => resolve());
        else resolve();
      }),
  };
}
