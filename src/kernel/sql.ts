import { types as defaultTypes, type Pool, type PoolClient, type QueryConfig } from 'pg';
import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, type Compilable, type CompiledQuery } from 'kysely';

/**
 * A SQL statement written with the `sql` tag: its text with numbered placeholders, its values in
 * the same order, and, for a statement on a hot path, the name it is prepared under.
 */
export class Sql<Row = unknown> {
  /** The text PostgreSQL receives: `$1`, `$2`… in place of each value. */
  readonly text: string;

  /** @internal strings between the values (one more than values). */
  readonly parts: readonly string[];

  declare readonly rowType: Row;

  constructor(
    parts: readonly string[],
    readonly values: readonly unknown[],
    readonly name?: string,
  ) {
    this.parts = parts;
    let text = parts[0] ?? '';
    for (let index = 1; index < parts.length; index++) text += `$${index}${parts[index]}`;
    this.text = text;
  }

  /**
   * Prepared once per pooled connection under `name` and only executed afterwards: PostgreSQL skips
   * parsing, and planning too once it keeps a generic plan, which it does after five runs if that
   * plan is estimated no dearer than the ones made for each run's values. Name statements whose best
   * plan does not depend on the values (look-ups by key) and pass a batch's arrays with `sql.batch`,
   * or they are planned on every run; a statement whose plan should follow its values stays unnamed.
   */
  prepared(name: string): Sql<Row> {
    return new Sql<Row>(this.parts, this.values, name);
  }
}

/** A fragment to splice into a statement unescaped: only text the code itself wrote, never input. */
class Raw {
  constructor(readonly text: string) {}
}

/**
 * `sql<Row>\`select … where id = ${id}\``: each interpolated value becomes a bound parameter;
 * an interpolated `Sql` is spliced in with its own values; `sql.raw(text)` splices code-written
 * text (a column list chosen by the code, never a value from a request).
 */
export function sql<Row = Record<string, unknown>>(strings: TemplateStringsArray, ...params: unknown[]): Sql<Row> {
  const parts: string[] = [strings[0] ?? ''];
  const values: unknown[] = [];
  const append = (text: string) => {
    parts[parts.length - 1] += text;
  };
  params.forEach((param, index) => {
    if (param instanceof Sql) {
      append(param.parts[0] ?? '');
      for (let part = 1; part < param.parts.length; part++) {
        values.push(param.values[part - 1]);
        parts.push(param.parts[part] ?? '');
      }
    } else if (param instanceof Raw) {
      append(param.text);
    } else {
      values.push(param);
      parts.push('');
    }
    append(strings[index + 1] ?? '');
  });
  return new Sql<Row>(parts, values);
}

sql.raw = (text: string): Raw => new Raw(text);

/** The element types a batch column (`sql.batch`) may have. */
export type BatchColumnType = 'uuid' | 'text' | 'boolean' | 'int' | 'bigint' | 'timestamptz';

/**
 * One column of a batch to `unnest`: `(select $n::type[])`. With a bare array parameter the plan
 * made for each run reads the array's length, looks cheaper than the generic plan for a batch of
 * a few rows, and a named statement is planned again on every run; behind a scalar subquery the
 * batch has the planner's default size in both, they cost the same, and after its fifth run the
 * statement keeps the generic plan.
 */
sql.batch = (values: readonly unknown[], type: BatchColumnType): Sql<never> => sql<never>`(select ${values}::${sql.raw(type)}[])`;

/** Joins fragments (`sql\`a = ${x}\``, …) with a separator, for lists the code builds. */
sql.join = (fragments: readonly Sql<unknown>[], separator = ', '): Sql<never> => {
  const parts: string[] = [];
  const values: unknown[] = [];
  fragments.forEach((fragment, index) => {
    const [first = '', ...rest] = fragment.parts;
    if (index === 0) parts.push(first);
    else parts[parts.length - 1] += separator + first;
    fragment.values.forEach((value, position) => {
      values.push(value);
      parts.push(rest[position] ?? '');
    });
  });
  if (parts.length === 0) parts.push('');
  return new Sql<never>(parts, values);
};

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

  /**
   * Runs `work` on one connection held throughout, outside any transaction: for session state
   * such as an advisory lock that must be released on the connection that took it.
   */
  async session<T>(work: (connection: Queries) => Promise<T>): Promise<T> {
    const client: PoolClient = await this.pool.connect();
    try {
      return await work(new Runner(async () => ({ client, release: () => undefined }), this.convert));
    } finally {
      client.release();
    }
  }

  /**
   * Runs `work` in one transaction on one connection: committed when it resolves, rolled back
   * when it throws. Statements inside see each other's writes and locks.
   */
  async transaction<T>(work: (tx: Queries) => Promise<T>): Promise<T> {
    const client: PoolClient = await this.pool.connect();
    const tx = new Runner(async () => ({ client, release: () => undefined }), this.convert);
    let broken = false;
    try {
      await client.query('begin');
      const result = await work(tx);
      await client.query('commit');
      return result;
    } catch (error) {
      await client.query('rollback').catch(() => {
        broken = true;
      });
      throw error;
    } finally {
      client.release(broken);
    }
  }
}
