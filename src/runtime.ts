import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { createHmac, createSecretKey, randomBytes } from 'node:crypto';
import { ProcessLocal } from './kernel/process-local';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { Redis } from 'ioredis';
import { createApp, type CreatedApp } from './app';
import type { Config } from './config';
import type { AppDeps } from './kernel/context';
import { createOrm, migrate } from './kernel/db';
import { startEmbeddedPostgres, type EmbeddedDatabase } from './kernel/embedded-postgres';
import { BullJobs, MemoryJobs, type Jobs } from './kernel/jobs';
import { createFileStore } from './kernel/file-store';
import { createLogger } from './kernel/logger';
import { principalCache } from './kernel/auth/principals';
import { Caches, type CacheBus } from './kernel/cache';
import { TokenService } from './kernel/auth/tokens';
import { RateLimits } from './kernel/rate-limit';
import { ADAPTER_SOCKET_TIMEOUT_MS, Realtime } from './kernel/realtime';
import { Metrics } from './kernel/metrics';
import { catchUnawaitedAnswers, countFailures, createRedis, failFastOnceServing, handshakeDone, reportOutages } from './kernel/redis';
import { modules as allModules } from './modules';
import { personalDataSections, personTimelineSections, territoryReferenceSections, type BackgroundTask, type ModuleManifest } from './kernel/module';
import { principalLoader, sessionRegistry } from './modules/auth';

/** The embedded default keeps its signing secret beside its data, so tokens survive restarts. */
function embeddedJwtSecret(dataDir: string): string {
  const file = path.join(dataDir, 'jwt-secret');
  if (fs.existsSync(file)) return fs.readFileSync(file, 'utf8').trim();
  fs.mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(48).toString('base64url');
  fs.writeFileSync(file, secret, { mode: 0o600 });
  return secret;
}

export interface RuntimeOptions {
  logger?: Logger;
  /** Apply pending migrations at start (default true). */
  migrate?: boolean;
  /** Consume background jobs in this process (default true). */
  workers?: boolean;
  /** The modules to run (default: all of src/modules); tests add their own probes. */
  modules?: ModuleManifest[];
}

/**
 * One Comando process: HTTP, sockets and (optionally) workers on shared PostgreSQL and Redis.
 * main.ts, the tests and the benchmarks all build it here, so they run the same wiring.
 */
export class Runtime {
  readonly server: http.Server;
  private readonly inFlight = new Set<http.ServerResponse>();
  private stopping: Promise<void> | undefined;

  private constructor(
    readonly deps: AppDeps,
    readonly created: CreatedApp,
    private readonly closers: { redisClients: Redis[]; adapterReaders: Redis[]; embedded: EmbeddedDatabase | undefined; background: BackgroundTask[] },
  ) {
    // Idle connections outlive the proxy's (HTTP_KEEP_ALIVE_TIMEOUT); the headers timeout sits above
    // it, the pairing proxies' guides ask for since some Node versions cut idle connections at it.
    const { keepAliveTimeoutMs, headersTimeoutMs } = deps.config.http;
    this.server = http.createServer({ keepAliveTimeout: keepAliveTimeoutMs, headersTimeout: headersTimeoutMs }, created.app.callback());
    this.server.on('request', (_request, response) => {
      this.inFlight.add(response);
      response.on('close', () => this.inFlight.delete(response));
      // While draining, ask keep-alive clients to go elsewhere after this answer.
      if (this.stopping) response.setHeader('Connection', 'close');
    });
    deps.realtime.attach(this.server);
  }

