import { ApiRouter } from '../../kernel/http/router';
import {
  listUsersQuery,
  loginBody,
  loginResponse,
  meView,
  registerBody,
  registerResponse,
  updateUserBody,
  userIdParams,
  userView,
} from './auth.schemas';
import { pageSchema } from '../../kernel/pagination';
import { presentMe, presentUser } from './auth.presenter';
import * as service from './auth.service';

export const authRouter = new ApiRouter('auth')
  .post(
    '/api/auth/register',
    {
      summary: 'Register a user',
      description:
        'The first account ever registered becomes admin; later self-registrations are volunteers. ' +
        'A `role` in the body is honoured only when an admin makes the call.',
      access: 'optional',
      body: registerBody,
      status: 201,
      response: registerResponse,
      errors: { 409: 'The email is already registered', 429: 'Too many registrations from this address' },
    },
    async ({ ctx, input, maybeActor, em }) => {
      const { user, token } = await service.register(em, ctx.deps, maybeActor, input.body, ctx.ip);
      return { user: presentUser(user), token };
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
    async ({ ctx, input, em }) => {
      const { user, issued } = await service.login(em, ctx.deps, input.body, ctx.ip);
      return { token: issued.token, tokenType: 'Bearer' as const, expiresIn: issued.expiresIn, user: presentUser(user) };
    },
  )
  .post(
    '/api/auth/logout',
    { summary: "End every token of the caller (all devices, sockets included)", access: [], status: 204 },
    async ({ ctx, actor, em }) => {
      await service.logout(em, ctx.deps, actor);
      return undefined;
    },
  )
  .get(
    '/api/auth/me',
    { summary: 'The current user', access: [], response: meView },
    async ({ actor, em }) => presentMe(await service.getUser(em, actor.id)),
  )
  .get(
    '/api/users',
    { summary: 'List users (admin)', access: ['admin'], query: listUsersQuery, response: pageSchema(userView) },
    async ({ input, em }) => service.listUsers(em, input.query),
  )
  .patch(
    '/api/users/:id',
    {
      summary: "Change a user's role, active flag or name (admin)",
      description: "Changing the role or deactivating ends the user's tokens at once.",
      access: ['admin'],
      params: userIdParams,
      body: updateUserBody,
      response: userView,
      errors: { 404: 'No such user', 409: 'Would leave no active admin' },
    },
    async ({ ctx, input, actor, em }) => presentUser(await service.updateUser(em, ctx.deps, actor, input.params.id, input.body)),
  );
