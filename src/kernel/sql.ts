import { types as defaultTypes, type Pool, type PoolClient, type QueryConfig } from 'pg';
import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, sql as builderSql, type Compilable, type CompiledQuery, type RawBuilder } from 'kysely';

import { Sql } from './sql-tag';

export { Sql, sql, type BatchColumnType } from './sql-tag';

/**
 * A fragment of the `sql` tag as an expression of the typed query builder, its values bound in the
 * same order: `innerJoin(builderFragment<Row>(audienceContacts()).as('c'), 'c.id', 'l.contact_id')`
 * lets a list built and paged with the builder use what another module publishes as `Sql`. `Row`
 * names the columns the caller reads (a fragment typed `Sql<never>` says none); a prepared
 * fragment's name is not kept.
 * Not in `sql-tag.ts`: the console imports that file, which must stay free of the builder.
 */
export function builderFragment<Row>(fragment: Sql<unknown>): RawBuilder<Row> {
  // Kysely's tag binds every value that is not one of its own expressions; ours are plain values.
  return builderSql<Row>(fragment.parts as unknown as TemplateStringsArray, ...fragment.values);
}

/** A statement built with the typed query builder, prepared under `name` (see `Sql.prepared`). */
export function prepared<Row>(name: string, query: Compilable<Row>): Sql<Row> {
  const compiled = query.compile();
  const parts = compiled.sql.split(/\$\d+/);
  return new Sql<Row>(parts, compiled.parameters, name);
}

/** A statement from the `sql` tag, or one built with the typed query builder. */
export type Query<Row> = Sql<Row> | Compilable<Row>;

/**
 * The typed query builder for a module's own tables: `tables<ModuleTables>()` checks every table
 * and column name against the entities at compile time and infers each result's row type. It
 * only builds: statements run through `Database`, like the `sql` tag's.
 */
export function tables<DB>(): Kysely<DB> {
  return builder as unknown as Kysely<DB>;
}

const builder = new Kysely<unknown>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

/** A bigint, numeric or double column as a number (pg gives bigint and numeric as strings; counts stay far below 2^53). */
export const numberOrNull = (value: string | number | null | undefined): number | null => (value === null || value === undefined ? null : Number(value));

/** How many rows a write touched, and the rows it returned. */
export interface WriteResult<Row> {
  count: number;
  rows: Row[];
}

/** Running statements: the pool, or one connection inside a transaction. */
export interface Queries {
  /** Every row. */
  rows<Row>(query: Query<Row>): Promise<Row[]>;
  /** The first row, or undefined when there is none. */
  first<Row>(query: Query<Row>): Promise<Row | undefined>;
  /** A write: how many rows it touched, and what it returned. */
  write<Row = never>(query: Query<Row>): Promise<WriteResult<Row>>;
}

interface Client {
  query(config: QueryConfig): Promise<{ rows: unknown[]; rowCount: number | null }>;
}

/**
 * pg's own parsers: timestamps as `Date`, bigint and numeric as strings. The pool is shared with
 * the ORM, which sets its own parsers on it (timestamps as text); statements here say theirs.
 */
const parsers = { getTypeParser: defaultTypes.getTypeParser };

function compile(query: Query<unknown>): { text: string; values: readonly unknown[]; name?: string | undefined } {
  if (query instanceof Sql) return query;
  const compiled: CompiledQuery<unknown> = query.compile();
  return { text: compiled.sql, values: compiled.parameters };
}

class Runner implements Queries {
  constructor(
    private readonly acquire: () => Promise<{ client: Client; release: () => void }>,
    private readonly convertError: (error: Error) => Error,
  ) {}

  async run(query: Query<unknown>): Promise<{ rows: unknown[]; rowCount: number | null }> {
    const { text, values, name } = compile(query);
    const { client, release } = await this.acquire();
    try {
      return await client.query({ text, values: values as unknown[], types: parsers, ...(name ? { name } : {}) });
    } catch (error) {
      throw this.convertError(error as Error);
    } finally {
      release();
    }
  }

  async rows<Row>(query: Query<Row>): Promise<Row[]> {
    return (await this.run(query)).rows as Row[];
  }

