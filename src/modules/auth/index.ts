import type { Principal } from '../../kernel/auth/principals';
import type { ModuleManifest } from '../../kernel/module';
import type { Queries } from '../../kernel/sql';
import { PasswordResetSchema, UserSchema, UserSessionSchema } from './auth.entities';
import { authPersonalData } from './auth.personal-data';
import { loadPrincipal } from './auth.repository';
import { authRouter } from './auth.routes';

export const authModule: ModuleManifest = {
  name: 'auth',
  entities: [UserSchema, PasswordResetSchema, UserSessionSchema],
  routers: [authRouter],
  personalData: authPersonalData,
};

/** How the kernel's authenticator learns a user's current role, status and token version: from `deps.db` (a prepared statement). */
export function principalLoader(q: Queries) {
  return (id: string): Promise<Principal | undefined> => loadPrincipal(q, id);
}

export { UserSchema, type User } from './auth.entities';
export { authPolicy } from './auth.policy';
export { sessionRegistry } from './auth.sessions';
export { activeUsersWithRoles, countActiveUsers, findUser, userNameOf, userNames, userPage, usersByIds, type UserRecord } from './auth.repository';
