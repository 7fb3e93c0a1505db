import type { InferKyselyDB } from '@mikro-orm/sql';
import { sql as builderSql, type Selectable } from 'kysely';
import type { Principal } from '../../kernel/auth/principals';
import type { Role } from '../../kernel/auth/roles';
import { queryPage, type Page, type PageRequest, mapPage } from '../../kernel/pagination';
import { camelRow, snakeRow, type CamelCased } from '../../kernel/rows';
import { containsPattern } from '../../kernel/search';
import { prepared, sql, tables, type Queries, type Sql } from '../../kernel/sql';
import { PasswordResetSchema, UserSchema } from './auth.entities';

/** The tables this module owns, as the typed query builder sees them. */
type AuthTables = InferKyselyDB<typeof UserSchema | typeof PasswordResetSchema>;
const db = tables<AuthTables>();

const userColumns = ['id', 'email', 'name', 'role', 'active', 'token_version', 'last_login_at', 'created_at'] as const;
type UserRow = Selectable<AuthTables['users']>;

/** A user as the module hands it around: never the password hash. */
export type UserRecord = CamelCased<Pick<UserRow, (typeof userColumns)[number]>>;

/**
 * Serialises, inside a transaction, the few writes that decide who is admin: the first
 * registration and the last-admin check. Released at commit or rollback.
 */
export async function lockAdmins(tx: Queries): Promise<void> {
  await tx.first(sql`select pg_advisory_xact_lock(hashtext('comando:users:admins'))`);
}

export async function emailTaken(q: Queries, email: string): Promise<boolean> {
  return (await q.first(db.selectFrom('users').select('id').where('email', '=', email))) !== undefined;
}

export async function anyUser(q: Queries): Promise<boolean> {
  return (await q.first(db.selectFrom('users').select('id').limit(1))) !== undefined;
}

/** A new account: `active` false for a self-registration waiting for an admin (true when left out). */
export type NewUser = CamelCased<Pick<UserRow, 'id' | 'email' | 'name' | 'password_hash' | 'role'>> & { active?: boolean };

export async function insertUser(q: Queries, user: NewUser): Promise<UserRecord> {
  const now = new Date();
  const row = await q.first(
    db
      .insertInto('users')
      .values({ ...snakeRow(user), active: user.active ?? true, token_version: 0, created_at: now, updated_at: now })
      .returning(userColumns),
  );
  return camelRow(row!);
}

export async function findUser(q: Queries, id: string): Promise<UserRecord | undefined> {
  const row = await q.first(db.selectFrom('users').select(userColumns).where('id', '=', id));
  return row && camelRow(row);
}

/** The names of these users, by id (for showing who wrote or did something); unknown ids are left out. */
export async function userNames(q: Queries, ids: readonly string[]): Promise<Map<string, string>> {
  if (!ids.length) return new Map();
  const rows = await q.rows(
    db
      .selectFrom('users')
      .select(['id', 'name'])
      .where('id', 'in', [...new Set(ids)]),
  );
  return new Map(rows.map((row) => [row.id, row.name]));
}

/** A user's name inside another module's statement: `${userNameOf(sql`x.user_id`)}` (null for no such user). */
export function userNameOf(userId: Sql<never>): Sql<never> {
  return sql`(select u.name from users u where u.id = ${userId})`;
}

/**
 * The active users holding one of these roles, by name, at most `max` (a campaign's staff are a few
 * dozen): for pickers in other modules (whom a PQRS may be assigned to).
 */
export async function activeUsersWithRoles(q: Queries, roles: readonly Role[], max = 500): Promise<{ id: string; name: string; role: Role }[]> {
  if (!roles.length) return [];
  return q.rows(
    db
      .selectFrom('users')
      .select(['id', 'name', 'role'])
      .where('role', 'in', [...new Set(roles)])
      .where('active', '=', true)
      .orderBy('name')
      .orderBy('id')
      .limit(max),
  );
}

/** The user with this (normalised) email and the hash their password is checked against. */
export async function findCredentials(q: Queries, email: string): Promise<(UserRecord & { passwordHash: string }) | undefined> {
  const row = await q.first(
    db
      .selectFrom('users')
      .select([...userColumns, 'password_hash'])
      .where('email', '=', email),
  );
  return row && camelRow(row);
}

