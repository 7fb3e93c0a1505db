import type { Metrics } from './metrics';
import { randomUUID } from 'node:crypto';
import type { Server as HttpServer } from 'node:http';
import { Server, type Socket } from 'socket.io';
import { createAdapter } from '@socket.io/redis-streams-adapter';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { z } from 'zod';
import { AppError, ServiceBusyError, UnauthorizedError } from './errors';
import { sessionActor, type Authenticator } from './auth/authenticate';
import type { TokenClaims } from './auth/tokens';
import { roleAllowed, type Actor, type Role } from './auth/roles';

/**
 * Event names and payload types. Each module adds its own events by augmenting this interface
 * in its `<module>.events.ts`, so that `publish` is type-checked end to end.
 */
export interface RealtimeEvents {
  /**
   * To sockets that may have missed events in `rooms` (this process's link to Redis was down, a
   * publish to the other processes failed or may not have arrived, or a bulk change was not sent as
   * events): reload those rooms' figures from REST. Every room the socket is in after its process's
   * link was down; the rooms of the missed publishes otherwise; `[]` (all) after a bulk change.
   */
  resync: ResyncEvent;
}

export interface ResyncEvent {
  rooms: string[];
  /** `bulk_change`: a change too large to send as events (an import) was made; reload instead. */
  reason: 'redis_outage' | 'publish_failed' | 'bulk_change';
  at: string;
}

type BatchedEventName = { [K in keyof RealtimeEvents]: RealtimeEvents[K] extends { items: unknown[] } ? K : never }[keyof RealtimeEvents];
type BatchItem<K extends keyof RealtimeEvents> = RealtimeEvents[K] extends { items: (infer T)[] } ? T : never;

/**
 * A request a client may send over its socket instead of HTTP (a brigade phone reporting on a
 * flaky connection keeps one socket open). The ack carries `{ ok: true, result }` or
 * `{ ok: false, error: { code, message, errors?, retryAfter? } }`, the same codes as the HTTP
 * problems (`retryAfter` in seconds for a `busy` one, which the HTTP answer sends as a 503).
 */
export interface SocketCommand<T = unknown> {
  event: string;
  roles: readonly Role[];
  schema: z.ZodType<T>;
  handle: (input: T, actor: Actor) => Promise<unknown>;
}

/** Which roles may join the rooms whose names match `pattern`; declared by module manifests. */
export interface RoomRule {
  pattern: RegExp;
  roles: readonly Role[];
  description: string;
  /**
   * A further check of this user for this room, after the role's (a brigade member follows only
   * their own stations): the same rule the module's routes apply. A check that fails says no.
   */
  admits?: (actor: Actor, room: string) => Promise<boolean>;
}

export interface SubscribeAck {
  ok: boolean;
  joined: string[];
  denied: { room: string; code: 'unknown_room' | 'forbidden' }[];
  error?: { code: string; message: string };
}

const subscribeSchema = z.object({
  rooms: z.array(z.string().min(1).max(120)).min(1).max(50),
});

interface SocketData {
  actor: Actor;
  /** The handshake's verified claims: the session is checked again before each request the socket makes. */
  claims: TokenClaims;
}

/** How a cluster adapter hands a message to Redis (`ClusterAdapter.doPublish`, the method adapters implement). */
interface PublishingAdapter {
  doPublish?: (message: { type: number; data?: { opts?: { rooms?: string[] } } }) => Promise<unknown>;
}
/** socket.io-adapter's `MessageType.BROADCAST`: an event for sockets in other processes. */
const BROADCAST_MESSAGE = 3;
/** How long the adapter's stream read blocks; a closing process waits the current one out. */
const STREAM_BLOCK_MS = 1000;
/**
 * The adapter's connections drop and reconnect when a command has had no answer this long (ioredis
 * `socketTimeout`): longer than a blocking read, short enough that a silent network is left soon.
 */
export const ADAPTER_SOCKET_TIMEOUT_MS = STREAM_BLOCK_MS + 2000;
/** How often a process checks that the connection its events leave by answers. */
const HEARTBEAT_MS = 500;
/** The link is down once a check has gone unanswered this long. */
const LINK_TIMEOUT_MS = 1000;
/**
 * While the link stays up, missed publishes are announced at most this often: a Redis that answers
 * PING but refuses writes (out of memory) would otherwise have screens reload twice a second.
 */
const ANNOUNCE_INTERVAL_MS = 2000;

const USER_ROOM_PREFIX = 'user:';
const userRoom = (userId: string) => `${USER_ROOM_PREFIX}${userId}`;

/**
 * Appends a batch to a shared window and marks it appended (KEYS[3], for `WITHDRAW_FROM_WINDOW`);
 * 1 when this call opened the window (its caller flushes it). ioredis re-sends an unanswered
 * command after a reconnect: a copy of an append already carried out adds nothing (0), and one
 * of an append a withdrawal has settled is refused (−1), or its items would go out twice.
 */
