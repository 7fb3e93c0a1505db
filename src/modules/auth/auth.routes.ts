import type { Context } from 'koa';
import { z } from 'zod';
import { renderPasswordSet, renderResetLinkInvalid, renderSetPassword } from '../../../landing/account';
import { renderProblem } from '../../../landing/templates';
import { AppError } from '../../kernel/errors';
import { ApiRouter, parsePart } from '../../kernel/http/router';
import {
  changePasswordBody,
  changePasswordResponse,
  completeResetBody,
  invitedUserView,
  inviteUserBody,
  listUsersQuery,
  loginBody,
  loginResponse,
  meView,
  passwordResetView,
  registerBody,
  registerResponse,
  registrationRequestedView,
  resetToken,
  setupView,
  updateUserBody,
  sessionParams,
  sessionView,
  userIdParams,
  userView,
} from './auth.schemas';
import { pageQueryShape, pageSchema } from '../../kernel/pagination';
import { authPolicy } from './auth.policy';
import { presentMe, presentUser } from './auth.presenter';
import * as service from './auth.service';
import { deviceOf, endSession, listSessions } from './auth.sessions';

const PASSWORD_SET_PATH = `${service.SET_PASSWORD_PATH}/lista`;
const RESET_PATH = '/api/auth/password/reset';

function html(ctx: Context, status: number, body: string): undefined {
  ctx.status = status;
  ctx.type = 'html';
  // The page carries a one-time token: never cached, never sent on as a referrer.
  ctx.set('Cache-Control', 'no-store');
  ctx.body = body;
  return undefined;
}

/** Spanish words for the page, whatever the API's English says. */
const PAGE_MESSAGES: Record<string, string> = {
  newPassword: 'La clave debe tener al menos 10 caracteres.',
  confirmPassword: 'Las dos claves no coinciden.',
};

/** The page's form post: post/redirect/get on success, the form again (Spanish) on a mistake. */
async function answerResetForm(ctx: Context, raw: Record<string, unknown>): Promise<undefined> {
  const token = typeof raw.token === 'string' ? raw.token : '';
  const again = (status: number, errors: { field: string; message: string }[]) => html(ctx, status, renderSetPassword({ actionUrl: RESET_PATH, token, errors }));
  const parsed = completeResetBody.safeParse(raw);
  if (!parsed.success) {
    const fields = parsed.error.issues.map((issue) => String(issue.path[0] ?? 'form'));
    if (fields.includes('token')) return html(ctx, 400, renderResetLinkInvalid());
    return again(
      400,
      fields.map((field) => ({ field, message: PAGE_MESSAGES[field] ?? 'Revisa este dato.' })),
    );
  }
  try {
    await service.completePasswordReset(ctx.deps, parsed.data, ctx.ip);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    if (error.status === 429) return html(ctx, 429, renderProblem({ title: 'Demasiados intentos', message: 'Espera unos minutos y vuelve a intentarlo.' }));
    if (error.code === 'invalid_reset_link') return html(ctx, 400, renderResetLinkInvalid());
    return again(
      error.status,
      (error.errors ?? []).map((fieldError) => fieldError.path.replace(/^body\./, '')).map((field) => ({ field, message: PAGE_MESSAGES[field] ?? 'Revisa este dato.' })),
    );
  }
  ctx.status = 303;
  ctx.redirect(PASSWORD_SET_PATH);
  return undefined;
}

