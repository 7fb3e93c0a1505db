import type Koa from 'koa';
import type { Pool } from 'pg';

/** Listen on PORT/HOST; on SIGTERM stop accepting, close the pool and exit (the harness stops baselines this way). */
export function serveBaseline(app: Koa, pool: Pool, defaultPort: number): void {
  const server = app.listen(Number(process.env.PORT ?? defaultPort), process.env.HOST ?? '127.0.0.1');
  process.once('SIGTERM', () => {
    server.close();
    void pool.end().finally(() => process.exit(0));
  });
}

export function exitOnFailure(run: () => Promise<void>): void {
  run().catch((error: unknown) => {
    process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  });
}
