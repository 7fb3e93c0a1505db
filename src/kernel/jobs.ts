import { Queue, Worker, type ConnectionOptions } from 'bullmq';
import type { Logger } from 'pino';
import type { ZodType } from 'zod';
import type { AppDeps } from './context';
import { safeErrorFields } from './http/problem';

/**
 * Durable background work. The database holds the state of record (who still has to get a
 * message, say); a job only carries the instruction to act on it, so a job that is lost or
 * run twice must be harmless: handlers are idempotent.
 */
export interface JobDefinition<T> {
  name: string;
  schema: ZodType<T>;
  handler: (data: T, context: JobContext) => Promise<void>;
  /** Total tries, the first included. */
  attempts?: number;
  /** First retry delay; each further retry doubles it. */
  backoffMs?: number;
  concurrency?: number;
}

export interface JobContext {
  attempt: number;
  logger: Logger;
  deps: AppDeps;
}

// Definitions are stored side by side whatever their payload type.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyJob = JobDefinition<any>;

export function defineJob<T>(definition: JobDefinition<T>): JobDefinition<T> {
  return definition;
}

export interface EnqueueOptions {
  /** A job with the same id that is still pending is not added twice. */
  jobId?: string;
  delayMs?: number;
}

export interface Jobs {
  enqueue<T>(job: JobDefinition<T>, data: T, options?: EnqueueOptions): Promise<void>;
  /** Starts consuming. Without it the process only enqueues (an HTTP-only process, say). */
  start(deps: AppDeps): Promise<void>;
  /**
   * Resolves once nothing is waiting or running and no delayed job falls due within the wait: for
   * tests and orderly shutdown. A delayed job due later (a safety check minutes away) cannot be
   * waited out, so it does not count.
   */
  idle(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

const DEFAULTS = { attempts: 5, backoffMs: 1000, concurrency: 1 };
const ERROR_LOG_INTERVAL_MS = 30_000;
/** How long closing waits for running jobs before it forces the workers down. */
const CLOSE_GRACE_MS = 10_000;
const FORCE_CLOSE_MS = 2_000;

function definitionFor(definitions: Map<string, AnyJob>, name: string): AnyJob {
  const definition = definitions.get(name);
  if (!definition) throw new Error(`Unknown job "${name}": add it to its module's manifest`);
  return definition;
}

async function pollUntil(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Production: BullMQ queues on Redis, one queue per job name, shared by every process. */
export class BullJobs implements Jobs {
  private readonly definitions = new Map<string, AnyJob>();
  private readonly queues = new Map<string, Queue>();
  private readonly workers: Worker[] = [];
  /** Jobs this process has taken that BullMQ has not yet recorded as completed or failed. */
  private readonly taken = new Set<string>();

  constructor(
    definitions: AnyJob[],
    private readonly connection: ConnectionOptions,
    private readonly prefix: string,
    private readonly logger: Logger,
  ) {
    for (const definition of definitions) this.definitions.set(definition.name, definition);
  }

  private queue(name: string): Queue {
    let queue = this.queues.get(name);
    if (!queue) {
      queue = new Queue(name, { connection: this.connection, prefix: `${this.prefix}:jobs` });
      queue.on('error', (error) => this.logOnce(`queue:${name}`, () => this.logger.warn({ job: name, ...safeErrorFields(error) }, 'job queue error')));
      this.queues.set(name, queue);
    }
    return queue;
  }

  private readonly lastLogged = new Map<string, number>();

  /** During an outage every connection errors on each reconnection attempt: one line per source per half minute says enough. */
  private logOnce(source: string, log: () => void): void {
    const now = Date.now();
    if (now - (this.lastLogged.get(source) ?? 0) < ERROR_LOG_INTERVAL_MS) return;
    this.lastLogged.set(source, now);
    log();
  }

  async enqueue<T>(job: JobDefinition<T>, data: T, options: EnqueueOptions = {}): Promise<void> {
    const definition = definitionFor(this.definitions, job.name);
    const payload = definition.schema.parse(data);
    await this.queue(job.name).add(job.name, payload, {
      jobId: options.jobId,
      delay: options.delayMs,
      attempts: definition.attempts ?? DEFAULTS.attempts,
      backoff: { type: 'exponential', delay: definition.backoffMs ?? DEFAULTS.backoffMs },
      removeOnComplete: { count: 1000 },
      removeOnFail: { count: 5000 },
    });
  }

  async start(deps: AppDeps): Promise<void> {
    for (const definition of this.definitions.values()) {
      const worker = new Worker(
        definition.name,
        async (job) => {
          this.taken.add(`${definition.name}:${job.id}`);
          const data = definition.schema.parse(job.data);
          await definition.handler(data, { attempt: job.attemptsMade + 1, logger: this.logger, deps });
        },
        {
          connection: this.connection,
          prefix: `${this.prefix}:jobs`,
          concurrency: definition.concurrency ?? DEFAULTS.concurrency,
        },
      );
      worker.on('completed', (job) => this.taken.delete(`${definition.name}:${job.id}`));
      worker.on('failed', (job, error) => {
        if (job) this.taken.delete(`${definition.name}:${job.id}`);
        deps.metrics.jobFailures.inc({ job: definition.name });
        this.logger.warn({ job: definition.name, jobId: job?.id, attempt: job?.attemptsMade, ...safeErrorFields(error) }, 'job failed');
      });
      worker.on('error', (error) => this.logOnce(`worker:${definition.name}`, () => this.logger.warn({ job: definition.name, ...safeErrorFields(error) }, 'job worker error')));
      this.workers.push(worker);
    }
    await Promise.all(this.workers.map((worker) => worker.waitUntilReady()));
  }

  async idle(timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    await pollUntil(
      async () => {
        for (const name of this.definitions.keys()) {
          const queue = this.queue(name);
          const { delayed, ...now } = await queue.getJobCounts('waiting', 'active', 'prioritized', 'delayed');
          if (Object.values(now).some((count) => count > 0)) return false;
          if (!delayed) continue;
          // Fewer jobs than counted means one is moving between states: not idle yet. A retry keeps
          // its first timestamp, so its due time reads early and it is waited for.
          const jobs = await queue.getDelayed();
          if (jobs.length < delayed || jobs.some((job) => Number(job.timestamp) + Number(job.delay) <= deadline)) return false;
        }
        return true;
      },
      timeoutMs,
      'the job queues to drain',
    );
  }

  async close(): Promise<void> {
    // Worker.close() without force waits for its blocking connection to end, which never happens
    // while that connection waits to reconnect after a Redis outage (bullmq#4656): the worker then
    // keeps its lock-renewal and stalled-check timers and the process cannot exit. So stop taking
    // jobs, wait for the ones taken to be recorded, and close the workers without that wait.
    await Promise.all(this.workers.map((worker) => worker.pause(true)));
    const finished = await pollUntil(async () => this.taken.size === 0, CLOSE_GRACE_MS, 'running jobs').then(
      () => true,
      () => false,
    );
    if (!finished) this.logger.warn({ jobs: this.taken.size }, 'jobs still running at shutdown; leaving them to be retried');
    await settlesWithin(Promise.all(this.workers.map((worker) => worker.close(true))), FORCE_CLOSE_MS);
    const queues = Promise.all([...this.queues.values()].map((queue) => queue.close()));
    if (!(await settlesWithin(queues, FORCE_CLOSE_MS))) {
      await settlesWithin(Promise.all([...this.queues.values()].map((queue) => queue.disconnect())), FORCE_CLOSE_MS);
    }
  }
}

/** Whether `work` settles within `ms` (it keeps running either way). */
async function settlesWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([
      work.then(
        () => true as const,
        () => true as const,
      ),
      timedOut,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

interface MemoryJob {
  definition: AnyJob;
  data: unknown;
  id: string | undefined;
  attemptsMade: number;
}

/**
 * Embedded default: the same contract in process. Pending jobs do not survive a restart,
 * which is why modules re-enqueue unfinished work from the database when they start.
 */
export class MemoryJobs implements Jobs {
  private readonly definitions = new Map<string, AnyJob>();
  private readonly ready = new Map<string, MemoryJob[]>();
  private readonly running = new Map<string, number>();
  private readonly pendingIds = new Set<string>();
  /** Delayed jobs' timers, with when each falls due. */
  private readonly timers = new Map<NodeJS.Timeout, number>();
  private deps: AppDeps | undefined;
  private closed = false;
  private outstanding = 0;

  constructor(
    definitions: AnyJob[],
    private readonly logger: Logger,
  ) {
    for (const definition of definitions) this.definitions.set(definition.name, definition);
  }

  async enqueue<T>(job: JobDefinition<T>, data: T, options: EnqueueOptions = {}): Promise<void> {
    const definition = definitionFor(this.definitions, job.name);
    if (options.jobId) {
      if (this.pendingIds.has(options.jobId)) return;
      this.pendingIds.add(options.jobId);
    }
    this.outstanding++;
    const entry: MemoryJob = { definition, data: definition.schema.parse(data), id: options.jobId, attemptsMade: 0 };
    this.later(options.delayMs ?? 0, entry);
  }

  async start(deps: AppDeps): Promise<void> {
    this.deps = deps;
    for (const name of this.definitions.keys()) this.pump(name);
  }

  async idle(timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    const dueLater = () => [...this.timers.values()].filter((dueAt) => dueAt > deadline).length;
    await pollUntil(async () => this.outstanding - dueLater() === 0, timeoutMs, 'in-process jobs to finish');
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.timers.keys()) clearTimeout(timer);
    this.timers.clear();
    await pollUntil(async () => [...this.running.values()].every((count) => count === 0), 30_000, 'running jobs');
  }

  private later(delayMs: number, entry: MemoryJob): void {
    if (delayMs <= 0) return this.push(entry);
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.push(entry);
    }, delayMs);
    this.timers.set(timer, Date.now() + delayMs);
  }

  private push(entry: MemoryJob): void {
    const name = entry.definition.name;
    const list = this.ready.get(name) ?? [];
    list.push(entry);
    this.ready.set(name, list);
    this.pump(name);
  }

  private pump(name: string): void {
    if (!this.deps || this.closed) return;
    const list = this.ready.get(name);
    while (list?.length) {
      const definition = definitionFor(this.definitions, name);
      const running = this.running.get(name) ?? 0;
      if (running >= (definition.concurrency ?? DEFAULTS.concurrency)) return;
      const entry = list.shift()!;
      this.running.set(name, running + 1);
      void this.run(entry).finally(() => {
        this.running.set(name, (this.running.get(name) ?? 1) - 1);
        this.pump(name);
      });
    }
  }

  private async run(entry: MemoryJob): Promise<void> {
    const { definition } = entry;
    entry.attemptsMade++;
    try {
      await definition.handler(entry.data, { attempt: entry.attemptsMade, logger: this.logger, deps: this.deps! });
      this.finish(entry);
    } catch (error) {
      const attempts = definition.attempts ?? DEFAULTS.attempts;
      this.deps?.metrics.jobFailures.inc({ job: definition.name });
      this.logger.warn({ job: definition.name, attempt: entry.attemptsMade, ...safeErrorFields(error) }, 'job failed');
      if (entry.attemptsMade >= attempts || this.closed) return this.finish(entry);
      const backoff = (definition.backoffMs ?? DEFAULTS.backoffMs) * 2 ** (entry.attemptsMade - 1);
      this.later(backoff, entry);
    }
  }

  private finish(entry: MemoryJob): void {
    if (entry.id) this.pendingIds.delete(entry.id);
    this.outstanding--;
  }
}
