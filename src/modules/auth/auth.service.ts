import { createHash, randomBytes } from 'node:crypto';
import type { AppDeps } from '../../kernel/context';
import { AppError, ConflictError, invalidField, NotFoundError, UnauthorizedError } from '../../kernel/errors';
import { decoyPasswordHash, hashPassword, verifyPassword } from '../../kernel/auth/password';
import type { Actor, Role } from '../../kernel/auth/roles';
import type { Queries } from '../../kernel/sql';
import { newId } from '../../kernel/ids';
import { authPolicy } from './auth.policy';
import { presentUser } from './auth.presenter';
import {
  anyUser,
  bumpTokenVersion,
  consumePasswordReset,
  countActiveAdmins,
  emailTaken,
  findCredentials,
  findPasswordHash,
  findUser,
  findUserForUpdate,
  insertUser,
  lockAdmins,
  passwordResetUsable,
  recordLogin,
  replacePasswordReset,
  setPassword,
  updateUserRow,
  userPage,
  type UserRecord,
} from './auth.repository';
import { openSession, removeSessions, type Device } from './auth.sessions';
import type { ChangePasswordInput, CompleteResetInput, InviteUserInput, ListUsersInput, LoginInput, RegisterInput, UpdateUserInput } from './auth.schemas';
import { mapPage } from '../../kernel/pagination';

const WRONG_CREDENTIALS = 'The email or password is incorrect.';

/** How long an address an account signed in from stays known to it: a month of ordinary use. */
const KNOWN_ADDRESS_SECONDS = 30 * 86_400;

function loginLimiters(deps: Pick<AppDeps, 'config' | 'rateLimits'>) {
  const { perEmailIp, perEmail, perIp, windowSeconds } = deps.config.loginLimits;
  return {
    byPair: deps.rateLimits.named('login-email-ip', { points: perEmailIp, windowSeconds }),
    byEmail: deps.rateLimits.named('login-email', { points: perEmail, windowSeconds }),
    byIp: deps.rateLimits.named('login-ip', { points: perIp, windowSeconds }),
    known: deps.rateLimits.named('login-known', { points: 1, windowSeconds: KNOWN_ADDRESS_SECONDS }),
  };
}

const REGISTRATION_CLOSED = 'Accounts are created by an admin of this Comando; ask one to invite you.';
export const REGISTRATION_REQUESTED = 'If this email can have an account, an admin will activate it; then sign in with the password you chose.';

/** What a registration made: a signed-in account (the first one, or an admin's call), or a request nobody learns anything from. */
export type Registration = { kind: 'created'; user: UserRecord; token: string } | { kind: 'requested' };

function registrationClosed(): AppError {
  return new AppError(403, 'registration_closed', 'Registration closed', REGISTRATION_CLOSED);
}

/**
 * Registers the first account (it becomes the admin), or, for an admin, an account with a role.
 * Anyone else may only ask for a volunteer account, and only with `SELF_REGISTRATION` on: the
 * answer is the same whether the email is new (an inactive account an admin activates) or already
 * has an account (nothing changes), so it cannot tell who has one.
 */
export async function register(
  deps: Pick<AppDeps, 'db' | 'config' | 'rateLimits' | 'auth' | 'logger'>,
  caller: Actor | undefined,
  input: RegisterInput,
  device: Device & { ip: string },
): Promise<Registration> {
  const { ip } = device;
  // Admins creating staff accounts are not held to the per-address limit on self-registration.
  const grantsRole = caller !== undefined && authPolicy.allows(caller, 'grantRole');
  if (!grantsRole) {
    // Refused before the password is hashed: a closed door should cost nothing to knock on.
    if (!deps.config.selfRegistration && !(await firstAccountPending(deps.db))) throw registrationClosed();
    const { perIp, windowSeconds } = deps.config.registerLimits;
    await deps.rateLimits.named('register-ip', { points: perIp, windowSeconds }).consume(ip);
  }
  // Hashed whatever happens next, so a known email takes as long to answer as a new one.
  const passwordHash = await hashPassword(input.password);
  const outcome = await deps.db.transaction(async (tx): Promise<{ user?: UserRecord }> => {
    await lockAdmins(tx);
    const isFirst = !(await anyUser(tx));
    const selfService = !isFirst && !grantsRole;
    if (selfService && !deps.config.selfRegistration) throw registrationClosed();
    if (await emailTaken(tx, input.email)) {
      if (selfService) return {};
      throw new ConflictError('An account with this email already exists.', 'email_taken');
    }
    const role: Role = isFirst ? 'admin' : grantsRole ? (input.role ?? 'volunteer') : 'volunteer';
    return { user: await insertUser(tx, { id: newId(), email: input.email, name: input.name, passwordHash, role, active: !selfService }) };
  });
  const { user } = outcome;
  if (user) deps.logger.info({ userId: user.id, role: user.role, active: user.active }, user.active ? 'user registered' : 'registration requested');
  if (!user || !user.active) return { kind: 'requested' };
  // The first account signs in on this device; an admin creating an account gets its token, on no device of the new user's.
  return { kind: 'created', user, token: (grantsRole ? deps.auth.tokens.issue(user) : await openSession(deps, user, device)).token };
}