const APPEND_TO_WINDOW = `local mark = redis.call('get', KEYS[3])
if mark == '1' then return 0 end
if mark then return -1 end
redis.call('rpush', KEYS[1], ARGV[2])
redis.call('set', KEYS[3], '1', 'PX', ARGV[3])
if redis.call('set', KEYS[2], '1', 'PX', ARGV[1], 'NX') then return 1 end
return 0`;

/**
 * After an append whose answer never came: 'absent' when it was never carried out, 'withdrawn' when
 * it was and its batch was taken back out of the window, 'taken' when a flush had already taken it.
 * A window left empty is closed, since the append may have opened it for a process that never heard.
 * The mark keeps the outcome: a withdrawal tried again (its own answer lost) gets the same one,
 * and the append arriving again is refused.
 */
const WITHDRAW_FROM_WINDOW = `local mark = redis.call('get', KEYS[3])
if mark and mark ~= '1' then return mark end
local outcome = 'absent'
if mark == '1' then
  if redis.call('lrem', KEYS[1], 1, ARGV[1]) == 0 then
    outcome = 'taken'
  else
    outcome = 'withdrawn'
    if redis.call('llen', KEYS[1]) == 0 then redis.call('del', KEYS[2]) end
  end
end
redis.call('set', KEYS[3], outcome, 'PX', ARGV[2])
return outcome`;

/**
 * Takes every item of a shared window and closes it, atomically: the next append opens a new one.
 * The items stay in a stash (KEYS[3]) until the taker has them, so a take whose answer never came
 * can be read again (`RETAKE_WINDOW`) instead of losing the window.
 */
const TAKE_WINDOW = `redis.call('del', KEYS[2])
if redis.call('exists', KEYS[1]) == 0 then return {} end
redis.call('rename', KEYS[1], KEYS[3])
redis.call('pexpire', KEYS[3], ARGV[1])
return redis.call('lrange', KEYS[3], 0, -1)`;

/** The items of a take whose answer never came (none if it was never carried out), and the stash gone. */
const RETAKE_WINDOW = `local items = redis.call('lrange', KEYS[1], 0, -1)
redis.call('del', KEYS[1])
return items`;

interface WindowCommands {
  appendToWindow(listKey: string, openKey: string, appendedKey: string, leaseMs: string, batch: string, markMs: string): Promise<number>;
  withdrawFromWindow(listKey: string, openKey: string, appendedKey: string, batch: string, markMs: string): Promise<'absent' | 'withdrawn' | 'taken'>;
  takeWindow(listKey: string, openKey: string, stashKey: string, stashMs: string): Promise<string[]>;
  retakeWindow(stashKey: string): Promise<string[]>;
}

/** What a shared window's list holds per append: the batch's id keeps each entry distinct for LREM. */
interface WindowBatch<T> {
  id: string;
  items: T[];
}

/** How long an append whose answer never came is tried to be taken back before its items go out from the process. */
const WITHDRAW_WITHIN_MS = 5_000;

/** How long an append's mark and a take's stash are kept: the time left to settle a command whose answer never came. */
const WINDOW_SETTLE_MS = 30_000;

/** ioredis's error for a command sent but unanswered in time: Redis may still carry it out. */
const isUnanswered = (error: unknown): boolean => error instanceof Error && error.message === 'Command timed out';

/** Removes a stream's entries older than ARGV[1] ms by Redis's own clock (entry ids are its milliseconds). */
const TRIM_STREAM = `local now = redis.call('time')
local oldest = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000) - tonumber(ARGV[1])
return redis.call('xtrim', KEYS[1], 'MINID', string.format('%d', oldest))`;

interface StreamCommands {
  trimStream(streamKey: string, maxAgeMs: string): Promise<number>;
}

/** How long the stream keeps events by default: more than connection-state recovery's two minutes. */
const STREAM_MAX_AGE_MS = 3 * 60 * 1000;

export interface RealtimeOptions {
  auth: Authenticator;
  logger: Logger;
  corsOrigins: string[];
  /**
   * With Redis, events reach sockets connected to any process (Redis streams adapter, on `client`,
   * which it blocks on); `commands` is a connection for short commands (the coalescing gate). The
   * stream keeps events `streamMaxAgeMs` (default three minutes) for sockets that reconnect.
   */
  redis?: { client: Redis; commands: Redis; prefix: string; streamMaxAgeMs?: number };
  /** Socket counts by room kind and batched windows' delays go here. */
  metrics?: Metrics;
}

/**
 * Socket.IO on the app's HTTP server. Clients authenticate in the handshake (`auth: { token }`),
 * then ask to join rooms; the server checks each room against the declared rules.
 * `publish` works from request handlers and workers alike and is safe when nobody listens.
 */
