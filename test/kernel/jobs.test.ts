import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { z } from 'zod';
import { Redis } from 'ioredis';
import { BullJobs, MemoryJobs, defineJob, type Jobs } from '../../src/kernel/jobs';
import type { AppDeps } from '../../src/kernel/context';
import { testRedisUrl } from '../helpers/database';

const logger = pino({ level: 'silent' });
const deps = {} as AppDeps; // these probe jobs use nothing from the app

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
    expect(times[2]! - times[1]!).toBeGreaterThanOrEqual(times[1]! - times[0]!);
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(45);
  });

  it('gives up after the configured attempts', async () => {
    const { job, tries } = flakyJob('doomed', 99);
    const jobs = make([job], prefix);
    opened.push(jobs);
    await jobs.start(deps);
    await jobs.enqueue(job, { key: 'b' });
    await jobs.idle(10_000);
    expect(tries.get('b')).toHaveLength(4);
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

  it('refuses a payload that does not match the job schema', async () => {
    const { job } = flakyJob('typed', 0);
    const jobs = make([job], prefix);
    opened.push(jobs);
    await expect(jobs.enqueue(job, { key: 42 } as unknown as { key: string })).rejects.toThrow();
  });
});
