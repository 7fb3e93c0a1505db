import { execFileSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createOrm, migrate } from '../../src/kernel/db';
import { allEntities } from '../../src/modules';
import { templateName, templateUrl, testDataDir, withAdmin } from './database';

const root = join(__dirname, '..', '..');

/** Rebuild the template database from the migrations once per run, and sweep leftovers (databases, files). */
export default async function globalSetup(): Promise<void> {
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
