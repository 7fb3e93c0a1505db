import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { InferKyselyDB } from '@mikro-orm/sql';
import { createOrm, type DataLayer } from '../../src/kernel/db';
import { prepared, sql, tables } from '../../src/kernel/sql';
import { allEntities } from '../../src/modules';
import type { TerritorySchema } from '../../src/modules/territories/territories.entities';
import { createTestDatabase, type TestDatabase } from '../helpers/database';

let database: TestDatabase;
let layer: DataLayer;

beforeAll(async () => {
  database = await createTestDatabase();
  layer = await createOrm({ clientUrl: database.url, entities: allEntities, poolMax: 3 });
  await layer.db.write(sql`create table sql_probe (id int primary key, label text not null, at timestamptz)`);
});

afterAll(async () => {
  await layer.orm.close(true);
  await database.drop();
});

describe('the sql tag', () => {
  it('numbers its own placeholders and keeps values in order', () => {
    const id = 7;
    const statement = sql`select * from t where id = ${id} and label = ${'a'} or label = ${'b'}`;
    expect(statement.text).toBe('select * from t where id = $1 and label = $2 or label = $3');
    expect(statement.values).toEqual([7, 'a', 'b']);
  });

  it('splices a fragment with its values renumbered, and joins lists', () => {
    const filter = sql`label = ${'x'} and id > ${3}`;
    const statement = sql`select ${1} as one from t where ${filter} and at < ${'now'}`;
    expect(statement.text).toBe('select $1 as one from t where label = $2 and id > $3 and at < $4');
    expect(statement.values).toEqual([1, 'x', 3, 'now']);
    const list = sql.join([sql`a = ${1}`, sql`b = ${2}`, sql`c`], ' and ');
    expect(sql`where ${list} limit ${9}`.text).toBe('where a = $1 and b = $2 and c limit $3');
  });

  it('splices code-written text unbound with sql.raw', () => {
    const statement = sql`select ${sql.raw('count(*)')} from t where id = ${1}`;
    expect(statement.text).toBe('select count(*) from t where id = $1');
  });

  it('runs bound values, so text that looks like SQL stays a value', async () => {
    const label = "x'); drop table sql_probe; --";
    await layer.db.write(sql`insert into sql_probe (id, label) values (${1}, ${label})`);
    const row = await layer.db.first(sql<{ label: string }>`select label from sql_probe where id = ${1}`);
    expect(row?.label).toBe(label);
  });

  it('reads timestamps as Date objects and writes them from Date objects', async () => {
    const at = new Date('2026-03-08T13:45:00.123Z');
    await layer.db.write(sql`insert into sql_probe (id, label, at) values (${2}, ${'dated'}, ${at})`);
    const row = await layer.db.first(sql<{ at: Date }>`select at from sql_probe where id = ${2}`);
    expect(row?.at).toBeInstanceOf(Date);
    expect(row?.at.toISOString()).toBe(at.toISOString());
  });

  it('prepares a named statement once per connection and runs it again with other values', async () => {
    const byId = (id: number) => sql<{ label: string }>`select label from sql_probe where id = ${id}`.prepared('sql_probe_by_id');
    await layer.db.session(async (connection) => {
      expect((await connection.first(byId(1)))?.label).toContain('drop table');
      expect((await connection.first(byId(2)))?.label).toBe('dated');
      const prepared = await connection.rows(sql<{ name: string; statement: string }>`select name, statement from pg_prepared_statements`);
      expect(prepared).toEqual([{ name: 'sql_probe_by_id', statement: 'select label from sql_probe where id = $1' }]);
    });
  });

  it('prepares each shape of a statement built from optional pieces under a name of its own', async () => {
    const labels = (filter: { id?: number; label?: string }) => {
      const clauses = [sql`true`];
      if (filter.id !== undefined) clauses.push(sql`id = ${filter.id}`);
      if (filter.label !== undefined) clauses.push(sql`label = ${filter.label}`);
      return sql<{ label: string }>`select label from sql_probe where ${sql.join(clauses, ' and ')} order by id`.preparedByShape('sql_probe_shape');
    };
    expect(labels({ id: 1 }).name).toBe(labels({ id: 2 }).name);
    expect(labels({ id: 1 }).name).not.toBe(labels({ label: 'dated' }).name);
    expect(labels({}).name).not.toBe(labels({ id: 1, label: 'dated' }).name);
    await layer.db.session(async (connection) => {
      expect(await connection.rows(labels({ id: 2 }))).toEqual([{ label: 'dated' }]);
      expect(await connection.rows(labels({ label: 'dated' }))).toEqual([{ label: 'dated' }]);
      expect(await connection.rows(labels({ id: 1, label: 'dated' }))).toEqual([]);
      const prepared = await connection.rows(sql<{ name: string }>`select name from pg_prepared_statements where name like 'sql_probe_shape%' order by name`);
      expect(prepared).toHaveLength(3);
    });
  });

  it('keeps a generic plan for a batch whose arrays are batch columns, where bare arrays are planned every run', async () => {
    // A join the planner has choices for, so that a plan for one row looks cheaper than one for a default-sized batch.
    const statement = (ids: number[], batch: boolean) =>
      sql<{ label: string }>`
        select p.label from sql_probe p join sql_probe q on q.id = p.id
        join unnest(${batch ? sql.batch(ids, 'int') : sql`${ids}::int[]`}, ${batch ? sql.batch(ids.map(String), 'text') : sql`${ids.map(String)}::text[]`}) as i(id, tag)
          on i.id = p.id and i.tag = q.id::text`.prepared(batch ? 'sql_probe_batch' : 'sql_probe_bare');
    await layer.db.session(async (connection) => {
      for (let run = 0; run < 8; run += 1) {
        expect(await connection.rows(statement([1], true))).toHaveLength(1);
        expect(await connection.rows(statement([1], false))).toHaveLength(1);
      }
      const plans = await connection.rows(
        sql<{ name: string; generic: number; custom: number }>`
          select name, generic_plans::int as generic, custom_plans::int as custom from pg_prepared_statements
          where name in ('sql_probe_bare', 'sql_probe_batch') order by name`,
      );
      expect(plans).toEqual([
        { name: 'sql_probe_bare', generic: 0, custom: 8 },
        { name: 'sql_probe_batch', generic: 3, custom: 5 },
      ]);
    });
  });

  it('throws the ORM exception classes for constraint violations', async () => {
    await expect(layer.db.write(sql`insert into sql_probe (id, label) values (${1}, ${'again'})`)).rejects.toBeInstanceOf(UniqueConstraintViolationException);
  });

  it('counts the rows a write touched and returns what it returned', async () => {
    const result = await layer.db.write(sql<{ id: number }>`update sql_probe set label = label || '!' where id in (${1}, ${2}) returning id`);
    expect(result.count).toBe(2);
    expect(result.rows.map((row) => row.id).sort()).toEqual([1, 2]);
  });
});

