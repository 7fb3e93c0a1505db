import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { ROLES } from '../../kernel/auth/roles';
import { newId } from '../../kernel/ids';

export const UserSchema = defineEntity({
  name: 'User',
  tableName: 'users',
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => newId()),
    /** Normalised (trimmed, lower case); unique. */
    email: p.string().length(254).unique(),
    name: p.string().length(120),
    passwordHash: p.text().hidden(),
    role: p.enum([...ROLES]),
    active: p.boolean().default(true),
    /** Bumped to end every token the user holds (logout, role change, deactivation). */
    tokenVersion: p.integer().default(0),
    lastLoginAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});

export type User = InferEntity<typeof UserSchema>;

/**
 * A one-time set-password link an admin issued for a user: only the token's SHA-256 is kept, so
 * the table cannot be used to log in. Issuing a new link for the user replaces an unused one.
 */
export const PasswordResetSchema = defineEntity({
  name: 'PasswordReset',
  tableName: 'password_resets',
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => newId()),
    user: () => p.manyToOne(UserSchema).deleteRule('cascade').index(),
    tokenHash: p.string().length(64).unique(),
    createdBy: () => p.manyToOne(UserSchema).nullable().deleteRule('set null'),
    createdAt: p.datetime().onCreate(() => new Date()),
    expiresAt: p.datetime(),
    usedAt: p.datetime().nullable(),
  },
});
