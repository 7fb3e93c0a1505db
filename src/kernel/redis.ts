import { Redis } from 'ioredis';
import type { Logger } from 'pino';

/** How long a command may take while the process starts, before it gives up starting. */
const STARTUP_COMMAND_TIMEOUT_MS = 15_000;
/** The longest wait between two attempts to reconnect. */
const RECONNECT_MAX_DELAY_MS = 500;

/**
 * A Redis connection for commands. Pub/sub and blocking reads need connections of their own:
 * take them with `client.duplicate()`. Call `reportOutages` on every one, and `failFastOnceServing`
 * on connections that requests wait on, once start-up is over.
 */
export function createRedis(url: string): Redis {
  return new Redis(url, {
    // Fail fast at start-up instead of queueing commands forever when Redis is down.
    maxRetriesPerRequest: 3,
    enableReadyCheck: true,
    lazyConnect: true,
    // A slow Redis (or machine) at start-up is waited for; one silent this long is down.
    commandTimeout: STARTUP_COMMAND_TIMEOUT_MS,
    // Commands issued in the same tick (rate limits, publishes) go out in one write.
    enableAutoPipelining: true,
    // ioredis waits up to 2 s between attempts after a long outage, so a Redis back after one was
    // found up to 2 s late (screens heard `resync` 2.7 s after it returned); a refused attempt costs nothing.
    retryStrategy: (attempt: number) => Math.min(attempt * 50, RECONNECT_MAX_DELAY_MS),
  });
}

/**
 * From now on no request waits on Redis: a command unanswered after `commandTimeoutMs` fails (rate
 * limits, windows and gates fall back in process), and one sent while the connection is down fails
 * at once rather than waiting in the offline queue (a capture waited up to 27 s on a stopped
 * Redis). Start-up has neither: a process starting while Redis is slow waits for it (up to
 * 15 s a command) rather than failing to start. ioredis reads both options at every command.
 */
export function failFastOnceServing(client: Redis, commandTimeoutMs: number): void {
  client.options.enableOfflineQueue = false;
  client.options.commandTimeout = commandTimeoutMs;
}

/**
 * One warning when a connection goes down and one when it is back, instead of a stack trace per
 * reconnection attempt (ioredis prints "Unhandled error event" for connections without a listener).
 */
export function reportOutages(client: Redis, name: string, logger: Logger): void {
  let down = false;
  client.on('error', (error: Error) => {
    if (down) return;
    down = true;
    logger.warn({ redis: name, errorName: error.name, code: (error as { code?: string }).code }, 'redis unreachable; falling back where possible');
  });
  client.on('ready', () => {
    if (!down) return;
    down = false;
    logger.info({ redis: name }, 'redis reachable again');
  });
}

/** What ioredis sends on every (re)connection; some are refused by design on older servers (RESP3's HELLO, CLIENT SETINFO). */
const HANDSHAKE_COMMANDS = new Set(['hello', 'client', 'info', 'select', 'auth']);

/**
 * Counts the connection's failed commands (timeouts, refusals while it is down) in `failures`:
 * one shared handler per answer, nothing else on the command's path.
 */
export function countFailures(client: Redis, failures: { inc(): void }): void {
  const count = () => failures.inc();
  const send = client.sendCommand.bind(client);
  client.sendCommand = ((...args: Parameters<Redis['sendCommand']>) => {
    const answer = send(...args) as Promise<unknown>;
    if (!HANDSHAKE_COMMANDS.has(args[0].name)) answer.then(undefined, count);
    return answer;
  }) as Redis['sendCommand'];
}

/**
 * A connection whose answers to `methods` are caught, for callers that send them without waiting
 * for the answer (the Socket.IO adapter subscribes, saves a disconnected socket's session with SET
 * and sends some messages with PUBLISH that way): a failure, Redis being down, would otherwise be
 * an unhandled rejection, which ends the process. Callers that wait still get the failure.
 */
export function catchUnawaitedAnswers(client: Redis, ...methods: ('subscribe' | 'set' | 'publish')[]): Redis {
  const commands = client as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
  for (const method of methods) {
    const send = commands[method]!.bind(client);
    commands[method] = (...args: unknown[]) => {
      const answer = send(...args);
      answer.catch(() => undefined);
      return answer;
    };
  }
  return client;
}

/**
 * Resolves once a connection that is still connecting is ready (or has failed), at most after
 * `timeoutMs`. Cut mid-handshake, ioredis rejects its own handshake commands (HELLO, SELECT) with
 * nobody to catch them: an unhandled rejection in a process stopped just after it started.
 */
export function handshakeDone(client: Redis, timeoutMs: number): Promise<void> {
  if (client.status !== 'connecting' && client.status !== 'connect') return Promise.resolve();
  return new Promise((resolve) => {
    const events = ['ready', 'end', 'error'] as const;
    const done = () => {
      clearTimeout(timer);
      for (const event of events) client.off(event, done);
      resolve();
    };
    const timer = setTimeout(done, timeoutMs);
    for (const event of events) client.once(event, done);
  });
}
