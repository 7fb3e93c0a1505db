import type { Client } from 'pg';

/** Where the global setup keeps the connection holding the run's lock (set up and torn down in Jest's parent process). */
export const RUN_GUARD = Symbol.for('comando.testRunGuard');

/** Lets the next run on this template start: closes the connection whose session holds the lock. */
export default async function globalTeardown(): Promise<void> {
  const guard = (globalThis as Record<symbol, unknown>)[RUN_GUARD] as Client | undefined;
  await guard?.end();
}
