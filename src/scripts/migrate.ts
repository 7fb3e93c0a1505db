import { loadConfig } from '../config';
import { createLogger } from '../kernel/logger';
import { Runtime } from '../runtime';

/** `npm run migrate`: apply pending migrations and exit (the app also does this at start). */
async function run(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  const runtime = await Runtime.create(config, { logger, workers: false });
  await runtime.stop();
}

run().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
