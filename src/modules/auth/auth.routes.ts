import { ApiRouter } from '../../kernel/http/router';
import { listUsersQuery, loginBody, loginResponse, meView, registerBody, registerResponse, updateUserBody, userIdParams, userView } from './auth.schemas';
import { pageSchema } from '../../kernel/pagination';
import { authPolicy } from './auth.policy';
import { presentMe, presentUser } from './auth.presenter';
import * as service from './auth.service';

export const authRouter = new ApiRouter('auth')
  .post(
    '/api/auth/register',
    {
      summary: 'Register a user',
      description:
        'The first account ever registered becomes admin; later self-registrations are volunteers. ' + 'A `role` in the body is honoured only when an admin makes the call.',
      access: 'optional',
      body: registerBody,
      status: 201,
      response: registerResponse,
      errors: { 409: 'The email is already registered', 429: 'Too many registrations from this address' },
    },
    async ({ ctx, input, maybeActor }) => {
      const { user, token } = await service.register(ctx.deps, maybeActor, input.body, ctx.ip);
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
    async ({ ctx, input }) => {
      const { user, issued } = await service.login(ctx.deps, input.body, ctx.ip);
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
  .get('/api/users', { summary: 'List users (admin)', access: authPolicy.roles('manageUsers'), query: listUsersQuery, response: pageSchema(userView) }, async ({ input, em }) =>
    service.listUsers(em, input.query),
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
  );
