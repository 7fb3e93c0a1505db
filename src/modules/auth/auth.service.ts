import { LockMode, raw } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { AppDeps } from '../../kernel/context';
import { ConflictError, NotFoundError, UnauthorizedError } from '../../kernel/errors';
import { decoyPasswordHash, hashPassword, verifyPassword } from '../../kernel/auth/password';
import type { Actor, Role } from '../../kernel/auth/roles';
import { findPage } from '../../kernel/pagination';
import { containsPattern } from '../../kernel/search';
import { newId } from '../../kernel/ids';
import { UserSchema, type User } from './auth.entities';
import type { ListUsersInput, LoginInput, RegisterInput, UpdateUserInput } from './auth.schemas';
import { presentUser } from './auth.presenter';

/** Serialises the few writes that decide who is admin: the bootstrap and last-admin checks. */
const ADMIN_LOCK = "select pg_advisory_xact_lock(hashtext('comando:users:admins'))";
const WRONG_CREDENTIALS = 'The email or password is incorrect.';

function loginLimiters(deps: AppDeps) {
  const { perEmail, perIp, windowSeconds } = deps.config.loginLimits;
  return {
    byEmail: deps.rateLimits.named('login-email', { points: perEmail, windowSeconds }),
    byIp: deps.rateLimits.named('login-ip', { points: perIp, windowSeconds }),
  };
}

export async function register(em: EntityManager, deps: AppDeps, caller: Actor | undefined, input: RegisterInput, ip: string) {
  if (caller?.role !== 'admin') {
    const { perIp, windowSeconds } = deps.config.registerLimits;
    await deps.rateLimits.named('register-ip', { points: perIp, windowSeconds }).consume(ip);
  }
  const passwordHash = await hashPassword(input.password);
  const user = await em.transactional(async (tx) => {
    await tx.execute(ADMIN_LOCK);
    if (await tx.count(UserSchema, { email: input.email })) {
      throw new ConflictError('An account with this email already exists.', 'email_taken');
    }
    const isFirst = (await tx.count(UserSchema, {})) === 0;
    const role: Role = isFirst ? 'admin' : caller?.role === 'admin' ? (input.role ?? 'volunteer') : 'volunteer';
    return tx.create(UserSchema, { id: newId(), email: input.email, name: input.name, passwordHash, role, active: true, tokenVersion: 0 });
  });
  deps.logger.info({ userId: user.id, role: user.role }, 'user registered');
  return { user, token: deps.auth.tokens.issue(user).token };
}

export async function login(em: EntityManager, deps: AppDeps, input: LoginInput, ip: string) {
  const limits = loginLimiters(deps);
  await limits.byIp.check(ip);
  await limits.byEmail.check(input.email);
  const user = await em.findOne(UserSchema, { email: input.email });
  const valid = user ? await verifyPassword(user.passwordHash, input.password) : await verifyPassword(await decoyPasswordHash(), input.password);
  if (!user || !valid || !user.active) {
    await Promise.all([limits.byIp.record(ip), limits.byEmail.record(input.email)]);
    throw new UnauthorizedError(WRONG_CREDENTIALS);
  }
  await limits.byEmail.reset(input.email);
  user.lastLoginAt = new Date();
  await em.flush();
  return { user, issued: deps.auth.tokens.issue(user) };
}

export async function getUser(em: EntityManager, id: string): Promise<User> {
  const user = await em.findOne(UserSchema, { id });
  if (!user) throw new NotFoundError('No user has this id.');
  return user;
}

/** Ends every token the user holds, in every process, sockets included. */
async function endSessions(deps: AppDeps, userId: string): Promise<void> {
  await deps.auth.principals.invalidate(userId);
  deps.realtime.disconnectUser(userId);
}

export async function logout(em: EntityManager, deps: AppDeps, actor: Actor): Promise<void> {
  await em.nativeUpdate(UserSchema, { id: actor.id }, { tokenVersion: raw('token_version + 1') });
  await endSessions(deps, actor.id);
}

export async function listUsers(em: EntityManager, query: ListUsersInput) {
  const where: Record<string, unknown> = {};
  if (query.role) where.role = query.role;
  if (query.active !== undefined) where.active = query.active;
  if (query.q) {
    const pattern = containsPattern(query.q);
    where.$or = [{ email: { $ilike: pattern } }, { name: { $ilike: pattern } }];
  }
  return findPage(em, UserSchema, where, query, { name: 'asc', id: 'asc' }, presentUser);
}

export async function updateUser(em: EntityManager, deps: AppDeps, actor: Actor, id: string, input: UpdateUserInput) {
  const { user, sessionsEnded } = await em.transactional(async (tx) => {
    await tx.execute(ADMIN_LOCK);
    const target = await tx.findOne(UserSchema, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!target) throw new NotFoundError('No user has this id.');
    const losesAdmin =
      target.role === 'admin' && target.active && ((input.role && input.role !== 'admin') || input.active === false);
    if (losesAdmin && (await tx.count(UserSchema, { role: 'admin', active: true })) <= 1) {
      throw new ConflictError('This is the last active admin; make another admin first.', 'last_admin');
    }
    const roleChanged = input.role !== undefined && input.role !== target.role;
    const deactivated = input.active === false && target.active;
    if (input.role !== undefined) target.role = input.role;
    if (input.active !== undefined) target.active = input.active;
    if (input.name !== undefined) target.name = input.name;
    if (roleChanged || deactivated) target.tokenVersion += 1;
    return { user: target, sessionsEnded: roleChanged || deactivated };
  });
  if (sessionsEnded) await endSessions(deps, user.id);
  else await deps.auth.principals.invalidate(user.id);
  deps.logger.info({ userId: user.id, by: actor.id, role: user.role, active: user.active }, 'user updated');
  return user;
}
