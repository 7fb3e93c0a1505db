import { execFileSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { createOrm, migrate } from '../../src/kernel/db';
import { allEntities } from '../../src/modules';
import { adminUrl, templateName, templateUrl, testDataDir, withAdmin } from './database';
import { RUN_GUARD } from './global-teardown';

const root = join(__dirname, '..', '..');

/**
 * One run per template at a time: the sweep below drops the template's clones, and a second run on
 * the same DATABASE_URL (a forgotten variable beside a CI run) dropped the first's databases in the
 * middle of its tests. A session advisory lock, held on a connection kept open until the teardown,
 * makes the second run stop at once and say why.
 */
async function holdRunGuard(): Promise<void> {
  const guard = new Client({ connectionString: adminUrl });
  await guard.connect();
  guard.on('error', () => undefined);
  const { rows } = await guard.query<{ held: boolean }>('select pg_try_advisory_lock(hashtext($1)) as held', [`comando test run: ${templateName}`]);
  if (!rows[0]!.held) {
    await guard.end();
    throw new Error(`Another test run is using the database ${templateName}; give this one its own with DATABASE_URL (say, postgres://…/comando_test_<yours>).`);
  }
  (globalThis as Record<symbol, unknown>)[RUN_GUARD] = guard;
}

/** Rebuild the template database from the migrations once per run, and sweep leftovers (databases, files). */
export default async function globalSetup(): Promise<void> {
  await holdRunGuard();
  // The screens' tests load the built pages: `npm install && npm test` on a fresh clone builds them once.
  if (!existsSync(join(root, 'dist', 'web', 'brigada', 'index.html'))) execFileSync('npm', ['run', 'build:web'], { cwd: root, stdio: 'inherit' });
  await withAdmin(async (client) => {
    // Only this template's own clones (see createTestDatabase): a LIKE 'comando_test_%' sweep also
    // dropped other checkouts' templates such as comando_test_<helper> in the middle of their runs.
    const stale = await client.query<{ datname: string }>(`select datname from pg_database where datname ~ $1`, [`^${templateName.replace(/\W/g, '\\$&')}_[0-9a-f]{10}$`]);
    for (const { datname } of stale.rows) await client.query(`drop database if exists "${datname}" with (force)`);
    await client.query(`drop database if exists "${templateName}" with (force)`);
    await client.query(`create database "${templateName}"`);
  });
  rmSync(testDataDir, { recursive: true, force: true });
  const { orm } = await createOrm({ clientUrl: templateUrl, entities: allEntities, poolMax: 1 });
  await migrate(orm);
  await orm.close(true);
}
