import type { EntityManager } from '@mikro-orm/postgresql';
import type { Principal } from '../../kernel/auth/principals';
import type { ModuleManifest } from '../../kernel/module';
import { UserSchema } from './auth.entities';
import { authRouter } from './auth.routes';

export const authModule: ModuleManifest = {
  name: 'auth',
  entities: [UserSchema],
  routers: [authRouter],
};

/** How the kernel's authenticator learns a user's current role, status and token version. */
export function principalLoader(em: () => EntityManager) {
  return async (id: string): Promise<Principal | undefined> => {
    const user = await em().findOne(UserSchema, { id }, { fields: ['id', 'role', 'active', 'tokenVersion'] });
    return user ? { id: user.id, role: user.role, active: user.active, tokenVersion: user.tokenVersion } : undefined;
  };
}

export { UserSchema, type User } from './auth.entities';