/**
 * An admin invites someone: the account exists at once with its role, but with a password nobody
 * knows, so the first sign-in is through the one-time set-password link the answer carries.
 */
export async function inviteUser(deps: Pick<AppDeps, 'db' | 'config' | 'rateLimits' | 'logger'>, actor: Actor, input: InviteUserInput) {
  authPolicy.authorize(actor, 'grantRole');
  const unknowable = await hashPassword(randomBytes(32).toString('base64url'));
  const user = await deps.db.transaction(async (tx) => {
    if (await emailTaken(tx, input.email)) throw new ConflictError('An account with this email already exists.', 'email_taken');
    return insertUser(tx, { id: newId(), email: input.email, name: input.name, passwordHash: unknowable, role: input.role });
  });
  deps.logger.info({ userId: user.id, role: user.role, by: actor.id }, 'user invited');
  return { user, setPasswordLink: await issuePasswordReset(deps, actor, user.id) };
}

/** An admin ends every session a user has (a lost phone, a shared computer): they sign in again. */
export async function endUserSessions(deps: Pick<AppDeps, 'db' | 'auth' | 'realtime' | 'logger'>, actor: Actor, userId: string): Promise<void> {
  authPolicy.authorize(actor, 'manageUsers');
  if (!(await findUser(deps.db, userId))) throw new NotFoundError('No user has this id.');
  await bumpTokenVersion(deps.db, userId);
  await endSessions(deps, userId);
  deps.logger.info({ userId, by: actor.id }, 'sessions ended by an admin');
}

/** Whether this Comando still has no account at all (a fresh install waiting for its admin). */
export async function firstAccountPending(db: Queries): Promise<boolean> {
  return !(await anyUser(db));
}

/**
 * Failures are limited for one account from one address first (`LOGIN_MAX_FAILURES_PER_EMAIL_IP`):
 * an attacker's guesses lock only their own address out of that account. Higher ceilings for the
 * account from every address (a distributed guess) and for an address over every account (a
 * spray) stop what the first cannot, but not at an address the account signed in from in the
 * last month, so neither someone else's guesses nor a coworker behind the same NAT locks staff out.
 */
export async function login(deps: Pick<AppDeps, 'db' | 'config' | 'rateLimits' | 'auth'>, input: LoginInput, device: Device & { ip: string }) {
  const { ip } = device;
  const limits = loginLimiters(deps);
  const pair = `${ip} ${input.email}`;
  await limits.byPair.check(pair);
  if ((await limits.known.counted(pair)) === 0) {
    await limits.byEmail.check(input.email);
    await limits.byIp.check(ip);
  }
  const found = await findCredentials(deps.db, input.email);
  const valid = found ? await verifyPassword(found.passwordHash, input.password) : await verifyPassword(await decoyPasswordHash(), input.password);
  if (!found || !valid || !found.active) {
    await Promise.all([limits.byPair.record(pair), limits.byEmail.record(input.email), limits.byIp.record(ip)]);
    throw new UnauthorizedError(WRONG_CREDENTIALS);
  }
  await Promise.all([limits.byPair.reset(pair), limits.known.record(pair)]);
  const user = await recordLogin(deps.db, found.id, new Date());
  return { user, issued: await openSession(deps, user, device) };
}

export async function getUser(q: Queries, id: string): Promise<UserRecord> {
  const user = await findUser(q, id);
  if (!user) throw new NotFoundError('No user has this id.');
  return user;
}

/** Ends every token the user holds, in every process, sockets included; their sessions' rows go (the token version already ended them). */
async function endSessions(deps: Pick<AppDeps, 'db' | 'auth' | 'realtime'>, userId: string): Promise<void> {
  await removeSessions(deps.db, [userId]);
  await deps.auth.principals.invalidate(userId);
  deps.realtime.disconnectUser(userId);
}

export async function logout(deps: Pick<AppDeps, 'db' | 'auth' | 'realtime'>, actor: Actor): Promise<void> {
  await bumpTokenVersion(deps.db, actor.id);
  await endSessions(deps, actor.id);
}