export const authRouter = new ApiRouter('auth', 'Accounts, sessions, passwords and roles')
  .get(
    '/api/auth/setup',
    {
      summary: 'Whether the first account is still to be created',
      description: "Public: the console's sign-in page asks it to offer creating the first account (the admin) on a fresh install. It says nothing about any account.",
      access: 'public',
      response: setupView,
    },
    async ({ ctx }) => ({ firstAccountPending: await service.firstAccountPending(ctx.deps.db), selfRegistration: ctx.deps.config.selfRegistration }),
  )
  .post(
    '/api/auth/register',
    {
      summary: 'Register a user',
      description:
        'The first account ever registered becomes admin (201, signed in). After it, an admin creates accounts (201; a `role` in the body is honoured ' +
        'only then), and hands a set-password link (`POST /api/users/{id}/password-reset`) so the person chooses their own password. ' +
        'Anyone else is refused (403 `registration_closed`) unless `SELF_REGISTRATION` is on; then the answer is 202 `pending_approval` ' +
        'whether or not the email already has an account (a new one is an inactive volunteer until an admin activates it).',
      access: 'optional',
      body: registerBody,
      status: 201,
      response: z.union([registerResponse, registrationRequestedView]),
      errors: {
        403: 'Registration is closed (`registration_closed`)',
        409: 'The email is already registered (an admin creating an account)',
        429: 'Too many registrations from this address',
      },
    },
    async ({ ctx, input, maybeActor }) => {
      const registration = await service.register(ctx.deps, maybeActor, input.body, { ...deviceOf(ctx), ip: ctx.ip });
      if (registration.kind === 'created') return { user: presentUser(registration.user), token: registration.token };
      ctx.status = 202;
      return { status: 'pending_approval' as const, detail: service.REGISTRATION_REQUESTED };
    },
  )
  .post(
    '/api/auth/login',
    {
      summary: 'Log in; returns a bearer token',
      access: 'public',
      body: loginBody,
      response: loginResponse,
      errors: { 401: 'Wrong email or password', 429: 'Too many failed attempts; see Retry-After' },
    },
    async ({ ctx, input }) => {
      const { user, issued } = await service.login(ctx.deps, input.body, { ...deviceOf(ctx), ip: ctx.ip });
      return { token: issued.token, tokenType: 'Bearer' as const, expiresIn: issued.expiresIn, user: presentUser(user) };
    },
  )
  .post('/api/auth/logout', { summary: 'End every token of the caller (all devices, sockets included)', access: authPolicy.roles('self'), status: 204 }, async ({ ctx, actor }) => {
    await service.logout(ctx.deps, actor);
    return undefined;
  })
  .get('/api/auth/me', { summary: 'The current user', access: authPolicy.roles('self'), response: meView }, async ({ ctx, actor }) =>
    presentMe(await service.getUser(ctx.deps.db, actor.id)),
  )
  .get('/api/users', { summary: 'List users (admin)', access: authPolicy.roles('manageUsers'), query: listUsersQuery, response: pageSchema(userView) }, async ({ ctx, input }) =>
    service.listUsers(ctx.deps.db, input.query),
  )
  .post(
    '/api/users',
    {
      summary: 'Invite someone: an account with a role and a one-time set-password link (admin)',
      description:
        'The account can be used once its owner sets a password on the link (valid `PASSWORD_RESET_TTL`, 30 minutes by default); hand it over ' +
        'yourself (Comando does not send it). A later link comes from `POST /api/users/{id}/password-reset`.',
      access: authPolicy.roles('grantRole'),
      body: inviteUserBody,
      status: 201,
      response: invitedUserView,
      errors: { 409: 'The email is already registered (`email_taken`)' },
    },
    async ({ ctx, input, actor }) => {
      const invited = await service.inviteUser(ctx.deps, actor, input.body);
      return { user: presentUser(invited.user), setPasswordLink: { url: invited.setPasswordLink.url, expiresAt: invited.setPasswordLink.expiresAt.toISOString() } };
    },
  )
  .get(
    '/api/users/:id/sessions',
    {
      summary: "A user's open sessions (admin): each signed-in device",
      description:
        'Newest first: the browser (User-Agent) and address it signed in from, when it started, when it was last seen (to the minute), when its token ' +
        'expires. A session ends with its token, with `POST /api/users/{id}/sessions/end` (all), or alone with `POST /api/users/{id}/sessions/{sessionId}/end`. ' +
        'Tokens issued before sessions were kept are not listed.',
      access: authPolicy.roles('manageUsers'),
      params: userIdParams,
      query: z.object(pageQueryShape),
      response: pageSchema(sessionView),
      errors: { 404: 'No such user' },
    },
    async ({ ctx, input, actor }) => listSessions(ctx.deps, actor, input.params.id, input.query),
  )
  .post(
    '/api/users/:id/sessions/:sessionId/end',
    {
      summary: "End one of a user's sessions (admin): one lost phone",
      description: "That device's token stops working at once, in every process, and its sockets close; the user's other devices stay signed in.",
      access: authPolicy.roles('manageUsers'),
      params: sessionParams,
      status: 204,
      errors: { 404: 'No such user, or no such session of theirs' },
    },
    async ({ ctx, input, actor }) => {
      await endSession(ctx.deps, actor, input.params.id, input.params.sessionId);
      return undefined;
    },
  )
  .post(
    '/api/users/:id/sessions/end',
    {
      summary: 'End every session of a user (admin): a lost phone, a shared computer',
      description: 'Every token the user holds stops working at once, in every process, and their sockets are closed; the password stays.',
      access: authPolicy.roles('manageUsers'),
      params: userIdParams,
      status: 204,
      errors: { 404: 'No such user' },
    },
    async ({ ctx, input, actor }) => {
      await service.endUserSessions(ctx.deps, actor, input.params.id);
      return undefined;
    },
  )
  .patch(
    '/api/users/:id',
    {
      summary: "Change a user's role, active flag or name (admin)",
      description: "Changing the role or deactivating ends the user's tokens at once.",
      access: authPolicy.roles('manageUsers'),
      params: userIdParams,
      body: updateUserBody,
      response: userView,
      errors: { 404: 'No such user', 409: 'Would leave no active admin' },
    },
    async ({ ctx, input, actor }) => presentUser(await service.updateUser(ctx.deps, actor, input.params.id, input.body)),
  )
  .post(
    '/api/auth/password',
    {
      summary: 'Change your own password',
      description: 'Needs the current password. Every token you hold ends (other devices and sockets too); the answer carries a fresh one for this device.',
      access: authPolicy.roles('self'),
      body: changePasswordBody,
      response: changePasswordResponse,
      errors: { 403: 'The current password is wrong (`wrong_password`)', 429: 'Too many wrong passwords; see Retry-After' },
    },
    async ({ ctx, input, actor }) => {
      const issued = await service.changePassword(ctx.deps, actor, input.body, deviceOf(ctx));
      return { token: issued.token, tokenType: 'Bearer' as const, expiresIn: issued.expiresIn };
    },
  )
  .post(
    '/api/users/:id/password-reset',
    {
      summary: 'Issue a one-time set-password link for a user (admin)',
      description:
        'For someone who forgot their password: hand them the link (Comando does not send it). It works once, within `PASSWORD_RESET_TTL` ' +
        '(30 minutes by default); a newer link replaces an unused one; the current password keeps working until the link is used.',
      access: authPolicy.roles('manageUsers'),
      params: userIdParams,
      status: 201,
      response: passwordResetView,
      errors: { 404: 'No such user', 409: 'The account is deactivated', 429: 'Too many links for this user in an hour' },
    },
    async ({ ctx, input, actor }) => {
      const link = await service.issuePasswordReset(ctx.deps, actor, input.params.id);
      return { url: link.url, expiresAt: link.expiresAt.toISOString() };
    },
  )
  .get(
    service.SET_PASSWORD_PATH,
    {
      summary: 'The set-password page a link opens',
      access: 'public',
      query: z.object({ token: z.string().max(100).optional() }),
      produces: { 'text/html': 'The form, in Spanish; works without JavaScript' },
      errors: { 400: 'The link is malformed, used, expired or replaced (HTML page)' },
    },
    async ({ ctx, input }) => {
      const token = input.query.token ?? '';
      if (!resetToken.safeParse(token).success || !(await service.resetLinkUsable(ctx.deps.db, token))) return html(ctx, 400, renderResetLinkInvalid());
      return html(ctx, 200, renderSetPassword({ actionUrl: RESET_PATH, token }));
    },
  )
  .post(
    RESET_PATH,
    {
      summary: 'Set a new password with a one-time link token',
      description:
        "JSON (→ 204), or the set-password page's plain form post (→ 303 to a confirmation page, or the form again with its errors). " +
        "Ends every token of the link's user. The same answer for a used, expired, replaced or unknown token.",
      access: 'public',
      body: completeResetBody,
      bodyTypes: ['json', 'form'],
      handlerParsesBody: true,
      status: 204,
      redirects: { 303: 'Form post: the password is set; go to the confirmation page' },
      errors: { 400: 'The link is not valid (`invalid_reset_link`) or the password too short', 429: 'Too many attempts from this address' },
    },
    async ({ ctx, input }) => {
      const raw = (typeof input.body === 'object' && input.body !== null ? input.body : {}) as Record<string, unknown>;
      if (ctx.is('urlencoded') !== 'urlencoded') {
        await service.completePasswordReset(ctx.deps, parsePart(completeResetBody, raw, 'body'), ctx.ip);
        return undefined;
      }
      return answerResetForm(ctx, raw);
    },
  )
  .get(PASSWORD_SET_PATH, { summary: 'Confirmation after setting a password', access: 'public', produces: { 'text/html': 'Confirmation page' } }, async ({ ctx }) =>
    html(ctx, 200, renderPasswordSet()),
  );