export class Realtime {
  readonly io: Server;
  private readonly flushers = new Set<() => void | Promise<void>>();
  private readonly batchers = new Map<string, (item: unknown) => void>();
  private readonly throttles = new Map<string, () => void>();
  private closed = false;
  private readonly commands: SocketCommand[] = [];
  private readonly rooms: RoomRule[] = [];
  /** Rooms whose events may not have reached the other processes; `null` when none. */
  private missed: Set<string> | null = null;
  private missedEverywhere = false;
  private linkIsUp = true;
  /** When the oldest unanswered link check was sent. */
  private unansweredSince: number | undefined;
  private checking = false;
  /** Bumped when the link is lost, so that a check sent before does not count after. */
  private linkGeneration = 0;
  private heartbeat: NodeJS.Timeout | undefined;
  private lastAnnounced = 0;
  private streamTrimmer: NodeJS.Timeout | undefined;
  /** The rooms of each broadcast whose publish has not been answered yet. */
  private readonly publishing = new Set<{ rooms: readonly string[] }>();
  private readonly windowIdPrefix = `${randomUUID()}:`;
  private windowSequence = 0;

  constructor(private readonly options: RealtimeOptions) {
    this.io = new Server({
      path: '/socket.io',
      serveClient: false,
      cors: { origin: options.corsOrigins, credentials: false },
      // Missed events are replayed to a client that reconnects within two minutes; the Redis
      // streams adapter keeps them across processes. Middlewares run again, so an ended token stays out.
      connectionStateRecovery: { maxDisconnectionDuration: 2 * 60 * 1000, skipMiddlewares: false },
      adapter: options.redis
        ? createAdapter(options.redis.client, {
            streamName: `${options.redis.prefix}:socket.io`,
            channelPrefix: `${options.redis.prefix}:socket.io`,
            // Sessions kept for recovery live under the process's prefix too (the adapter's default is `sio:session:`).
            sessionKeyPrefix: `${options.redis.prefix}:socket.io:session:`,
            blockTimeInMs: STREAM_BLOCK_MS,
          })
        : undefined,
    });
    this.io.use((socket, next) => {
      this.authenticate(socket)
        .then(() => next())
        .catch((error: unknown) => {
          const failure = new Error(error instanceof AppError ? error.code : 'unauthorized') as Error & { data?: unknown };
          failure.data = { code: 'unauthorized', detail: error instanceof AppError ? error.message : 'Authentication failed.' };
          next(failure);
        });
    });
    this.io.on('connection', (socket) => this.onConnection(socket));
    options.metrics?.trackSockets(() => this.roomKinds());
    if (options.redis) {
      // Defined before any traffic: ioredis 6.0.0 crashes the process when a command is defined
      // after an auto-pipeline it then joins was created (redis/ioredis#1931). EVALSHA-cached.
      options.redis.commands.defineCommand('appendToWindow', { numberOfKeys: 3, lua: APPEND_TO_WINDOW });
      options.redis.commands.defineCommand('withdrawFromWindow', { numberOfKeys: 3, lua: WITHDRAW_FROM_WINDOW });
      options.redis.commands.defineCommand('takeWindow', { numberOfKeys: 3, lua: TAKE_WINDOW });
      options.redis.commands.defineCommand('retakeWindow', { numberOfKeys: 1, lua: RETAKE_WINDOW });
      options.redis.commands.defineCommand('trimStream', { numberOfKeys: 1, lua: TRIM_STREAM });
      this.watchCrossProcessLink(options.redis.client);
      this.trimStreamByAge(options.redis.commands as Redis & StreamCommands, `${options.redis.prefix}:socket.io`, options.redis.streamMaxAgeMs ?? STREAM_MAX_AGE_MS);
    }
  }

  /**
   * Whether this process's link to the other processes (Redis, through which events come and go)
   * answers. Always true without Redis.
   */
  get linkUp(): boolean {
    return this.linkIsUp;
  }

  /**
   * Events published while the link is down never reach the sockets of other processes, and the
   * adapter drops them silently; while it is down, this process's sockets miss theirs. So the link
   * is watched: lost when its connection closes or a check (a PING every half second) goes
   * unanswered for a second, which finds a silent network too; back when a check is answered. On
   * its return the process tells its own sockets to reload every room they follow, and tells the
   * rooms of every broadcast that failed or was still unanswered when the link was lost, in every
   * process, since another process may not have lost its own link.
   */
  private watchCrossProcessLink(client: Redis): void {
    client.on('close', () => this.linkLost());
    client.on('ready', () => this.checkLink());
    this.heartbeat = setInterval(() => this.checkLink(), HEARTBEAT_MS).unref();
    const adapter = this.io.of('/').adapter as unknown as PublishingAdapter;
    const publish = adapter.doPublish?.bind(adapter);
    if (!publish) return;
    adapter.doPublish = (message) => {
      if (message.type !== BROADCAST_MESSAGE) return publish(message);
      const pending = { rooms: message.data?.opts?.rooms ?? [] };
      this.publishing.add(pending);
      return publish(message).then(
        (offset) => {
          this.publishing.delete(pending);
          return offset;
        },
        (error: unknown) => {
          if (this.publishing.delete(pending)) this.missedPublish(pending.rooms);
          throw error;
        },
      );
    };
  }

