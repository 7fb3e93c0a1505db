import { randomUUID } from 'node:crypto';
import { sql } from '../../src/kernel/sql';
import { teamOf, teamOfUserSql } from '../../src/modules/volunteers/volunteers.policy';
import { startTestApp, type TestApp } from '../helpers/app';
import { createUser, registerAdmin, type TestUser } from '../helpers/users';

let app: TestApp;
let admin: TestUser;
const users: TestUser[] = [];

beforeAll(async () => {
  app = await startTestApp({}, { workers: false });
  admin = await registerAdmin(app);
  for (let i = 0; i < 6; i++) users.push(await createUser(app, admin, i % 2 ? 'brigade' : 'volunteer'));
});
afterAll(() => app.close());

describe("a leader's team", () => {
  it('is the same set written in TypeScript and in SQL, on a generated tree', async () => {
    // 300 volunteers, each led by one made before it (or nobody); six of them linked to accounts.
    const ids = Array.from({ length: 300 }, () => randomUUID());
    const leaders = ids.map((_, index) => (index && index % 7 !== 0 ? ids[Math.floor((index * 7919) % index)]! : null));
    const contacts = ids.map(() => randomUUID());
    const linked = [0, 1, 8, 20, 150, 299];
    const db = app.runtime.deps.db;
    await db.write(sql`insert into contacts (id, identity_key, name, created_at, updated_at)
      select c, 'mail:s' || n || '@example.org', 'Persona ' || n, now(), now() from unnest(${contacts}::uuid[]) with ordinality as t(c, n)`);
    await db.write(sql`insert into volunteers (id, contact_id, leader_id, user_id, joined_on, source, created_at, updated_at)
      select id, contact, leader, account, '2026-01-01', 'staff', now(), now()
      from unnest(${ids}::uuid[], ${contacts}::uuid[], ${leaders}::uuid[], ${ids.map((_, index) => (linked.includes(index) ? users[linked.indexOf(index)]!.id : null))}::uuid[])
        as t(id, contact, leader, account)`);
    const tree = new Map(ids.map((id, index) => [id, leaders[index]!] as const));
    for (const [position, index] of linked.entries()) {
      const fromSql = new Set((await db.rows(teamOfUserSql(users[position]!.id))).map((row) => row.id));
      const fromTs = teamOf(ids[index], tree);
      expect(fromSql).toEqual(fromTs);
      expect(fromTs.has(ids[index]!)).toBe(true);
    }
    // Somebody's team is larger than themself, so the comparison covers real branches.
    expect(Math.max(...linked.map((index) => teamOf(ids[index], tree).size))).toBeGreaterThan(10);
    // A user with no volunteer has no team.
    const outsider = await createUser(app, admin, 'volunteer');
    expect(await db.rows(teamOfUserSql(outsider.id))).toEqual([]);
    expect(teamOf(undefined, tree).size).toBe(0);
  });
});
