import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { ROLES } from '../../kernel/auth/roles';
import { createdAtStamp, timestamps, uuidPrimaryKey } from '../../kernel/entity-properties';

export const UserSchema = defineEntity({
  name: 'User',
  tableName: 'users',
  properties: {
    ...uuidPrimaryKey,
    /** Normalised (trimmed, lower case); unique. */
    email: p.string().length(254).unique(),
    name: p.string().length(120),
    passwordHash: p.text().hidden(),
    role: p.enum([...ROLES]),
    active: p.boolean().default(true),
    /** Bumped to end every token the user holds (logout, role change, deactivation). */
    tokenVersion: p.integer().default(0),
    lastLoginAt: p.datetime().nullable(),
    ...timestamps,
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
    ...uuidPrimaryKey,
    user: () => p.manyToOne(UserSchema).deleteRule('cascade').index(),
    tokenHash: p.string().length(64).unique(),
    createdBy: () => p.manyToOne(UserSchema).nullable().deleteRule('set null'),
    ...createdAtStamp,
    expiresAt: p.datetime(),
    usedAt: p.datetime().nullable(),
  },
});

/**
 * A signed-in device: one row per sign-in (or fresh token after a password change), named in the
 * token (`sid`), so an admin can see where an account is open and end one device alone. It stands
 * while the row exists, its token version is the user's, and it has not expired; what ends every
 * token (logout, role change, deactivation, new password) ends them all through the version.
 * The address and browser are the device's, shown to admins only and never logged; rows go when
 * their session ends or expires.
 */
export const UserSessionSchema = defineEntity({
  name: 'UserSession',
  tableName: 'user_sessions',
  properties: {
    /** Not the shared `uuidPrimaryKey`: the id is made before the insert, as the token is signed with it. */
    id: p.uuid().primary(),
    user: () => p.manyToOne(UserSchema).deleteRule('cascade').index(),
    tokenVersion: p.integer(),
    /** The browser's User-Agent as sent, cut to 300 characters. */
    userAgent: p.string().length(300).nullable(),
    ip: p.string().length(45).nullable(),
    createdAt: p.datetime(),
    lastSeenAt: p.datetime(),
    expiresAt: p.datetime().index(),
  },
});

export type UserSession = InferEntity<typeof UserSessionSchema>;