export async function listUsers(q: Queries, query: ListUsersInput) {
  const page = await userPage(q, query, query);
  return mapPage(page, presentUser);
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

/** Where a set-password link leads: a page of this server, the token in its query (never logged: the access log keeps route patterns). */
export const SET_PASSWORD_PATH = '/cuenta/clave';
/** Set-password links an admin may issue for one user per hour: a leaked admin token cannot churn them. */
const RESET_LINKS_PER_USER_HOUR = 10;

function passwordLimiters(deps: Pick<AppDeps, 'config' | 'rateLimits'>) {
  const { perEmailIp, perIp, windowSeconds } = deps.config.loginLimits;
  return {
    // Wrong current passwords per user, like failed logins for an account from one address: a stolen token cannot guess its way to the password.
    change: deps.rateLimits.named('password-change', { points: perEmailIp, windowSeconds }),
    // Link tokens tried per address: 256-bit tokens cannot be guessed, but nobody should try at scale.
    redeem: deps.rateLimits.named('password-reset-ip', { points: perIp, windowSeconds }),
    issue: deps.rateLimits.named('password-reset-issue', { points: RESET_LINKS_PER_USER_HOUR, windowSeconds: 3600 }),
  };
}

const tokenHash = (token: string) => createHash('sha256').update(token).digest('hex');

/**
 * The caller's own password, proven by the current one. Every token the user held ends (other
 * devices and sockets too); the caller gets a fresh token so this device stays signed in.
 */
export async function changePassword(
  deps: Pick<AppDeps, 'db' | 'config' | 'rateLimits' | 'auth' | 'realtime' | 'logger'>,
  actor: Actor,
  input: ChangePasswordInput,
  device: Device,
) {
  const limiter = passwordLimiters(deps).change;
  await limiter.check(actor.id);
  const current = await findPasswordHash(deps.db, actor.id);
  if (!current || !(await verifyPassword(current, input.currentPassword))) {
    await limiter.record(actor.id);
    throw new AppError(403, 'wrong_password', 'Wrong password', 'The current password is incorrect.');
  }
  await limiter.reset(actor.id);
  const user = await setPassword(deps.db, actor.id, await hashPassword(input.newPassword));
  await endSessions(deps, actor.id);
  deps.logger.info({ userId: actor.id }, 'password changed');
  return openSession(deps, user, device);
}

/**
 * A one-time link (valid `PASSWORD_RESET_TTL`) on which the user sets a new password: for someone
 * who forgot theirs. The admin hands it over; the current password keeps working until it is used.
 */
export async function issuePasswordReset(deps: Pick<AppDeps, 'db' | 'config' | 'rateLimits' | 'logger'>, actor: Actor, userId: string) {
  authPolicy.authorize(actor, 'manageUsers');
  await passwordLimiters(deps).issue.consume(userId, 'Too many set-password links for this user; wait an hour.');
  const token = randomBytes(32).toString('base64url');
  const expiresAt = new Date(Date.now() + deps.config.passwordResetSeconds * 1000);
  await deps.db.transaction(async (tx) => {
    const target = await findUserForUpdate(tx, userId);
    if (!target) throw new NotFoundError('No user has this id.');
    if (!target.active) throw new ConflictError('The account is deactivated; activate it first.', 'user_inactive');
    await replacePasswordReset(tx, { id: newId(), userId, tokenHash: tokenHash(token), createdById: actor.id, expiresAt });
  });
  deps.logger.info({ userId, by: actor.id }, 'set-password link issued');
  const url = new URL(SET_PASSWORD_PATH, deps.config.publicBaseUrl);
  url.searchParams.set('token', token);
  return { url: url.toString(), expiresAt };
}

/** Whether a link can still set a password (the page says so before the user types one). */
export async function resetLinkUsable(q: Queries, token: string): Promise<boolean> {
  return passwordResetUsable(q, tokenHash(token), new Date());
}

/** Sets the password a link was issued for, once; the user's tokens end. */
export async function completePasswordReset(deps: Pick<AppDeps, 'db' | 'config' | 'rateLimits' | 'auth' | 'realtime' | 'logger'>, input: CompleteResetInput, ip: string) {
  if (input.confirmPassword !== undefined && input.confirmPassword !== input.newPassword) throw invalidField('body.confirmPassword', 'does not match the new password');
  const limiter = passwordLimiters(deps).redeem;
  await limiter.check(ip);
  const passwordHash = await hashPassword(input.newPassword);
  const user = await deps.db.transaction(async (tx) => {
    const userId = await consumePasswordReset(tx, tokenHash(input.token), new Date());
    return userId ? setPassword(tx, userId, passwordHash) : undefined;
  });
  if (!user) {
    await limiter.record(ip);
    throw invalidField('body.token', 'This link is not valid: it was already used, has expired, or a newer one replaced it.', 'invalid_reset_link');
  }
  await endSessions(deps, user.id);
  deps.logger.info({ userId: user.id }, 'password set from a link');
  return user;
}
