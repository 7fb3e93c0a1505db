/**
 * `npm run migration:create -- <name>`: diff the entities against a scratch database that has
 * every existing migration applied, write the new migration, and list it in src/migrations/index.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import { MikroORM } from '@mikro-orm/postgresql';
import type { Migrator } from '@mikro-orm/migrations';
import { ormOptions } from '../src/kernel/db';
import { allEntities } from '../src/modules';

const adminUrl = process.env.MIGRATIONS_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
// Overridable so that two checkouts can create migrations at the same time on one server.
const scratch = process.env.MIGRATIONS_SCRATCH_DB ?? 'comando_migrations_scratch';
if (!/^[a-z_][a-z0-9_]*$/.test(scratch)) throw new Error('MIGRATIONS_SCRATCH_DB must be a plain lowercase identifier');

async function recreateScratch(): Promise<void> {
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  await client.query(`drop database if exists ${scratch} with (force)`);
  await client.query(`create database ${scratch}`);
  await client.end();
}

async function run(): Promise<void> {
  const name = process.argv[2];
  if (!name || !/^[A-Za-z][A-Za-z0-9]*$/.test(name)) throw new Error('Give the migration a name in CamelCase');
  await recreateScratch();
  const url = new URL(adminUrl);
  url.pathname = `/${scratch}`;
  const orm = await MikroORM.init(ormOptions({ clientUrl: url.toString(), entities: allEntities }));
  const migrator = orm.migrator as Migrator;
  await migrator.up();
  const result = await migrator.create('src/migrations', false, false, name);
  await orm.close();
  if (!result.fileName) {
    process.stdout.write('No changes: the entities match the migrations.\n');
    return;
  }
  const className = path.basename(result.fileName, '.ts');
  const indexFile = path.join('src', 'migrations', 'index.ts');
  const index = fs.readFileSync(indexFile, 'utf8');
  const withImport = index.replace(
    "import type { MigrationObject } from '@mikro-orm/core';\n",
    `import type { MigrationObject } from '@mikro-orm/core';\nimport { ${className} } from './${className}';\n`,
  );
  const updated = withImport.replace(/\];\s*$/, `  { name: '${className}', class: ${className} },\n];\n`);
  fs.writeFileSync(indexFile, updated);
  process.stdout.write(`Wrote src/migrations/${result.fileName} and listed it in src/migrations/index.ts\n`);
}

run().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
