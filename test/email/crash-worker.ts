/**
 * A worker process for the crash test: runs Comando's job workers on the environment it is
 * given until the test kills it with SIGKILL mid-campaign.
 */
import { loadConfig } from '../../src/config';
import { Runtime } from '../../src/runtime';

void Runtime.create(loadConfig(process.env), { migrate: false }).then(
  () => process.stdout.write('ready\n'),
  (error: unknown) => {
    process.stderr.write(`worker failed to start: ${String(error)}\n`);
    process.exit(1);
  },
);
