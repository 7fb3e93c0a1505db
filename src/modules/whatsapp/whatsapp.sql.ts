import type { MikroORM } from '@mikro-orm/postgresql';

interface PgClient {
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
}

interface KnexPool {
  acquireConnection(): Promise<PgClient>;
  releaseConnection(connection: PgClient): Promise<void> | void;
}

export function pgPool(orm: MikroORM): KnexPool {
  return (orm.em.getConnection().getKnex() as unknown as { client: KnexPool }).client;
}

/**
 * A parameterised statement planned at every call with its actual values. For statements that
 * join `unnest($n::uuid[])` to a large table: a cached generic plan guesses 100 array elements and
 * may pick a sequential scan, where the real handful of ids wants the primary-key index.
 * (`?` placeholders, as in PreparedStatement.)
 */
export class PlannedEachTime<Row> {
  private readonly text: string;

  constructor(sql: string) {
    let index = 0;
    this.text = sql.replace(/\?/g, () => `$${++index}`);
  }

  async run(orm: MikroORM, values: unknown[]): Promise<Row[]> {
    const pool = pgPool(orm);
    const connection = await pool.acquireConnection();
    try {
      return (await connection.query(this.text, values)).rows as Row[];
    } catch (error) {
      throw orm.em.getDriver().convertException(error as Error);
    } finally {
      await pool.releaseConnection(connection);
    }
  }
}
