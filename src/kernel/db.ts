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

interface PgClient {
  query(config: { name?: string; text: string; values?: unknown[] }): Promise<{ rows: unknown[] }>;
}

interface KnexPool {
  acquireConnection(): Promise<PgClient>;
  releaseConnection(connection: PgClient): Promise<void> | void;
}

/**
 * A named, parameterised statement for a hot path. MikroORM's `execute` inlines parameters into
 * the SQL text, so PostgreSQL parses and plans every call afresh; a named statement is prepared
 * once per pooled connection and then only executed. Write the SQL with `?` placeholders (no
 * `?` operators); arrays bind as PostgreSQL arrays (`?::text[]`).
 */
export class PreparedStatement<Row> {
  private readonly text: string;

  constructor(
    private readonly name: string,
    sql: string,
  ) {
    let index = 0;
    this.text = sql.replace(/\?/g, () => `$${++index}`);
  }

  async run(orm: MikroORM, values: unknown[]): Promise<Row[]> {
    const pool = poolOf(orm);
    const connection = await pool.acquireConnection();
    try {
      return await this.runOn(orm, connection, values);
    } finally {
      await pool.releaseConnection(connection);
    }
  }

  /** On a connection already held (inside `inTransaction`). */
  async runOn(orm: MikroORM, connection: PgClient, values: unknown[]): Promise<Row[]> {
    try {
      const result = await connection.query({ name: this.name, text: this.text, values });
      return result.rows as Row[];
    } catch (error) {
      // The same exception classes as the ORM's (UniqueConstraintViolationException, ...),
      // so callers and the problem middleware handle both paths alike.
      throw orm.em.getDriver().convertException(error as Error);
    }
  }
}

const poolOf = (orm: MikroORM) => (orm.em.getConnection().getKnex() as unknown as { client: KnexPool }).client;

export type RunInTransaction = <Row>(statement: PreparedStatement<Row>, values: unknown[]) => Promise<Row[]>;

/**
 * Prepared statements in one transaction on one connection: for a hot path whose second statement
 * must see what the first locked (a lock taken in the same statement would not: its snapshot is
 * older than the lock). Commits when `work` resolves, rolls back when it throws.
 */
export async function inTransaction<T>(orm: MikroORM, work: (run: RunInTransaction) => Promise<T>): Promise<T> {
  const pool = poolOf(orm);
  const connection = await pool.acquireConnection();
  try {
    await connection.query({ text: 'begin' });
    try {
      const result = await work((statement, values) => statement.runOn(orm, connection, values));
      await connection.query({ text: 'commit' });
      return result;
    } catch (error) {
      await connection.query({ text: 'rollback' }).catch(() => undefined);
      throw error;
    }
  } finally {
    await pool.releaseConnection(connection);
  }
}
