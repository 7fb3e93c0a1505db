import type { EntityManager } from '@mikro-orm/postgresql';
import type { AppDeps } from '../../kernel/context';
import { ConflictError, NotFoundError, UnauthorizedError } from '../../kernel/errors';
import { decoyPasswordHash, hashPassword, verifyPassword } from '../../kernel/auth/password';
import type { Actor, Role } from '../../kernel/auth/roles';
import type { Queries } from '../../kernel/sql';
import { newId } from '../../kernel/ids';
import { authPolicy } from './auth.policy';
import { presentUser } from './auth.presenter';
import {
  anyUser,
  bumpTokenVersion,
  countActiveAdmins,
  emailTaken,
  findCredentials,
  findUser,
  findUserForUpdate,
  insertUser,
  lockAdmins,
  recordLogin,
  updateUserRow,
  userPage,
  type UserRecord,
} from './auth.repository';
import type { ListUsersInput, LoginInput, RegisterInput, UpdateUserInput } from './auth.schemas';

const WRONG_CREDENTIALS = 'The email or password is incorrect.';

function loginLimiters(deps: Pick<AppDeps, 'config' | 'rateLimits'>) {
  const { perEmail, perIp, windowSeconds } = deps.config.loginLimits;
  return {
    byEmail: deps.rateLimits.named('login-email', { points: perEmail, windowSeconds }),
    byIp: deps.rateLimits.named('login-ip', { points: perIp, windowSeconds }),
  };
}

export async function register(deps: Pick<AppDeps, 'db' | 'config' | 'rateLimits' | 'auth' | 'logger'>, caller: Actor | undefined, input: RegisterInput, ip: string) {
  // Admins creating staff accounts are not held to the per-address limit on self-registration.
  const grantsRole = caller !== undefined && authPolicy.allows(caller, 'grantRole');
  if (!grantsRole) {
    const { perIp, windowSeconds } = deps.config.registerLimits;
    await deps.rateLimits.named('register-ip', { points: perIp, windowSeconds }).consume(ip);
  }
  const passwordHash = await hashPassword(input.password);
  const user = await deps.db.transaction(async (tx) => {
    await lockAdmins(tx);
    if (await emailTaken(tx, input.email)) {
      throw new ConflictError('An account with this email already exists.', 'email_taken');
    }
    const isFirst = !(await anyUser(tx));
    const role: Role = isFirst ? 'admin' : grantsRole ? (input.role ?? 'volunteer') : 'volunteer';
    return insertUser(tx, { id: newId(), email: input.email, name: input.name, passwordHash, role });
  });
  deps.logger.info({ userId: user.id, role: user.role }, 'user registered');
  return { user, token: deps.auth.tokens.issue(user).token };
}

export async function login(deps: Pick<AppDeps, 'db' | 'config' | 'rateLimits' | 'auth'>, input: LoginInput, ip: string) {
  const limits = loginLimiters(deps);
  await limits.byIp.check(ip);
  await limits.byEmail.check(input.email);
  const found = await findCredentials(deps.db, input.email);
  const valid = found ? await verifyPassword(found.passwordHash, input.password) : await verifyPassword(await decoyPasswordHash(), input.password);
  if (!found || !valid || !found.active) {
    await Promise.all([limits.byIp.record(ip), limits.byEmail.record(input.email)]);
    throw new UnauthorizedError(WRONG_CREDENTIALS);
  }
  await limits.byEmail.reset(input.email);
  const user = await recordLogin(deps.db, found.id, new Date());
  return { user, issued: deps.auth.tokens.issue(user) };
}

export async function getUser(q: Queries, id: string): Promise<UserRecord> {
  const user = await findUser(q, id);
  if (!user) throw new NotFoundError('No user has this id.');
  return user;
}

/** Ends every token the user holds, in every process, sockets included. */
async function endSessions(deps: Pick<AppDeps, 'auth' | 'realtime'>, userId: string): Promise<void> {
  await deps.auth.principals.invalidate(userId);
  deps.realtime.disconnectUser(userId);
}

export async function logout(deps: Pick<AppDeps, 'db' | 'auth' | 'realtime'>, actor: Actor): Promise<void> {
  await bumpTokenVersion(deps.db, actor.id);
  await endSessions(deps, actor.id);
}

export async function listUsers(em: EntityManager, query: ListUsersInput) {
  const page = await userPage(em, query, query);
  return { data: page.data.map(presentUser), nextCursor: page.nextCursor };
}

export async function updateUser(deps: Pick<AppDeps, 'db' | 'auth' | 'realtime' | 'logger'>, actor: Actor, id: string, input: UpdateUserInput) {
  authPolicy.authorize(actor, 'manageUsers');
  const { user, sessionsEnded } = await deps.db.transaction(async (tx) => {
    await lockAdmins(tx);
    const target = await findUserForUpdate(tx, id);
    if (!target) throw new NotFoundError('No user has this id.');
    const losesAdmin = target.role === 'admin' && target.active && ((input.role && input.role !== 'admin') || input.active === false);
    if (losesAdmin && (await countActiveAdmins(tx)) <= 1) {
      throw new ConflictError('This is the last active admin; make another admin first.', 'last_admin');
    }
    const roleChanged = input.role !== undefined && input.role !== target.role;
    const deactivated = input.active === false && target.active;
    const endTokens = roleChanged || deactivated;
    return { user: await updateUserRow(tx, id, { ...input, endTokens }), sessionsEnded: endTokens };
  });
  if (sessionsEnded) await endSessions(deps, user.id);
  else await deps.auth.principals.invalidate(user.id);
  deps.logger.info({ userId: user.id, by: actor.id, role: user.role, active: user.active }, 'user updated');
  return user;
}
