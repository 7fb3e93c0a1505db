import type { SnakeCase } from '@mikro-orm/sql';

/*
 * Records derived from rows. A repository reads snake_case rows whose types the query builder
 * infers from the entities (`Selectable` of its `InferKyselyDB` tables) and hands its services the
 * same fields in camelCase: `CamelCased<Row>` is the record's type, `camelRow` makes one and
 * `snakeRow` turns one back into the row a write takes, so no shape is written out twice.
 */

/** `due_soon_at` → `dueSoonAt`. */
export type CamelCase<Name extends string> = Name extends `${infer Head}_${infer Tail}` ? `${Head}${Capitalize<CamelCase<Tail>>}` : Name;

/** A row's fields under camelCase names, types unchanged. */
export type CamelCased<Row> = { [Key in keyof Row as Key extends string ? CamelCase<Key> : never]: Row[Key] };

/** A record's fields under the column names they came from (MikroORM's own snake_case, as the entities' columns are named). */
export type SnakeCased<Fields> = { [Key in keyof Fields as Key extends string ? SnakeCase<Key> : never]: Fields[Key] };

const camelNames = new Map<string, string>();
const snakeNames = new Map<string, string>();

function camelName(column: string): string {
  let name = camelNames.get(column);
  if (name === undefined) camelNames.set(column, (name = column.replace(/_([a-z0-9])/g, (_match, letter: string) => letter.toUpperCase())));
  return name;
}

function snakeName(field: string): string {
  let name = snakeNames.get(field);
  if (name === undefined) snakeNames.set(field, (name = field.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`)));
  return name;
}

/** `Row` with the columns `Numeric` typed as the numbers `camelRow` makes of them. */
export type WithNumbers<Row, Numeric extends keyof Row> = { [Key in keyof Row]: Key extends Numeric ? number | Extract<Row[Key], null> : Row[Key] };

/**
 * The record of a row: its keys in camelCase. The columns named in `numbers` become numbers: int8
 * ones the entity declares `p.bigint('number')` (pg hands them over as text; campaign counts stay
 * far below 2^53) and double ones (pg gives numbers, the entity's type also allows text).
 */
export function camelRow<Row extends object, Numeric extends keyof Row & string = never>(row: Row, numbers: readonly Numeric[] = []): CamelCased<WithNumbers<Row, Numeric>> {
  const record: Record<string, unknown> = {};
  for (const [column, value] of Object.entries(row)) record[camelName(column)] = value;
  for (const column of numbers) {
    const value: unknown = (row as Record<string, unknown>)[column];
    if (value !== null && value !== undefined) record[camelName(column)] = Number(value);
  }
  return record as CamelCased<WithNumbers<Row, Numeric>>;
}

/** The row of a record, for an insert's values or an update's `set`: its keys back in snake_case. */
export function snakeRow<Fields extends object>(fields: Fields): SnakeCased<Fields> {
  const row: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(fields)) row[snakeName(field)] = value;
  return row as SnakeCased<Fields>;
}

/** A json column's value for a write, as its JSON text: pg would send a JS array as a PostgreSQL array. */
export const jsonText = <Value>(value: Value): Value => JSON.stringify(value) as unknown as Value;