/** The user's row, locked until the transaction ends: changes to one user run one after the other. */
export async function findUserForUpdate(tx: Queries, id: string): Promise<UserRecord | undefined> {
  const row = await tx.first(db.selectFrom('users').select(userColumns).where('id', '=', id).forUpdate());
  return row && camelRow(row);
}

export async function countActiveAdmins(q: Queries): Promise<number> {
  const row = await q.first(
    db
      .selectFrom('users')
      .select((row) => row.fn.countAll<string>().as('n'))
      .where('role', '=', 'admin')
      .where('active', '=', true),
  );
  return Number(row?.n ?? 0);
}

/** The accounts these ids name, as another module checks people it is handed: who they are, their role, whether active. */
export async function usersByIds(q: Queries, ids: readonly string[]): Promise<Map<string, { name: string; role: Role; active: boolean }>> {
  if (!ids.length) return new Map();
  const rows = await q.rows(
    db
      .selectFrom('users')
      .select(['id', 'name', 'role', 'active'])
      .where('id', 'in', [...new Set(ids)]),
  );
  return new Map(rows.map((row) => [row.id, { name: row.name, role: row.role as Role, active: row.active }]));
}

/** How many of these ids name active users (of this role, when given): other modules check people they are handed. */
export async function countActiveUsers(q: Queries, ids: readonly string[], role?: Role): Promise<number> {
  if (!ids.length) return 0;
  let query = db
    .selectFrom('users')
    .select((row) => row.fn.countAll<string>().as('n'))
    .where('id', 'in', [...new Set(ids)])
    .where('active', '=', true);
  if (role) query = query.where('role', '=', role);
  const row = await q.first(query);
  return Number(row?.n ?? 0);
}

export async function recordLogin(q: Queries, id: string, at: Date): Promise<UserRecord> {
  const row = await q.first(db.updateTable('users').set({ last_login_at: at, updated_at: at }).where('id', '=', id).returning(userColumns));
  return camelRow(row!);
}

/** The fields a change sets (undefined: kept), and whether it ends every token the user holds. */
export type UserChanges = Partial<Pick<UserRecord, 'role' | 'active' | 'name'>> & { endTokens: boolean };

export async function updateUserRow(tx: Queries, id: string, changes: UserChanges): Promise<UserRecord> {
  const { endTokens, ...fields } = changes;
  // The builder leaves out the columns whose value is undefined: those fields were not changed.
  const row = await tx.first(
    db
      .updateTable('users')
      .set((update) => ({
        updated_at: new Date(),
        ...snakeRow(fields),
        ...(endTokens ? { token_version: update('token_version', '+', 1) } : {}),
      }))
      .where('id', '=', id)
      .returning(userColumns),
  );
  return camelRow(row!);
}

/** The hash the user's password is checked against. */
export async function findPasswordHash(q: Queries, id: string): Promise<string | undefined> {
  return (await q.first(db.selectFrom('users').select('password_hash').where('id', '=', id)))?.password_hash;
}

/** A new password, and every token the user held ended with the old one. */
export async function setPassword(q: Queries, id: string, passwordHash: string): Promise<UserRecord> {
  const row = await q.first(
    db
      .updateTable('users')
      .set((update) => ({ password_hash: passwordHash, token_version: update('token_version', '+', 1), updated_at: new Date() }))
      .where('id', '=', id)
      .returning(userColumns),
  );
  return camelRow(row!);
}

/** A set-password link as it is issued: the token's hash, who issued it and until when it works. */
export type NewPasswordReset = CamelCased<Pick<Selectable<AuthTables['password_resets']>, 'id' | 'user_id' | 'token_hash' | 'created_by_id' | 'expires_at'>>;

/** Records a set-password link for the user; a link of theirs not used yet stops working. */
export async function replacePasswordReset(tx: Queries, reset: NewPasswordReset): Promise<void> {
  await tx.write(db.deleteFrom('password_resets').where('user_id', '=', reset.userId).where('used_at', 'is', null));
  await tx.write(db.insertInto('password_resets').values({ ...snakeRow(reset), created_at: new Date() }));
}

export async function passwordResetUsable(q: Queries, tokenHash: string, now: Date): Promise<boolean> {
  const row = await q.first(db.selectFrom('password_resets').select('id').where('token_hash', '=', tokenHash).where('used_at', 'is', null).where('expires_at', '>', now));
  return row !== undefined;
}

