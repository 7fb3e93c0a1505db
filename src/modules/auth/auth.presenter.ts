import type { z } from 'zod';
import type { UserRecord } from './auth.repository';
import type { meView, userView } from './auth.schemas';

export function presentUser(user: UserRecord): z.input<typeof userView> {
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    role: user.role,
    active: user.active,
    createdAt: user.createdAt.toISOString(),
    lastLoginAt: user.lastLoginAt ? user.lastLoginAt.toISOString() : null,
  };
}

export function presentMe(user: UserRecord): z.input<typeof meView> {
  return { id: user.id, email: user.email, name: user.name, role: user.role, createdAt: user.createdAt.toISOString() };
}
