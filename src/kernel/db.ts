import { MikroORM, PostgreSqlDriver, type Options } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import type { AnyEntity, EntitySchema } from '@mikro-orm/core';
import type { Pool } from 'pg';
import { migrationsList } from '../migrations';
import { Database } from './sql';

export interface OrmSettings {
  clientUrl: string;
  poolMax?: number;
  /** How long a statement waits for a pooled connection (or a new one to open) before it fails, ms. */
  acquireTimeoutMs?: number;
  entities: EntitySchema<AnyEntity>[] | EntitySchema[];
}

/**
 * The one place MikroORM's options are decided; the CLI config, the app and the scripts all
 * come through here. Migrations are listed in code (src/migrations/index.ts) so that they run
 * the same from TypeScript sources, compiled output and tests, without globbing the disk.
 */
export function ormOptions(settings: OrmSettings, onPoolCreated?: (pool: Pool) => void): Options {
  return {
    driver: PostgreSqlDriver,
    clientUrl: settings.clientUrl,
    entities: settings.entities as EntitySchema[],
    extensions: [Migrator],
    pool: { min: 0, max: settings.poolMax ?? 10 },
    // pg-pool's connectionTimeoutMillis bounds both the wait for a free connection and opening one:
    // a request never queues for the pool without end behind connections held by slow work.
    driverOptions: { ...(onPoolCreated ? { onPoolCreated } : {}), ...(settings.acquireTimeoutMs ? { connectionTimeoutMillis: settings.acquireTimeoutMs } : {}) },
    // Every request forks its own EntityManager; touching the global one is a bug.
    allowGlobalContext: false,
    forceUtcTimezone: true,
    metadataCache: { enabled: false },
    discovery: { warnWhenNoEntities: false },
    schemaGenerator: {
      // Foreign keys as round 1 created them (MikroORM 6's default), so the upgrade changes no constraint.
      defaultUpdateRule: 'cascade',
      // Triggers and functions are written by hand in migrations (station tallies, append-only
      // consent texts); the schema diff must neither drop nor re-create them.
      ignoreTriggers: true,
      ignoreRoutines: true,
    },
    migrations: {
      tableName: 'mikro_orm_migrations',
      pathTs: 'src/migrations',
      path: 'dist/src/migrations',
      emit: 'ts',
      // New migrations are diffed against a scratch database with every migration applied
      // (scripts/migration-create.ts), so no snapshot file is kept or rewritten.
      snapshot: false,
      transactional: true,
      silent: true,
      allOrNothing: true,
      migrationsList,
    },
  };
}

/** The ORM and the statement runner, on one shared connection pool. */
export interface DataLayer {
  orm: MikroORM;
  db: Database;
}

export async function createOrm(settings: OrmSettings): Promise<DataLayer> {
  let pool: Pool | undefined;
  const orm = await MikroORM.init(ormOptions(settings, (created) => (pool = created)));
  // The ORM connects lazily; the pool exists once it has.
  await orm.connect();
  if (!pool) throw new Error('the PostgreSQL pool was not created');
  const driver = orm.em.getDriver();
  return { orm, db: new Database(pool, (error) => driver.convertException(error)) };
}

/** Applies pending migrations; returns the names applied. */
export async function migrate(orm: MikroORM): Promise<string[]> {
  const applied = await orm.migrator.up();
  return applied.map((migration) => migration.name);
}