  private checkLink(): void {
    const client = this.options.redis?.client;
    if (this.closed || !client) return;
    const since = this.unansweredSince;
    if (since !== undefined && Date.now() - since > LINK_TIMEOUT_MS) {
      // Judged after this turn's I/O: an answer that waited in the socket while the event loop was busy counts.
      setImmediate(() => {
        if (this.unansweredSince === since) this.linkLost();
      });
    }
    if (this.checking || client.status !== 'ready') return;
    this.checking = true;
    this.unansweredSince ??= Date.now();
    const generation = this.linkGeneration;
    client.ping().then(
      () => {
        if (generation !== this.linkGeneration) return;
        this.checking = false;
        this.unansweredSince = undefined;
        this.linkAnswered();
      },
      () => {
        // A check that timed out leaves the verdict to LINK_TIMEOUT_MS; a closed connection has said it already.
        if (generation === this.linkGeneration) this.checking = false;
      },
    );
  }

  private linkLost(): void {
    this.linkGeneration += 1;
    this.checking = false;
    this.unansweredSince = undefined;
    // Unanswered publishes may or may not be in the stream: count them as missed.
    for (const pending of this.publishing) this.missedPublish(pending.rooms);
    this.publishing.clear();
    if (!this.linkIsUp || this.closed) return;
    this.linkIsUp = false;
    this.options.logger.warn('link to the other processes lost; their events cannot reach this process, nor its theirs');
  }

  private linkAnswered(): void {
    const back = !this.linkIsUp;
    if (back) {
      this.linkIsUp = true;
      this.resyncLocalSockets();
    }
    if (this.missed && (back || Date.now() - this.lastAnnounced >= ANNOUNCE_INTERVAL_MS)) this.announceMissed();
  }

  /** Every socket of this process: reload every room you follow. */
  private resyncLocalSockets(): void {
    if (this.closed) return;
    const at = new Date().toISOString();
    let sockets = 0;
    for (const socket of this.io.of('/').sockets.values()) {
      const rooms = [...socket.rooms].filter((room) => room !== socket.id && !room.startsWith(USER_ROOM_PREFIX));
      socket.emit('resync', { rooms, reason: 'redis_outage', at } satisfies ResyncEvent);
      sockets += 1;
    }
    this.options.logger.info({ sockets }, 'link to the other processes back; sockets told to resync');
  }

  private missedPublish(rooms: readonly string[]): void {
    if (rooms.length === 0) this.missedEverywhere = true;
    this.missed ??= new Set();
    for (const room of rooms) this.missed.add(room);
  }

  /** The rooms whose events may be lost hear it in every process (a failure here is counted again, for the next answered check). */
  private announceMissed(): void {
    if (this.closed || !this.missed) return;
    const rooms = [...this.missed];
    const everywhere = this.missedEverywhere;
    this.lastAnnounced = Date.now();
    this.missed = null;
    this.missedEverywhere = false;
    const payload: ResyncEvent = { rooms: everywhere ? [] : rooms, reason: 'publish_failed', at: new Date().toISOString() };
    if (everywhere || rooms.length === 0) this.io.emit('resync', payload);
    else this.io.to(rooms).emit('resync', payload);
  }

  /**
   * The adapter bounds its stream by length only (10,000 entries), and entries carry whole events,
   * WhatsApp texts included: every process also trims it by age, a sixth of the age apart, so an
   * event stays in Redis at most 7/6 of `maxAgeMs`, long enough for a socket that reconnects within
   * the recovery window to get what it missed.
   */
  private trimStreamByAge(commands: Redis & StreamCommands, streamKey: string, maxAgeMs: number): void {
    const trim = () => {
      // Redis down: the next run trims what this one could not.
      commands.trimStream(streamKey, String(maxAgeMs)).catch(() => undefined);
    };
    this.streamTrimmer = setInterval(trim, Math.max(250, maxAgeMs / 6)).unref();
  }

  /** Adds socket commands (from module manifests, once their dependencies exist). */
  addCommands(commands: SocketCommand[]): void {
    this.commands.push(...commands);
  }

  /** Adds the rules of the rooms sockets may join (from module manifests, as commands are). */
  addRooms(rules: RoomRule[]): void {
    this.rooms.push(...rules);
  }

  attach(server: HttpServer): void {
    this.io.attach(server);
  }

  /** To every socket in `room`; with several rooms, a socket in more than one gets the event once. */
  publish<K extends keyof RealtimeEvents>(room: string | readonly string[], event: K, payload: RealtimeEvents[K]): void {
    this.io.to(room as string | string[]).emit(event as string, payload);
  }

