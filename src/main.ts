import { existsSync } from 'node:fs';
import { ConfigError, loadConfig } from './config';
import { createLogger } from './kernel/logger';
import { Runtime } from './runtime';

/** Start: config → database (+ migrations) → Redis → app → HTTP server → sockets → workers. */
async function main(): Promise<void> {
  // A `.env` in the working folder fills in what the environment does not set (it never overrides).
  if (existsSync('.env')) process.loadEnvFile('.env');
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(78); // EX_CONFIG
    }
    throw error;
  }
  const logger = createLogger(config.logLevel);
  const runtime = await Runtime.create(config, { logger });
  const address = await runtime.listen();
  logger.info(
    { port: address.port, database: config.databaseUrl ? 'external' : 'embedded', redis: config.redisUrl ? 'external' : 'none' },
    `Comando listening on http://localhost:${address.port}`,
  );

  const shutdown = (signal: string) => {
    logger.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      logger.error('shutdown took too long; exiting');
      process.exit(1);
    }, config.shutdownTimeoutSeconds * 1000);
    timer.unref();
    runtime.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ error: (error as Error).message }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}

main().catch((error: unknown) => {
  process.stderr.write(`Comando failed to start: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
