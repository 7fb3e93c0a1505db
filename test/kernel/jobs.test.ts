import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { z } from 'zod';
import { Redis } from 'ioredis';
import { BullJobs, MemoryJobs, defineJob, type Jobs } from '../../src/kernel/jobs';
import type { AppDeps } from '../../src/kernel/context';
import { Metrics } from '../../src/kernel/metrics';
import { testRedisUrl } from '../helpers/database';
import { freePort, startRedis, stopRedis } from '../helpers/redis-server';
import { until } from '../helpers/wait';

const logger = pino({ level: 'silent' });
const metrics = new Metrics();
const deps = { metrics } as AppDeps; // these probe jobs use nothing else from the app
const failuresOf = async (job: string) => (await metrics.jobFailures.get()).values.find((value) => value.labels.job === job)?.value ?? 0;

/** A job that fails its first `failures` tries, recording when each try ran. */
function flakyJob(name: string, failures: number) {
  const tries = new Map<string, number[]>();
  const job = defineJob({
    name,
    schema: z.object({ key: z.string() }),
    attempts: 4,
    backoffMs: 50,
    handler: async ({ key }) => {
      const times = tries.get(key) ?? [];
      times.push(Date.now());
      tries.set(key, times);
      if (times.length <= failures) throw new Error(`try ${times.length} fails`);
    },
  });
  return { job, tries };
}

const runners: [string, (definitions: ReturnType<typeof flakyJob>['job'][], prefix: string) => Jobs][] = [
  ['BullMQ on Redis', (definitions, prefix) => new BullJobs(definitions, { url: testRedisUrl, maxRetriesPerRequest: null }, prefix, logger)],
  ['in-process', (definitions) => new MemoryJobs(definitions, logger)],
];

describe.each(runners)('jobs (%s)', (_name, make) => {
  const prefix = `tjobs${randomBytes(3).toString('hex')}`;
  const opened: Jobs[] = [];

  afterAll(async () => {
    await Promise.all(opened.map((jobs) => jobs.close()));
    const redis = new Redis(testRedisUrl);
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
  });

  it('retries a failing job with growing backoff until it succeeds, and idle() waits for it', async () => {
    const { job, tries } = flakyJob('flaky', 2);
    const jobs = make([job], prefix);
    opened.push(jobs);
    await jobs.start(deps);
    await jobs.enqueue(job, { key: 'a' });
    await jobs.idle(10_000);
    const times = tries.get('a')!;
    expect(times).toHaveLength(3);
    // The backoff doubles: 50 ms, then 100 ms (compared with the configured waits, not with each
    // other, since a busy machine can stretch the first wait past the second).
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(45);
    expect(times[2]! - times[1]!).toBeGreaterThanOrEqual(95);
  });

  it('gives up after the configured attempts', async () => {
    const { job, tries } = flakyJob('doomed', 99);
    const jobs = make([job], prefix);
    opened.push(jobs);
    await jobs.start(deps);
    const before = await failuresOf('doomed');
    await jobs.enqueue(job, { key: 'b' });
    await jobs.idle(10_000);
    expect(tries.get('b')).toHaveLength(4);
    // Every failed attempt is counted (comando_job_failures_total).
    await until(async () => (await failuresOf('doomed')) - before === 4, 5000);
  });

  it('does not add a job twice while one with the same id is pending', async () => {
    const { job, tries } = flakyJob('once', 0);
    const jobs = make([job], prefix);
    opened.push(jobs);
    await jobs.enqueue(job, { key: 'c' }, { jobId: 'same', delayMs: 100 });
    await jobs.enqueue(job, { key: 'c' }, { jobId: 'same', delayMs: 100 });
    await jobs.start(deps);
    await jobs.idle(10_000);
    expect(tries.get('c')).toHaveLength(1);
  });

  it('idle() waits for a delayed job due within its wait, not for one due after it', async () => {
    const { job, tries } = flakyJob('scheduled', 0);
    const jobs = make([job], prefix);
    opened.push(jobs);
    await jobs.start(deps);
    await jobs.enqueue(job, { key: 'soon' }, { delayMs: 1000 });
    await jobs.enqueue(job, { key: 'later' }, { delayMs: 60_000 });
    await jobs.idle(10_000);
    expect(tries.get('soon')).toHaveLength(1);
    expect(tries.get('later')).toBeUndefined();
  });

  it('lets a running job finish and be recorded before close() returns', async () => {
    let finished = false;
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const job = defineJob({
      name: 'slow',
      schema: z.object({ key: z.string() }),
      handler: async () => {
        started();
        // A job that takes a while: close() must wait for it (its length is the subject).
        await new Promise((resolve) => setTimeout(resolve, 300));
        finished = true;
      },
    });
    const jobs = make([job], prefix);
    await jobs.start(deps);
    await jobs.enqueue(job, { key: 'd' });
    await running;
    await jobs.close();
    expect(finished).toBe(true);
    // Nothing left active for another process to pick up again.
    const after = make([job], prefix);
    opened.push(after);
    await after.idle(2000);
  });

  it('refuses a payload that does not match the job schema', async () => {
    const { job } = flakyJob('typed', 0);
    const jobs = make([job], prefix);
    opened.push(jobs);
    await expect(jobs.enqueue(job, { key: 42 } as unknown as { key: string })).rejects.toThrow();
  });
});

describe('BullMQ jobs after a Redis restart', () => {
  const timers = () => process.getActiveResourcesInfo().filter((type) => type === 'Timeout').length;

  it('close() returns at once while the workers still wait to reconnect, and leaves no timer running', async () => {
    const port = await freePort();
    let redis = await startRedis(port);
    const { job } = flakyJob('restart', 0);
    const warnings: string[] = [];
    const watched = pino({ level: 'warn' }, { write: (line: string) => void warnings.push((JSON.parse(line) as { msg: string }).msg) });
    const jobs = new BullJobs([job], { url: `redis://127.0.0.1:${port}/0`, maxRetriesPerRequest: null }, 'trestart', watched);
    try {
      const before = timers();
      await jobs.start(deps);
      await stopRedis(redis);
      redis = await startRedis(port);
      // BullMQ waits at least a second before reconnecting: this closes inside that wait, where a
      // graceful Worker.close() never settled and its lock-renewal timers kept the process alive.
      // Nothing was running, so close() does not sit out its grace period (which it would log).
      await jobs.close();
      expect(warnings.filter((msg) => /did not stop|still running/.test(msg))).toEqual([]);
      // What remains is the watchdog of the blocking read cut by the restart (at most its 5 s block, plus 1 s).
      await until(async () => timers() <= before, 10_000);
    } finally {
      await stopRedis(redis);
    }
  });
});