  static async create(config: Config, options: RuntimeOptions = {}): Promise<Runtime> {
    const logger = options.logger ?? createLogger(config.logLevel);
    const modules = options.modules ?? allModules;
    let embedded: EmbeddedDatabase | undefined;
    let databaseUrl = config.databaseUrl;
    if (!databaseUrl) {
      embedded = await startEmbeddedPostgres(config.dataDir, config.embeddedPgPort, logger);
      databaseUrl = embedded.url;
      logger.info({ dataDir: config.dataDir }, 'no DATABASE_URL: using the embedded PostgreSQL');
    }
    const metrics = new Metrics();
    const { orm, db } = await createOrm({
      clientUrl: databaseUrl,
      poolMax: config.databasePoolMax,
      acquireTimeoutMs: config.databaseAcquireTimeoutMs,
      entities: modules.flatMap((module) => module.entities),
    });
    if (options.migrate !== false) {
      const applied = await migrate(orm);
      if (applied.length) logger.info({ migrations: applied }, 'migrations applied');
    }

    const redisClients: Redis[] = [];
    const adapterReaders: Redis[] = [];
    let redis: Redis | undefined;
    let bus: CacheBus | undefined;
    if (config.redisUrl) {
      redis = createRedis(config.redisUrl);
      const subscriber = redis.duplicate();
      // Blocking stream reads (the Socket.IO adapter) outlast any command timeout; a connection
      // silent for longer than one can block is dead, and is dropped to reconnect. The adapter saves
      // sessions and sends some messages without waiting for the answer.
      const adapterClient = catchUnawaitedAnswers(redis.duplicate({ commandTimeout: undefined, socketTimeout: ADAPTER_SOCKET_TIMEOUT_MS }), 'set', 'publish');
      // The adapter reads its stream on connections it duplicates from this one; it drops them only
      // after the current blocking read returns, so shutdown cuts them itself rather than wait.
      const duplicate = adapterClient.duplicate.bind(adapterClient);
      adapterClient.duplicate = (...args: Parameters<Redis['duplicate']>) => {
        // The adapter subscribes without waiting for the answer.
        const reader = catchUnawaitedAnswers(duplicate(...args), 'subscribe');
        adapterReaders.push(reader);
        return reader;
      };
      redisClients.push(redis, subscriber, adapterClient);
      await Promise.all(redisClients.map((client) => client.connect()));
      ['commands', 'subscriber', 'socket adapter'].forEach((name, index) => reportOutages(redisClients[index]!, name, logger));
      countFailures(redis, metrics.redisFailures.labels('commands'));
      countFailures(adapterClient, metrics.redisFailures.labels('socket_adapter'));
      bus = { publisher: redis, subscriber, prefix: config.redisKeyPrefix };
    } else {
      logger.info('no REDIS_URL: in-memory socket adapter, in-process jobs and rate limits');
    }

    const jwtSecret = config.jwtSecret ?? embeddedJwtSecret(config.dataDir);
    const caches = new Caches(bus, logger);
    await caches.start();
    const principals = principalCache(caches, principalLoader(db));
    const auth = { tokens: new TokenService(jwtSecret, config.jwtTtlSeconds), principals, sessions: sessionRegistry(caches, db) };
    const jobDefinitions = modules.flatMap((module) => module.jobs ?? []);
    const jobs: Jobs = config.redisUrl
      ? new BullJobs(jobDefinitions, { url: config.redisUrl, maxRetriesPerRequest: null }, config.redisKeyPrefix, logger)
      : new MemoryJobs(jobDefinitions, logger);
    const realtime = new Realtime({
      auth,
      logger,
      corsOrigins: config.corsOrigins,
      redis: redis ? { client: redisClients[2]!, commands: redis, prefix: config.redisKeyPrefix, streamMaxAgeMs: config.realtimeStreamMaxAgeSeconds * 1000 } : undefined,
      metrics,
    });
    metrics.trackPool(() => db.poolStats());
    const deps: AppDeps = {
      config,
      logger,
      orm,
      db,
      redis,
      caches,
      secrets: {
        ipHashKey: createSecretKey(createHmac('sha256', jwtSecret).update('comando:ip-hash').digest()),
        erasureKey: createSecretKey(
          createHmac('sha256', config.erasureSecret ?? jwtSecret)
            .update('comando:erased-identifiers')
            .digest(),
        ),
      },
      auth,
      realtime,
      jobs,
      files: createFileStore(config.files),
      metrics,
      rateLimits: new RateLimits(redis, config.redisKeyPrefix, createSecretKey(createHmac('sha256', jwtSecret).update('comando:rate-limit').digest())),
      personalData: personalDataSections(modules),
      personTimeline: personTimelineSections(modules),
      territoryReferences: territoryReferenceSections(modules),
      local: new ProcessLocal(logger),
    };
    realtime.addCommands(modules.flatMap((module) => module.socketCommands?.(deps) ?? []));
    realtime.addRooms(modules.flatMap((module) => module.rooms?.(deps) ?? []));
    const background: BackgroundTask[] = [];
    if (options.workers !== false) {
      await jobs.start(deps);
      for (const module of modules) {
        const task = await module.onWorkersStarted?.(deps);
        if (task) background.push(task);
      }
    }
    if (redis) {
      failFastOnceServing(redis, config.redisCommandTimeoutMs);
      // The adapter's own connection publishes (its readers, duplicated from it, keep waiting): an
      // event is sent to this process's sockets once Redis has taken it, so a publish into an
      // unreachable Redis must fail at once, and counts as missed (kernel/realtime.ts).
      failFastOnceServing(redisClients[2]!, config.redisCommandTimeoutMs);
    }
    return new Runtime(deps, createApp(deps, modules), { redisClients, adapterReaders, embedded, background });
  }

  async listen(port = this.deps.config.port, host = this.deps.config.host): Promise<AddressInfo> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    return this.server.address() as AddressInfo;
  }

  /**
   * Graceful stop: refuse new connections, let in-flight requests finish, close sockets, let
   * running jobs finish, then close the database and Redis. Safe to call more than once.
   */
  stop(): Promise<void> {
    this.stopping ??= this.shutdown();
    return this.stopping;
  }

  private async shutdown(): Promise<void> {
    const { logger, realtime, jobs, orm } = this.deps;
    const serverClosed = new Promise<void>((resolve) => {
      if (!this.server.listening) return resolve();
      this.server.close(() => resolve());
    });
    this.server.closeIdleConnections();
    while (this.inFlight.size > 0) await new Promise((resolve) => setTimeout(resolve, 25));
    this.server.closeAllConnections();
    await realtime.close();
    for (const reader of this.closers.adapterReaders) {
      await handshakeDone(reader, HANDSHAKE_WAIT_MS);
      // A second ioredis disconnect of a connection already closed leaves a 2 s timer that keeps
      // the process alive: the adapter closes its pub/sub reader itself, so skip what has ended.
      if (reader.status !== 'end') reader.disconnect();
      // The adapter's read loop disconnects its reader again when its read fails: nothing left to do.
      reader.disconnect = () => undefined;
    }
    await serverClosed;
    await Promise.all(this.closers.background.map((task) => task.stop()));
    await jobs.close();
    await this.deps.local.closeAll();
    await orm.close();
    this.deps.files.close();
    await Promise.all(this.closers.redisClients.map((client) => client.quit().catch(() => client.disconnect())));
    if (this.closers.embedded) await this.closers.embedded.stop();
    logger.info('shutdown complete');
  }
}

/** How long shutdown lets a Redis connection still shaking hands finish before cutting it. */
const HANDSHAKE_WAIT_MS = 1000;