/**
 * Spends a set-password link: the user it was issued for when the link exists, is unused, has not
 * expired and its user is active. One statement, so two uses racing each other cannot both win.
 */
export async function consumePasswordReset(tx: Queries, tokenHash: string, now: Date): Promise<string | undefined> {
  const row = await tx.first(
    db
      .updateTable('password_resets as r')
      .from('users as u')
      .set({ used_at: now })
      .where('r.token_hash', '=', tokenHash)
      .where('r.used_at', 'is', null)
      .where('r.expires_at', '>', now)
      .whereRef('u.id', '=', 'r.user_id')
      .where('u.active', '=', true)
      .returning('r.user_id'),
  );
  return row?.user_id;
}

/** Ends every token the user holds: the token version they carry no longer matches. */
export async function bumpTokenVersion(q: Queries, id: string): Promise<void> {
  await q.write(
    db
      .updateTable('users')
      .set((update) => ({ token_version: update('token_version', '+', 1) }))
      .where('id', '=', id),
  );
}

export interface UserFilter {
  role?: Role | undefined;
  /** Any of these roles (another module's policy: who may be handed a conversation). */
  roles?: readonly Role[] | undefined;
  active?: boolean | undefined;
  /** A fragment of the email or name, `%` and `_` taken literally. */
  q?: string | undefined;
}

/** A page of users by name. */
export async function userPage(q: Queries, filter: UserFilter, page: PageRequest): Promise<Page<UserRecord>> {
  let query = db.selectFrom('users').select(userColumns);
  if (filter.role) query = query.where('role', '=', filter.role);
  else if (filter.roles) {
    if (!filter.roles.length) return { data: [], nextCursor: null };
    query = query.where('role', 'in', [...filter.roles]);
  }
  if (filter.active !== undefined) query = query.where('active', '=', filter.active);
  if (filter.q) {
    const pattern = containsPattern(filter.q);
    query = query.where((user) => user.or([user('email', 'ilike', pattern), user('name', 'ilike', pattern)]));
  }
  const found = await queryPage(q, query, ['name', 'id'], 'asc', page);
  return mapPage(found, (row) => camelRow(row));
}

/**
 * What authentication checks about a user (role, status, token version), read on every cache
 * miss of an authenticated request: prepared once per connection.
 */
export async function loadPrincipal(q: Queries, id: string): Promise<Principal | undefined> {
  const row = await q.first(prepared('auth_principal', db.selectFrom('users').select(['id', 'role', 'active', 'token_version']).where('id', '=', id)));
  return row && camelRow(row);
}

/** A person's login accounts: these ids (linked to their contact) and any under one of these (lower-cased) emails; erased accounts are nobody's. */
export async function accountsOfPerson(q: Queries, ids: readonly string[], emails: readonly string[], lock = false): Promise<UserRecord[]> {
  if (!ids.length && !emails.length) return [];
  let query = db
    .selectFrom('users')
    .select(userColumns)
    .where((user) => user.or([...(ids.length ? [user('id', 'in', [...ids])] : []), ...(emails.length ? [user('email', 'in', [...emails])] : [])]))
    .where('email', 'not like', 'erased:%')
    .orderBy('id');
  if (lock) query = query.forUpdate();
  const rows = await q.rows(query);
  return rows.map((row) => camelRow(row));
}

/**
 * Empties accounts of what named their owner and ends them: the name is the erased marker, the
 * email a stand-in no address can equal (`erased:<id>`, unique), no password verifies, the account
 * is inactive and every token it held is void (its version moves on). The row stays, so what its
 * owner recorded (entries, answers, audits) keeps its author. Their set-password links go.
 */
export async function eraseAccounts(q: Queries, ids: readonly string[], erasedName: string, at: Date): Promise<number> {
  if (!ids.length) return 0;
  await q.write(db.deleteFrom('password_resets').where('user_id', 'in', [...ids]));
  const result = await q.write(
    db
      .updateTable('users')
      .set((user) => ({
        name: erasedName,
        email: builderSql<string>`'erased:' || ${user.ref('id')}::text`,
        password_hash: '',
        active: false,
        token_version: user('token_version', '+', 1),
        updated_at: at,
      }))
      .where('id', 'in', [...ids]),
  );
  return result.count;
}