  /** To this process's sockets in `room` only: for work every process does for its own sockets. */
  publishLocal<K extends keyof RealtimeEvents>(room: string, event: K, payload: RealtimeEvents[K]): void {
    this.io.local.to(room).emit(event as string, payload);
  }

  /** Sockets of this process by room kind (the name up to its first ':'), each socket's own room and its user's left out. */
  private roomKinds(): Map<string, number> {
    const namespace = this.io.of('/');
    const counts = new Map<string, number>([['connected', namespace.sockets.size]]);
    for (const [room, members] of namespace.adapter.rooms) {
      if (namespace.sockets.has(room) || room.startsWith(USER_ROOM_PREFIX)) continue;
      const colon = room.indexOf(':');
      const kind = colon < 0 ? room : room.slice(0, colon);
      counts.set(kind, (counts.get(kind) ?? 0) + members.size);
    }
    return counts;
  }

  /** The rooms starting with `prefix` that sockets connected to this process are in. */
  localRooms(prefix: string): string[] {
    const rooms: string[] = [];
    for (const [room, members] of this.io.of('/').adapter.rooms) if (members.size && room.startsWith(prefix)) rooms.push(room);
    return rooms;
  }

  /**
   * For events that come in bursts (a lead per capture, a report per voter): items added within
   * `windowMs` go out as one message `{ items: [...] }`, so the messages a socket receives per
   * second, and the socket writes of every process, stay bounded whatever the rate. The event's
   * payload type must be `{ items: T[] }`, or `encode` makes the message of a window's items (once
   * per window, whoever receives it: `gotv:turnout` packs its items into bytes). The same room and
   * event get the same batcher.
   *
   * With Redis the window is shared by all processes, not one per process (which gave every socket
   * one message per window per process): items are appended to a Redis list, the process that
   * opens a window (the first append after the last flush) flushes it after `windowMs`, taking the
   * list atomically and publishing it once. Should that process die, its window's lease expires
   * and the next append re-opens it, so items are late rather than lost; should Redis fail, items
   * go out from this process's own window. A command Redis answers too late is settled before
   * anything else is done with its items (an append taken back, a take read again), so a slow
   * Redis neither loses nor doubles them.
   */
  batched<K extends BatchedEventName>(room: string, event: K, windowMs?: number): (item: BatchItem<K>) => void;
  batched<K extends keyof RealtimeEvents, T>(room: string, event: K, options: { windowMs?: number; encode: (items: T[]) => RealtimeEvents[K] }): (item: T) => void;
  batched<T>(room: string, event: keyof RealtimeEvents, options: number | { windowMs?: number; encode?: (items: T[]) => unknown } = {}): (item: T) => void {
    const { windowMs = 100, encode = (items: T[]) => ({ items }) } = typeof options === 'number' ? { windowMs: options } : options;
    const key = `${room}\u0000${String(event)}`;
    const existing = this.batchers.get(key);
    if (existing) return existing as (item: T) => void;
    const delay = this.options.metrics?.windowDelay.labels(String(event));
    const publishItems = (items: T[], openedAt: number) => {
      this.publish(room, event, encode(items) as RealtimeEvents[typeof event]);
      delay?.observe((performance.now() - openedAt) / 1000);
    };
    const local = this.localWindow(publishItems, windowMs);
    const add = this.options.redis ? this.sharedWindow(`${this.options.redis.prefix}:window:${room}:${String(event)}`, publishItems, local, windowMs) : local;
    this.batchers.set(key, add as (item: unknown) => void);
    return add;
  }

  /** A window in this process: the first item starts it, the timer sends everything added since. */
  private localWindow<T>(send: (items: T[], openedAt: number) => void, windowMs: number): (item: T) => void {
    let pending: T[] = [];
    let timer: NodeJS.Timeout | undefined;
    let openedAt = 0;
    const flush = () => {
      timer = undefined;
      const items = pending;
      pending = [];
      send(items, openedAt);
    };
    this.flushers.add(() => {
      if (timer) {
        clearTimeout(timer);
        flush();
      }
    });
    return (item: T) => {
      pending.push(item);
      if (timer) return;
      openedAt = performance.now();
      timer = setTimeout(flush, windowMs);
    };
  }

