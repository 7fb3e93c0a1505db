import { sql, type Queries } from '../../src/kernel/sql';

/** Every text, varchar, array and JSON column of every table, through information_schema. */
export async function textColumns(db: Queries) {
  return db.rows(sql<{ table_name: string; column_name: string }>`
    select c.table_name, c.column_name from information_schema.columns c
    join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name and t.table_type = 'BASE TABLE'
    where c.table_schema = 'public' and (c.data_type in ('text', 'character varying', 'character', 'json', 'jsonb') or c.data_type = 'ARRAY')
    order by c.table_name, c.column_name`);
}

/**
 * Where any of a person's traces (case-insensitive substrings: a name, the digits of a phone or
 * cédula, an email) is stored: `table.column`, once per column, over the whole schema, so a table
 * added later is checked without being named here.
 */
export async function tracesLeft(db: Queries, traces: readonly string[]): Promise<string[]> {
  const found: string[] = [];
  const patterns = traces.map((trace) => `%${trace}%`);
  for (const { table_name: table, column_name: column } of await textColumns(db)) {
    // Identifiers come from the catalogue, not from input.
    const quoted = (name: string) => `"${name.replace(/"/g, '""')}"`;
    const row = await db.first(sql<{ n: number }>`select count(*)::int as n from ${sql.raw(quoted(table))} where ${sql.raw(quoted(column))}::text ilike any(${patterns}::text[])`);
    if (row!.n > 0) found.push(`${table}.${column}`);
  }
  return found;
}
