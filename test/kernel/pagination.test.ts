import { Cursor } from '@mikro-orm/core';
import { createOrm, type DataLayer } from '../../src/kernel/db';
import { queryPage } from '../../src/kernel/pagination';
import { builderFragment, sql, tables } from '../../src/kernel/sql';
import { allEntities } from '../../src/modules';
import { createTestDatabase, type TestDatabase } from '../helpers/database';

/** Two probe tables: items, and the owners another module would publish only as a fragment. */
interface ProbeTables {
  page_probe_items: { id: number; owner_id: number; label: string };
  page_probe_owners: { id: number; name: string };
}

const db = tables<ProbeTables>();

/** What "the other module" publishes: its owners, the hidden ones left out. */
const visibleOwners = (hidden: string) => sql<never>`(select id, name from page_probe_owners where name <> ${hidden})`;

/** Items with their owner's name, through the fragment, filtered by the builder on both sides of it. */
function itemsWithOwners(minimum: number) {
  return db
    .selectFrom('page_probe_items as i')
    .innerJoin(builderFragment<{ id: number; name: string }>(visibleOwners('hidden')).as('o'), 'o.id', 'i.owner_id')
    .select(['i.id', 'i.label', 'o.name', 'o.id as owner'])
    .where('i.id', '>=', minimum);
}

let database: TestDatabase;
let layer: DataLayer;

beforeAll(async () => {
  database = await createTestDatabase();
  layer = await createOrm({ clientUrl: database.url, entities: allEntities, poolMax: 2 });
  await layer.db.write(sql`create table page_probe_owners (id int primary key, name text not null)`);
  await layer.db.write(sql`create table page_probe_items (id int primary key, owner_id int not null, label text not null)`);
  await layer.db.write(sql`insert into page_probe_owners values (1, 'ana'), (2, 'hidden'), (3, 'luis')`);
  await layer.db.write(sql`insert into page_probe_items select n, 1 + n % 3, 'item ' || n from generate_series(1, 12) n`);
});

afterAll(async () => {
  await layer.orm.close(true);
  await database.drop();
});

describe('an Sql fragment inside a builder statement', () => {
  it('splices its text and numbers its values in order among the builder’s', () => {
    const compiled = itemsWithOwners(4).compile();
    expect(compiled.sql).toBe(
      'select "i"."id", "i"."label", "o"."name", "o"."id" as "owner" from "page_probe_items" as "i" ' +
        'inner join (select id, name from page_probe_owners where name <> $1) as "o" on "o"."id" = "i"."owner_id" where "i"."id" >= $2',
    );
    expect(compiled.parameters).toEqual(['hidden', 4]);
  });

  it('binds each value as one parameter, an array included', async () => {
    const fragment = sql<never>`i.id = any(${[2, 5]}::int[]) and i.label <> ${'none'}`;
    const query = db.selectFrom('page_probe_items as i').select('i.id').where('i.owner_id', '>', 0).where(builderFragment<boolean>(fragment)).orderBy('i.id');
    expect(query.compile().parameters).toEqual([0, [2, 5], 'none']);
    expect(await layer.db.rows(query)).toEqual([{ id: 2 }, { id: 5 }]);
  });

  it('runs: the fragment’s filter and the builder’s both apply', async () => {
    const rows = await layer.db.rows(itemsWithOwners(4).orderBy('i.id'));
    // Owner 2 is hidden: items 4, 7 and 10 (n % 3 = 1) are left out by the join.
    expect(rows.map((row) => row.id)).toEqual([5, 6, 8, 9, 11, 12]);
    expect(rows[0]).toEqual({ id: 5, label: 'item 5', name: 'luis', owner: 3 });
  });
});

describe('queryPage', () => {
  it('pages a join by a key qualified with its table, the cursor holding the bare column’s value', async () => {
    const seen: number[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await queryPage(layer.db, itemsWithOwners(1), ['i.id'], 'desc', { limit: 3, ...(cursor ? { cursor } : {}) });
      seen.push(...page.data.map((row) => row.id));
      if (page.nextCursor) expect(Cursor.decode(page.nextCursor)).toEqual([page.data[page.data.length - 1]!.id]);
      cursor = page.nextCursor ?? undefined;
      pages++;
    } while (cursor);
    expect(seen).toEqual([12, 11, 9, 8, 6, 5, 3, 2]);
    expect(pages).toBe(3);
  });

  it('takes the cursors the ORM pager gave out before it: the same form', async () => {
    const page = await queryPage(layer.db, itemsWithOwners(1), ['i.id'], 'desc', { limit: 2, cursor: Cursor.encode([9]) });
    expect(page.data.map((row) => row.id)).toEqual([8, 6]);
  });

  it('orders by several keys, qualified or bare', async () => {
    const query = db.selectFrom('page_probe_items as i').select(['i.owner_id', 'i.id']);
    const first = await queryPage(layer.db, query, ['i.owner_id', 'id'], 'asc', { limit: 4 });
    expect(first.data).toEqual([
      { owner_id: 1, id: 3 },
      { owner_id: 1, id: 6 },
      { owner_id: 1, id: 9 },
      { owner_id: 1, id: 12 },
    ]);
    expect(Cursor.decode(first.nextCursor!)).toEqual([1, 12]);
    const second = await queryPage(layer.db, query, ['i.owner_id', 'id'], 'asc', { limit: 2, cursor: first.nextCursor! });
    expect(second.data).toEqual([
      { owner_id: 2, id: 1 },
      { owner_id: 2, id: 4 },
    ]);
  });

  it('refuses a cursor of another shape, or one whose values do not fit the columns', async () => {
    await expect(queryPage(layer.db, itemsWithOwners(1), ['i.id'], 'desc', { limit: 2, cursor: 'not-a-cursor' })).rejects.toMatchObject({ status: 400 });
    await expect(queryPage(layer.db, itemsWithOwners(1), ['i.id'], 'desc', { limit: 2, cursor: Cursor.encode([1, 2]) })).rejects.toMatchObject({ status: 400 });
    await expect(queryPage(layer.db, itemsWithOwners(1), ['i.id'], 'desc', { limit: 2, cursor: Cursor.encode(['x']) })).rejects.toMatchObject({ status: 400 });
    // Keys are never null, so a null was written by hand: it would quietly end the list.
    await expect(queryPage(layer.db, itemsWithOwners(1), ['i.id'], 'desc', { limit: 2, cursor: Cursor.encode([null]) })).rejects.toMatchObject({ status: 400 });
  });
});
