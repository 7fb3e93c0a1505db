/*
 * The `sql` tag and its fragments: text and values only, no driver, so that a policy's SQL twin can
 * sit beside its TypeScript rule in a file the console also imports. `kernel/sql.ts` runs them.
 */

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

  /**
   * Prepared under a name of its text's own (`prefix_1`, `prefix_2`… in the order texts are first
   * seen), for a statement built from optional pieces whose plan does not depend on the values:
   * each shape is parsed once per connection and keeps its generic plan. The shapes must be few
   * (a list's filter combinations), since each stays prepared on every pooled connection.
   */
  preparedByShape(prefix: string): Sql<Row> {
    let names = shapeNames.get(prefix);
    if (!names) shapeNames.set(prefix, (names = new Map()));
    let name = names.get(this.text);
    if (!name) names.set(this.text, (name = `${prefix}_${names.size + 1}`));
    return new Sql<Row>(this.parts, this.values, name);
  }
}

/** Statement names given out by `preparedByShape`, per prefix: text → name. */
const shapeNames = new Map<string, Map<string, string>>();

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