  async first<Row>(query: Query<Row>): Promise<Row | undefined> {
    return (await this.run(query)).rows[0] as Row | undefined;
  }

  async write<Row = never>(query: Query<Row>): Promise<WriteResult<Row>> {
    const result = await this.run(query);
    return { count: result.rowCount ?? 0, rows: result.rows as Row[] };
  }
}

/**
 * One connection's statements, one after another: pg would queue statements sent together on a
 * client too, but warns that it will stop (pg 9), and code inside a transaction may well send two at
 * once (`Promise.all` over reads).
 */
function oneAtATime(client: PoolClient): Client {
  let previous: Promise<unknown> = Promise.resolve();
  return {
    query(config: QueryConfig) {
      const result = previous.then(() => client.query(config));
      previous = result.catch(() => undefined);
      return result;
    },
  };
}

/** Bounds on every statement of one transaction, in milliseconds. */
export interface TransactionLimits {
  lockTimeoutMs?: number;
  statementTimeoutMs?: number;
}

/** `begin`, with the limits set for the transaction in the same round trip (SET takes no parameters: they are checked integers). */
export function beginWith(limits: TransactionLimits): string {
  const settings: string[] = ['begin'];
  for (const [name, value] of [
    ['lock_timeout', limits.lockTimeoutMs],
    ['statement_timeout', limits.statementTimeoutMs],
  ] as const) {
    if (value === undefined) continue;
    if (!Number.isSafeInteger(value) || value <= 0) throw new RangeError(`${name} must be a positive whole number of milliseconds`);
    settings.push(`set local ${name} = ${value}`);
  }
  return settings.join('; ');
}

/**
 * The one owner of the database pool outside the ORM (which shares it). Every hand-written or
 * query-built statement runs here: bound parameters, optional preparation, the ORM's exception
 * classes for constraint violations, and transactions on one connection.
 */
export class Database extends Runner {
  constructor(
    private readonly pool: Pool,
    convertError: (error: Error) => Error,
  ) {
    super(async () => {
      const client = await pool.connect();
      return { client, release: () => client.release() };
    }, convertError);
    this.convert = convertError;
  }

  private readonly convert: (error: Error) => Error;

  /** The pool's connections (open, idle) and the statements waiting for one, for the metrics. */
  poolStats(): { total: number; idle: number; waiting: number } {
    return { total: this.pool.totalCount, idle: this.pool.idleCount, waiting: this.pool.waitingCount };
  }

  /**
   * Runs `work` on one connection held throughout, outside any transaction: for session state
   * such as an advisory lock that must be released on the connection that took it.
   */
  async session<T>(work: (connection: Queries) => Promise<T>): Promise<T> {
    const client: PoolClient = await this.pool.connect();
    try {
      const serial = oneAtATime(client);
      return await work(new Runner(async () => ({ client: serial, release: () => undefined }), this.convert));
    } finally {
      client.release();
    }
  }

  /**
   * Runs `work` in one transaction on one connection: committed when it resolves, rolled back
   * when it throws. Statements inside see each other's writes and locks. `limits` bound how long
   * any one statement inside may wait for a lock or run (PostgreSQL's `lock_timeout` and
   * `statement_timeout`, for this transaction only); one that gives up throws the driver's error
   * (SQLSTATE 55P03 or 57014), which the API answers as a 503.
   */
  async transaction<T>(work: (tx: Queries) => Promise<T>, limits: TransactionLimits = {}): Promise<T> {
    const client: PoolClient = await this.pool.connect();
    const serial = oneAtATime(client);
    const tx = new Runner(async () => ({ client: serial, release: () => undefined }), this.convert);
    let broken = false;
    try {
      await client.query(beginWith(limits));
      const result = await work(tx);
      await serial.query({ text: 'commit' });
      return result;
    } catch (error) {
      // After any statement still running (a sibling of the one that failed), on the same queue.
      await serial.query({ text: 'rollback' }).catch(() => {
        broken = true;
      });
      throw error;
    } finally {
      client.release(broken);
    }
  }
}