  /**
   * A window shared by every process through a Redis list (see `batched`). Items go to Redis in
   * batches: while one append is in flight, the next items wait and go together when it returns,
   * so under load a process sends one command per round trip rather than one per item, and with
   * no load an item waits for nothing.
   */
  private sharedWindow<T>(listKey: string, send: (items: T[], openedAt: number) => void, fallback: (item: T) => void, windowMs: number): (item: T) => void {
    const redis = this.options.redis!.commands as Redis & WindowCommands;
    const openKey = `${listKey}:open`;
    // The lease outlives the window tenfold: only a process that died (or stalled that long) loses it.
    const leaseMs = windowMs * 10;
    let timer: NodeJS.Timeout | undefined;
    // When another process holds the window: should it die before flushing, its lease expires and
    // this process re-opens the window (an empty append) to send what was left in it.
    let watchdog: NodeJS.Timeout | undefined;
    let queued: T[] = [];
    let appending: Promise<void> | undefined;
    let openedAt = 0;
    const flush = async () => {
      timer = undefined;
      const due = performance.now();
      const stashKey = `${listKey}:taken:${this.nextWindowId()}`;
      let batches: string[];
      try {
        batches = await redis.takeWindow(listKey, openKey, stashKey, String(WINDOW_SETTLE_MS));
      } catch (error) {
        // Carried out or not, the window is in the stash or still in the list: never in neither.
        this.options.logger.warn({ listKey, errorName: (error as Error).name }, 'shared window take unanswered; reading it again');
        batches = (await this.settle(() => redis.retakeWindow(stashKey), WINDOW_SETTLE_MS, windowMs, false)) ?? [];
      }
      const taken = performance.now();
      const items = batches.flatMap((batch) => (JSON.parse(batch) as WindowBatch<T>).items);
      if (items.length) send(items, openedAt);
      if (batches.length) redis.unlink(stashKey).catch(() => undefined);
      // How late windows close and how long taking one takes: where a delivery tail starts.
      this.options.logger.debug(
        { listKey, items: items.length, openMs: Math.round(due - openedAt), takeMs: Math.round(taken - due), sendMs: Math.round(performance.now() - taken) },
        'window flushed',
      );
    };
    const flushLogged = () => flush().catch((error: unknown) => this.options.logger.warn({ listKey, errorName: (error as Error).name }, 'shared window flush failed'));
    const append = (): Promise<void> => {
      const items = queued;
      queued = [];
      const id = this.nextWindowId();
      const appendedKey = `${listKey}:appended:${id}`;
      const batch = JSON.stringify({ id, items } satisfies WindowBatch<T>);
      return redis
        .appendToWindow(listKey, openKey, appendedKey, String(leaseMs), batch, String(WINDOW_SETTLE_MS))
        .then(
          (opened) => {
            // A timer still pending (this process opened the previous window too) takes this one with it.
            if (opened === 1 && !timer) {
              openedAt = performance.now();
              timer = setTimeout(() => void flushLogged(), windowMs);
            } else watchdog ??= setTimeout(reopen, leaseMs + windowMs).unref();
          },
          async (error: unknown) => {
            // An append sent but unanswered may still be carried out: take it back first, or the
            // items would go out twice, from here and from the window.
            if (isUnanswered(error)) {
              const outcome = await this.settle(() => redis.withdrawFromWindow(listKey, openKey, appendedKey, batch, String(WINDOW_SETTLE_MS)), WITHDRAW_WITHIN_MS, windowMs, true);
              if (outcome === 'taken') return;
            }
            this.options.logger.warn({ listKey, errorName: (error as Error).name }, 'shared window unavailable; sending from this process');
            for (const item of items) fallback(item);
          },
        )
        .then(() => {
          appending = queued.length ? append() : undefined;
        });
    };
    const reopen = () => {
      watchdog = undefined;
      if (!this.closed) appending ??= append();
    };
    // Items added in one turn of the event loop (a request's accepted reports, and every request
    // answered from one batch statement) go in one append, so they land in one window together
    // however slow the machine is.
    let scheduled = false;
    const appendQueued = () => {
      if (!scheduled) return;
      scheduled = false;
      appending ??= append();
    };
    this.flushers.add(async () => {
      if (watchdog) clearTimeout(watchdog);
      appendQueued();
      while (appending) await appending;
      if (timer) {
        clearTimeout(timer);
        await flushLogged();
      }
    });
    return (item: T) => {
      queued.push(item);
      if (appending || scheduled) return;
      scheduled = true;
      setImmediate(appendQueued);
    };
  }

