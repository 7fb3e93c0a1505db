import type { Context, Next } from 'koa';
import { ForbiddenError, UnauthorizedError } from '../errors';
import type { PrincipalCache, SessionRegistry } from './principals';
import { roleAllowed, type Actor, type Role } from './roles';
import type { TokenClaims, TokenService } from './tokens';

export interface Authenticator {
  tokens: TokenService;
  principals: PrincipalCache;
  sessions: SessionRegistry;
}

/**
 * Turns a bearer token into an Actor, or says why not. Shared by HTTP and the socket handshake
 * so that both end a revoked or deactivated user's access the same way.
 */
export async function authenticateToken(auth: Authenticator, token: string | undefined): Promise<Actor> {
  if (!token) throw new UnauthorizedError();
  const claims = auth.tokens.verify(token);
  if (!claims) throw new UnauthorizedError('The token is invalid or has expired.');
  return sessionActor(auth, claims);
}

/**
 * The actor behind claims whose signature was already verified (a socket's handshake): the token
 * must not have expired since, the user must still be active with the same token version, and the
 * device's session (when the token names one) must not have been ended.
 */
export async function sessionActor(auth: Authenticator, claims: TokenClaims): Promise<Actor> {
  if (claims.exp * 1000 <= Date.now()) throw new UnauthorizedError('The token is invalid or has expired.');
  const principal = await auth.principals.get(claims.sub);
  if (!principal || !principal.active || principal.tokenVersion !== claims.ver) {
    throw new UnauthorizedError('The token is no longer valid; log in again.');
  }
  // The device's own session, when the token names one: an admin may have ended it alone.
  if (claims.sid && !(await auth.sessions.stands(claims.sid, principal.id))) throw new UnauthorizedError('The session was ended; log in again.');
  return { id: principal.id, role: principal.role };
}

export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer\s+([A-Za-z0-9._~+/=-]+)\s*$/i.exec(header);
  return match?.[1];
}

/** Sets ctx.state.actor from the Authorization header, if one is present and valid. */
export async function resolveActor(ctx: Context, auth: Authenticator, required: boolean): Promise<Actor | undefined> {
  const header = ctx.get('Authorization');
  if (!header && !required) return undefined;
  const actor = await authenticateToken(auth, bearerToken(header) ?? (header ? '' : undefined));
  ctx.state.actor = actor;
  return actor;
}

/**
 * Role guard for any Koa route: 401 without a valid token, 403 when the role is not listed
 * (`admin` is always allowed). `requireRole()` with no roles admits any authenticated user.
 */
export function requireRole(...roles: Role[]) {
  return async function roleGuard(ctx: Context, next: Next): Promise<void> {
    const actor = await resolveActor(ctx, ctx.deps.auth, true);
    if (roles.length > 0 && !roleAllowed(actor!.role, roles)) throw new ForbiddenError();
    await next();
  };
}
