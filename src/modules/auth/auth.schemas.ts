import { z } from 'zod';
import { emailAddress, instant, roleSchema } from '../../kernel/schemas';
import { pageQueryShape } from '../../kernel/page-schemas';

const email = emailAddress();

/** Long passphrases welcome; bcrypt-style 72-byte truncation does not apply to argon2. */
const password = z.string().min(10, 'must be at least 10 characters').max(256);

export const registerBody = z
  .object({
    email,
    password,
    name: z.string().trim().min(1).max(120),
    /** Honoured only when an admin is the caller; ignored otherwise. */
    role: roleSchema.optional(),
  })
  .meta({ examples: [{ email: 'jefa@campana.co', password: 'una clave larga de verdad', name: 'Jefa de campaña' }] });

export const loginBody = z.object({
  email,
  password: z.string().min(1).max(256),
});

export const userView = z
  .object({
    id: z.uuid(),
    email: z.string(),
    name: z.string(),
    role: roleSchema,
    active: z.boolean(),
    createdAt: instant,
    lastLoginAt: instant.nullable(),
  })
  .meta({ id: 'User' });

/** One signed-in device of a user, as an admin sees it. */
export const sessionView = z
  .object({
    id: z.uuid(),
    userAgent: z.string().nullable().describe('The browser as it named itself (User-Agent), cut to 300 characters'),
    ip: z.string().nullable().describe('The address it signed in from'),
    startedAt: instant,
    lastSeenAt: instant.describe('Its latest request, to the minute'),
    expiresAt: instant.describe('When its token expires'),
  })
  .meta({ id: 'UserSession' });

export const meView = userView.pick({ id: true, email: true, name: true, role: true, createdAt: true }).meta({ id: 'Me' });

export const registerResponse = z.object({ user: userView, token: z.string() });

/** A self-registration's answer, the same whether the email was new or already had an account: nothing about any account. */
export const registrationRequestedView = z
  .object({
    status: z.literal('pending_approval'),
    detail: z.string(),
  })
  .meta({ id: 'RegistrationRequested' });

/** What a sign-in page needs to know before anyone has signed in: nothing about any account. */
export const setupView = z
  .object({
    /** True until the first account exists: the sign-in page then offers to create it (it becomes the admin). */
    firstAccountPending: z.boolean(),
    /** Whether people may ask for a (volunteer) account themselves (`SELF_REGISTRATION`); otherwise an admin invites them. */
    selfRegistration: z.boolean(),
  })
  .meta({ id: 'AuthSetup' });

export const loginResponse = z.object({
  token: z.string(),
  tokenType: z.literal('Bearer'),
  expiresIn: z.number().int().describe('seconds'),
  user: userView,
});

export const userIdParams = z.object({ id: z.uuid() });
export const sessionParams = z.object({ id: z.uuid(), sessionId: z.uuid() });

/** An admin inviting someone: the account is created without a password, which the person sets from the link. */
export const inviteUserBody = z
  .object({
    email,
    name: z.string().trim().min(1).max(120),
    role: roleSchema,
  })
  .meta({ examples: [{ email: 'prensa@campana.co', name: 'Jefe de prensa', role: 'manager' }] });

export const listUsersQuery = z.object({
  ...pageQueryShape,
  role: roleSchema.optional(),
  active: z
    .enum(['true', 'false'])
    .transform((value) => value === 'true')
    .optional(),
  q: z.string().trim().min(1).max(100).optional(),
});

export const updateUserBody = z
  .object({
    role: roleSchema.optional(),
    active: z.boolean().optional(),
    name: z.string().trim().min(1).max(120).optional(),
  })
  .refine((body) => Object.keys(body).length > 0, 'send at least one of role, active, name');

export const changePasswordBody = z
  .object({
    currentPassword: z.string().min(1).max(256),
    newPassword: password,
  })
  .refine((body) => body.newPassword !== body.currentPassword, { path: ['newPassword'], message: 'must differ from the current password' });

export const changePasswordResponse = loginResponse.omit({ user: true }).meta({ id: 'PasswordChanged' });

export const passwordResetView = z
  .object({
    url: z.url().describe('The one-time set-password page to hand to the user (not sent by Comando)'),
    expiresAt: instant,
  })
  .meta({ id: 'PasswordResetLink' });

export const invitedUserView = z
  .object({
    user: userView,
    setPasswordLink: passwordResetView,
  })
  .meta({ id: 'InvitedUser' });

/** A link's token: 32 random bytes, base64url. */
export const resetToken = z.string().regex(/^[A-Za-z0-9_-]{43}$/, 'is not a set-password link token');

export const completeResetBody = z.object({
  token: resetToken,
  newPassword: password,
  /** The page's second box; the JSON API may leave it out. */
  confirmPassword: z.string().max(256).optional(),
});

export type RegisterInput = z.infer<typeof registerBody>;
export type InviteUserInput = z.infer<typeof inviteUserBody>;
export type LoginInput = z.infer<typeof loginBody>;
export type UpdateUserInput = z.infer<typeof updateUserBody>;
export type ListUsersInput = z.infer<typeof listUsersQuery>;
export type ChangePasswordInput = z.infer<typeof changePasswordBody>;
export type CompleteResetInput = z.infer<typeof completeResetBody>;
