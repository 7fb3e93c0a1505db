import { createOrm, migrate } from '../../src/kernel/db';
import { allEntities } from '../../src/modules';
import { templateName, templateUrl, withAdmin } from './database';

/** Rebuild the template database from the migrations once per run, and sweep leftovers. */
export default async function globalSetup(): Promise<void> {
  await withAdmin(async (client) => {
    const stale = await client.query<{ datname: string }>(`select datname from pg_database where datname like $1`, [`${templateName}\\_%`]);
    for (const { datname } of stale.rows) await client.query(`drop database if exists "${datname}" with (force)`);
    await client.query(`drop database if exists "${templateName}" with (force)`);
    await client.query(`create database "${templateName}"`);
  });
  const { orm } = await createOrm({ clientUrl: templateUrl, entities: allEntities, poolMax: 1 });
  await migrate(orm);
  await orm.close(true);
}
