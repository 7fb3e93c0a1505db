import { MikroORM, PostgreSqlDriver, type Options } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import type { AnyEntity, EntitySchema } from '@mikro-orm/core';
import { migrationsList } from '../migrations';

export interface OrmSettings {
  clientUrl: string;
  poolMax?: number;
  entities: EntitySchema<AnyEntity>[] | EntitySchema[];
}

/**
 * The one place MikroORM's options are decided; the CLI config, the app and the scripts all
 * come through here. Migrations are listed in code (src/migrations/index.ts) so that they run
 * the same from TypeScript sources, compiled output and tests, without globbing the disk.
 */
export function ormOptions(settings: OrmSettings): Options {
  return {
    driver: PostgreSqlDriver,
    clientUrl: settings.clientUrl,
    entities: settings.entities as EntitySchema[],
    extensions: [Migrator],
    pool: { min: 0, max: settings.poolMax ?? 10 },
    // Every request forks its own EntityManager; touching the global one is a bug.
    allowGlobalContext: false,
    forceUtcTimezone: true,
    metadataCache: { enabled: false },
    discovery: { disableDynamicFileAccess: true, warnWhenNoEntities: false },
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

export async function createOrm(settings: OrmSettings): Promise<MikroORM> {
  return MikroORM.init(ormOptions(settings));
}

/** Applies pending migrations; returns the names applied. */
export async function migrate(orm: MikroORM): Promise<string[]> {
  const applied = await orm.getMigrator().up();
  return applied.map((migration) => migration.name);
}