  /**
   * A command on a shared window sent again every `everyMs` until Redis answers, for at most
   * `withinMs` (sooner once the process closes, or, with `whileLinked`, once the link is down);
   * undefined when it never answered.
   */
  private async settle<R>(command: () => Promise<R>, withinMs: number, everyMs: number, whileLinked: boolean): Promise<R | undefined> {
    const deadline = performance.now() + withinMs;
    for (;;) {
      try {
        return await command();
      } catch {
        if (this.closed || (whileLinked && !this.linkIsUp) || performance.now() + everyMs > deadline) return undefined;
      }
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  }

  /** An id no other append or take, in this process or another, has used. */
  private nextWindowId(): string {
    return `${this.windowIdPrefix}${(this.windowSequence++).toString(36)}`;
  }

  /**
   * For aggregates recomputed on change (a projection, dashboard totals): `trigger()` as often as
   * you like; `compute` runs at most once per `intervalMs` across all processes (see `throttled`)
   * and its result, unless undefined, is published. The same room and event get the same trigger.
   */
  coalesced<K extends keyof RealtimeEvents>(room: string, event: K, compute: () => Promise<RealtimeEvents[K] | undefined>, intervalMs = 1000): () => void {
    return this.throttled(
      `${room}:${String(event)}`,
      async () => {
        const payload = await compute();
        if (payload !== undefined && !this.closed) this.publish(room, event, payload);
      },
      intervalMs,
    );
  }

  /**
   * Work that follows changes but need not follow each one (pushing what changed in the last
   * second): `trigger()` as often as you like; `task` runs at most once per `intervalMs`. With Redis
   * the limit holds across all processes: a process takes a gate key before running and renews it
   * for `intervalMs` once done; one that finds it taken tries again when it expires, so a trigger is
   * never lost, only deferred. The same key gets the same trigger.
   */
  throttled(key: string, task: () => Promise<void>, intervalMs = 1000): () => void {
    const existing = this.throttles.get(key);
    if (existing) return existing;
    const gateKey = this.options.redis ? `${this.options.redis.prefix}:coalesce:${key}` : undefined;
    let timer: NodeJS.Timeout | undefined;
    let lastRun = 0;
    const schedule = (delayMs: number) => {
      if (!this.closed) timer = setTimeout(() => void run(), Math.max(0, delayMs));
    };
    /** ms until this process may run: 0 if it holds the gate now, else until the gate expires. */
    const waitForGate = async (): Promise<number> => {
      if (!gateKey || !this.options.redis) return 0;
      const commands = this.options.redis.commands;
      const taken = await commands.set(gateKey, String(process.pid), 'PX', intervalMs, 'NX');
      if (taken === 'OK') return 0;
      const left = await commands.pttl(gateKey);
      return left > 0 ? left : 1;
    };
    const run = async () => {
      try {
        const wait = await waitForGate().catch((error: unknown) => {
          // Redis unreachable: fall back to the per-process limit rather than stop pushing.
          this.options.logger.warn({ key, errorName: (error as Error).name }, 'throttle gate unavailable');
          return 0;
        });
        if (wait > 0) return schedule(wait);
        timer = undefined;
        await task();
        // The interval counts from the end of the task, not its start, so runs in two processes
        // whose tasks took different times are still an interval apart.
        lastRun = Date.now();
        if (gateKey && this.options.redis) await this.options.redis.commands.set(gateKey, String(process.pid), 'PX', intervalMs);
      } catch (error) {
        timer = undefined;
        this.options.logger.warn({ key, errorName: (error as Error).name }, 'throttled task failed');
      }
    };
    const trigger = () => {
      if (!timer) schedule(lastRun + intervalMs - Date.now());
    };
    this.flushers.add(() => {
      if (timer) clearTimeout(timer);
    });
    this.throttles.set(key, trigger);
    return trigger;
  }

  /**
   * After what a user may follow changed (a brigade member moved to another brigade): their
   * sockets, in every process, leave the rooms the rules would not admit them to now. A socket
   * that cannot be reached is left as it is, and the failure logged.
   */
  async recheckRooms(userId: string): Promise<void> {
    try {
      for (const socket of await this.io.in(userRoom(userId)).fetchSockets()) {
        const { actor } = socket.data as SocketData;
        // Rooms no rule names (its own id, its user's room) were joined by the server: they stay.
        for (const room of socket.rooms) if ((await this.verdict(actor, room)) === 'forbidden') socket.leave(room);
      }
    } catch (error) {
      this.options.logger.warn({ errorName: (error as Error).name }, 'room recheck failed');
    }
  }

  /** Ends every socket of a user, in every process: their tokens were just ended. */
  disconnectUser(userId: string): void {
    this.io.in(userRoom(userId)).disconnectSockets(true);
  }

  /**
   * Ends the sockets one device's session opened, in every process (an admin ended that session
   * alone); the user's other devices stay connected. A socket that cannot be reached is refused at
   * its next request anyway (`stillValid`), and the failure logged.
   */
  async disconnectSession(userId: string, sessionId: string): Promise<void> {
    try {
      for (const socket of await this.io.in(userRoom(userId)).fetchSockets()) {
        if ((socket.data as SocketData).claims.sid === sessionId) socket.disconnect(true);
      }
    } catch (error) {
      this.options.logger.warn({ errorName: (error as Error).name }, 'session disconnect failed');
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.heartbeat);
    clearInterval(this.streamTrimmer);
    await Promise.all([...this.flushers].map((flush) => flush()));
    await this.io.close();
  }

  private async authenticate(socket: Socket): Promise<void> {
    const token: unknown = socket.handshake.auth?.token;
    if (typeof token !== 'string' || !token) throw new UnauthorizedError();
    // Verified once here; later requests re-check the session (expiry, token version) from the claims.
    const claims = this.options.auth.tokens.verify(token);
    if (!claims) throw new UnauthorizedError('The token is invalid or has expired.');
    Object.assign(socket.data as SocketData, { actor: await sessionActor(this.options.auth, claims), claims });
  }

  /**
   * The socket's session as it stands now: a token ended since the handshake (logout, a role
   * change, deactivation) ends the socket here too, even if the message that should have cut it
   * was lost. The principal cache makes this check free of queries in the common case.
   */
  private async stillValid(socket: Socket): Promise<Actor | undefined> {
    const data = socket.data as SocketData;
    try {
      data.actor = await sessionActor(this.options.auth, data.claims);
      return data.actor;
    } catch {
      return undefined;
    }
  }

  /** Answers a request once the session is checked: with `handle`'s answer, or the refusal and then the end of the socket. */
  private answer<T>(socket: Socket, ack: unknown, refusal: T, handle: (actor: Actor) => Promise<T>): void {
    void this.stillValid(socket).then(async (actor) => {
      const answer = actor ? await handle(actor) : refusal;
      if (typeof ack === 'function') ack(answer);
      if (!actor) setImmediate(() => socket.disconnect(true));
    });
  }

  private onConnection(socket: Socket): void {
    const { actor } = socket.data as SocketData;
    // The server's own handle on the user's sockets (to end them at logout): clients cannot leave it.
    void socket.join(userRoom(actor.id));
    const ended = { ok: false, error: { code: 'unauthorized', message: 'The session has ended; log in again.' } };
    socket.on('subscribe', (input: unknown, ack: unknown) => {
      this.answer<SubscribeAck | typeof ended>(socket, ack, ended, (current) => this.subscribe(socket, current, input));
    });
    for (const command of this.commands) {
      socket.on(command.event, (input: unknown, ack: unknown) => {
        this.answer<unknown>(socket, ack, ended, (current) => this.run(command, current, input));
      });
    }
    socket.on('unsubscribe', (input: unknown, ack: unknown) => {
      const parsed = subscribeSchema.safeParse(input);
      if (parsed.success) for (const room of parsed.data.rooms) if (!room.startsWith(USER_ROOM_PREFIX)) void socket.leave(room);
      if (typeof ack === 'function') ack({ ok: parsed.success });
    });
  }

  private async run(command: SocketCommand, actor: Actor, input: unknown): Promise<unknown> {
    if (!roleAllowed(actor.role, command.roles)) return { ok: false, error: { code: 'forbidden', message: 'You are not allowed to do this.' } };
    const parsed = command.schema.safeParse(input);
    if (!parsed.success) {
      return {
        ok: false,
        error: {
          code: 'validation_failed',
          message: 'The request is not valid.',
          errors: parsed.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message })),
        },
      };
    }
    try {
      return { ok: true, result: await command.handle(parsed.data, actor) };
    } catch (error) {
      if (error instanceof ServiceBusyError) return { ok: false, error: { code: error.code, message: error.message, retryAfter: error.retryAfterSeconds } };
      if (error instanceof AppError && error.status < 500) {
        return { ok: false, error: { code: error.code, message: error.message, ...(error.errors ? { errors: error.errors } : {}) } };
      }
      this.options.logger.error({ event: command.event, errorName: (error as Error).name }, 'socket command failed');
      return { ok: false, error: { code: 'internal_error', message: 'Something went wrong on our side.' } };
    }
  }

  private async subscribe(socket: Socket, actor: Actor, input: unknown): Promise<SubscribeAck> {
    const parsed = subscribeSchema.safeParse(input);
    if (!parsed.success) {
      return {
        ok: false,
        joined: [],
        denied: [],
        error: { code: 'validation_failed', message: 'Send { rooms: ["room", ...] } with 1 to 50 room names.' },
      };
    }
    const answer: SubscribeAck = { ok: true, joined: [], denied: [] };
    for (const room of new Set(parsed.data.rooms)) {
      const verdict = await this.verdict(actor, room);
      if (verdict !== 'admitted') answer.denied.push({ room, code: verdict });
      else {
        void socket.join(room);
        answer.joined.push(room);
      }
    }
    return answer;
  }

  /** Whether this user may be in this room now: the rule's roles, then its own check if any. */
  private async verdict(actor: Actor, room: string): Promise<'admitted' | 'unknown_room' | 'forbidden'> {
    const rule = this.rooms.find((candidate) => candidate.pattern.test(room));
    if (!rule) return 'unknown_room';
    if (!roleAllowed(actor.role, rule.roles)) return 'forbidden';
    if (!rule.admits) return 'admitted';
    try {
      return (await rule.admits(actor, room)) ? 'admitted' : 'forbidden';
    } catch (error) {
      this.options.logger.warn({ room, errorName: (error as Error).name }, 'room check failed; not admitted');
      return 'forbidden';
    }
  }
}