describe('transactions', () => {
  it('commits when the work resolves and rolls back everything when it throws', async () => {
    await layer.db.transaction(async (tx) => {
      await tx.write(sql`insert into sql_probe (id, label) values (${10}, ${'kept'})`);
    });
    await expect(
      layer.db.transaction(async (tx) => {
        await tx.write(sql`insert into sql_probe (id, label) values (${11}, ${'dropped'})`);
        await tx.write(sql`insert into sql_probe (id, label) values (${10}, ${'duplicate'})`);
      }),
    ).rejects.toBeInstanceOf(UniqueConstraintViolationException);
    const ids = await layer.db.rows(sql<{ id: number }>`select id from sql_probe where id >= ${10} order by id`);
    expect(ids).toEqual([{ id: 10 }]);
  });

  it('sees its own writes inside, and other connections do not until commit', async () => {
    await layer.db.transaction(async (tx) => {
      await tx.write(sql`insert into sql_probe (id, label) values (${12}, ${'pending'})`);
      expect(await tx.first(sql`select 1 from sql_probe where id = ${12}`)).toBeDefined();
      expect(await layer.db.first(sql`select 1 from sql_probe where id = ${12}`)).toBeUndefined();
    });
    expect(await layer.db.first(sql`select 1 from sql_probe where id = ${12}`)).toBeDefined();
  });

  it('keeps session state on one connection', async () => {
    const held = await layer.db.session(async (connection) => {
      await connection.write(sql`select set_config('comando.probe', ${'here'}, false)`);
      return (await connection.first(sql<{ value: string }>`select current_setting('comando.probe') as value`))?.value;
    });
    expect(held).toBe('here');
  });
});

describe('the typed query builder', () => {
  const territories = tables<InferKyselyDB<typeof TerritorySchema>>();

  it('builds statements that run through the same pool, typed by the entities', async () => {
    const now = new Date();
    await layer.db.write(
      territories.insertInto('territories').values({ id: '0195f0a0-0000-7000-8000-000000000001', name: 'Chapinero', type: 'commune', created_at: now, updated_at: now }),
    );
    const found = await layer.db.rows(territories.selectFrom('territories').select(['name', 'type', 'created_at']).where('type', '=', 'commune'));
    expect(found).toEqual([{ name: 'Chapinero', type: 'commune', created_at: now }]);
  });

  it('can prepare a built statement under a name', async () => {
    const query = territories.selectFrom('territories').select('name').where('name', '=', 'Chapinero').where('type', '=', 'commune');
    const statement = prepared('sql_probe_territory_by_name', query);
    expect(statement.text).toBe(query.compile().sql);
    expect(await layer.db.rows(statement)).toEqual([{ name: 'Chapinero' }]);
  });
});
