import type { Context, Next } from 'koa';
import { z, type ZodType } from 'zod';
import { resolveActor } from '../auth/authenticate';
import { roleAllowed, type Actor, type Role } from '../auth/roles';
import { AppError, ForbiddenError, UnauthorizedError, UnsupportedMediaTypeError, ValidationError, type FieldError } from '../errors';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';
export type BodyType = 'json' | 'form' | 'multipart' | 'csv' | 'jpeg' | 'png' | 'pdf' | 'docx';

/**
 * Who may call a route: `public` (no token), `optional` (a token is used when sent), or the
 * roles admitted (`admin` always is). An empty list admits any authenticated user.
 */
export type RouteAccess = 'public' | 'optional' | readonly Role[];

type Schema = ZodType;
type Infer<S> = S extends ZodType ? z.output<S> : undefined;

export interface RouteSpec<P extends Schema | undefined, Q extends Schema | undefined, B extends Schema | undefined, R extends Schema | undefined> {
  summary: string;
  description?: string;
  access: RouteAccess;
  params?: P;
  query?: Q;
  body?: B;
  /** Media types the body may come in; JSON unless said otherwise. */
  bodyTypes?: BodyType[];
  /** A larger parsed-body limit than the service's `BODY_LIMIT` (`20mb`), for imports; only for paths without parameters. */
  bodyLimit?: string;
  /**
   * The handler validates the body itself (with `body`, which still documents the route), for
   * routes that must answer a bad form post with an HTML page rather than a problem.
   */
  handlerParsesBody?: boolean;
  /**
   * Keep the body's exact bytes as `ctx.request.rawBody` besides the parsed body (webhooks whose
   * signature covers the raw bytes). Only for paths without parameters.
   */
  rawBody?: boolean;
  /** Status of a successful answer (default 200). */
  status?: number;
  /** JSON response schema: documents the route and, in tests, checks every answer against it. */
  response?: R;
  /** Non-JSON answers (HTML pages, images, CSV): media type → description. */
  produces?: Record<string, string>;
  /** Error answers besides those implied by the spec (400 with inputs, 401/403 with access). */
  errors?: Record<number, string>;
  /** Answers that send the client elsewhere (`Location`): a form post's 303, a click's 302. */
  redirects?: Record<number, string>;
  /**
   * Query parameters the route does not name are ignored rather than refused (400): for pages
   * opened from links that mail clients and marketing tools tag (`utm_*`), and cache-busted assets.
   */
  openQuery?: true;
  /** Errors may also come as an HTML page (tracking links opened in a browser), besides problems. */
  errorPages?: true;
  /** The OpenAPI operationId; by default the method and the path (`getGotvPollingStationsById`). */
  operationId?: string;
}

export interface RouteInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
}

/** What a handler gets: the validated input and the caller (the database is `ctx.deps.db`). */
export interface RouteContext<P, Q, B> {
  ctx: Context;
  input: RouteInput<P, Q, B>;
  /** The authenticated caller; throws 401 on a public route called without a token. */
  readonly actor: Actor;
  readonly maybeActor: Actor | undefined;
}

/** Returns the JSON answer, or undefined when it wrote ctx.body itself (HTML, files, streams). */
export type RouteHandler<P, Q, B, R> = (route: RouteContext<P, Q, B>) => Promise<R | undefined>;

export interface RouteDefinition {
  method: HttpMethod;
  path: string;
  tag: string;
  tagDescription: string;
  // The definition list holds routes of every input type.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  spec: RouteSpec<any, any, any, any>;
  middleware: (ctx: Context, next: Next) => Promise<void>;
}

export const bodyMediaTypes: Record<BodyType, string> = {
  json: 'application/json',
  form: 'application/x-www-form-urlencoded',
  // Not parsed by the body parser either: the handler reads the parts with its own limits (a form with files).
  multipart: 'multipart/form-data',
  // Not parsed by the body parser: the handler streams it (large imports).
  csv: 'text/csv',
  // Files (receipts): not parsed either; the handler reads the bytes with its own limit.
  jpeg: 'image/jpeg',
  png: 'image/png',
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
};

export function zodIssuesToFieldErrors(error: z.ZodError, prefix?: string): FieldError[] {
  return error.issues.map((issue) => ({
    path: [prefix, ...issue.path.map(String)].filter(Boolean).join('.'),
    message: issue.message,
  }));
}

/** Validates one part of a request (`params`, `query`, `body`) or throws the standard 400; for handlers that parse their own body. */
export function parsePart<S extends Schema | undefined>(schema: S, value: unknown, part: string): Infer<S> {
  if (!schema) return undefined as Infer<S>;
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new ValidationError(zodIssuesToFieldErrors(parsed.error, part));
  return parsed.data as Infer<S>;
}

/**
 * Where a request's input holds a NUL character (`\u0000`), if anywhere: PostgreSQL text cannot
 * store one, so it would fail deep in a write. Checked for every route before its schemas.
 */
function nulCharacterAt(value: unknown, path: string, depth = 0): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? path : undefined;
  if (depth > 32 || value === null || typeof value !== 'object') return undefined;
  for (const [key, item] of Object.entries(value)) {
    const found = key.includes('\u0000') ? `${path}.${key}` : nulCharacterAt(item, `${path}.${key}`, depth + 1);
    if (found) return found;
  }
  return undefined;
}

function refuseNulCharacters(parts: Record<string, unknown>): void {
  for (const [part, value] of Object.entries(parts)) {
    const path = nulCharacterAt(value, part);
    if (path) throw new ValidationError([{ path, message: 'contains a NUL character (\\u0000), which text cannot hold' }]);
  }
}

/** The query parameters a schema names, or undefined when it is not a plain object (then it judges them itself). */
function namedQueryParameters(schema: Schema | undefined): ReadonlySet<string> | undefined {
  if (!schema) return new Set();
  return schema instanceof z.ZodObject ? new Set(Object.keys(schema.shape)) : undefined;
}

/** A parameter the route does not know is a mistake (a misspelt filter would silently list everything): 400 naming it. */
function refuseUnknownQuery(ctx: Context, known: ReadonlySet<string>): void {
  if (!ctx.querystring) return;
  const unknown = Object.keys(ctx.query).filter((name) => !known.has(name));
  if (unknown.length) throw new ValidationError(unknown.map((name) => ({ path: `query.${name}`, message: 'is not a parameter of this route' })));
}

function hasBody(ctx: Context): boolean {
  const length = ctx.get('Content-Length');
  return Boolean(ctx.get('Transfer-Encoding')) || (length !== '' && length !== '0');
}

/**
 * The one way a module declares an HTTP route: access, input schemas, response schema and
 * handler in one place. The same declaration drives validation, authorisation and OpenAPI.
 */
export class ApiRouter {
  readonly routes: RouteDefinition[] = [];

  /** `tag` groups the routes in the reference; `description` says what the group is for. */
  constructor(
    readonly tag: string,
    readonly description = '',
  ) {}

  get<P extends Schema | undefined = undefined, Q extends Schema | undefined = undefined, R extends Schema | undefined = undefined>(
    path: string,
    spec: RouteSpec<P, Q, undefined, R>,
    handler: RouteHandler<Infer<P>, Infer<Q>, undefined, R extends ZodType ? z.input<R> : unknown>,
  ): this {
    return this.add('get', path, spec, handler);
  }

  post<P extends Schema | undefined = undefined, Q extends Schema | undefined = undefined, B extends Schema | undefined = undefined, R extends Schema | undefined = undefined>(
    path: string,
    spec: RouteSpec<P, Q, B, R>,
    handler: RouteHandler<Infer<P>, Infer<Q>, Infer<B>, R extends ZodType ? z.input<R> : unknown>,
  ): this {
    return this.add('post', path, spec, handler);
  }

  put<P extends Schema | undefined = undefined, Q extends Schema | undefined = undefined, B extends Schema | undefined = undefined, R extends Schema | undefined = undefined>(
    path: string,
    spec: RouteSpec<P, Q, B, R>,
    handler: RouteHandler<Infer<P>, Infer<Q>, Infer<B>, R extends ZodType ? z.input<R> : unknown>,
  ): this {
    return this.add('put', path, spec, handler);
  }

  patch<P extends Schema | undefined = undefined, Q extends Schema | undefined = undefined, B extends Schema | undefined = undefined, R extends Schema | undefined = undefined>(
    path: string,
    spec: RouteSpec<P, Q, B, R>,
    handler: RouteHandler<Infer<P>, Infer<Q>, Infer<B>, R extends ZodType ? z.input<R> : unknown>,
  ): this {
    return this.add('patch', path, spec, handler);
  }

  delete<P extends Schema | undefined = undefined, Q extends Schema | undefined = undefined, R extends Schema | undefined = undefined>(
    path: string,
    spec: RouteSpec<P, Q, undefined, R>,
    handler: RouteHandler<Infer<P>, Infer<Q>, undefined, R extends ZodType ? z.input<R> : unknown>,
  ): this {
    return this.add('delete', path, spec, handler);
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  private add(method: HttpMethod, path: string, spec: RouteSpec<any, any, any, any>, handler: RouteHandler<any, any, any, unknown>): this {
    const bodyTypes = (spec.bodyTypes ?? ['json']).map((type) => bodyMediaTypes[type]);
    const knownQuery = spec.openQuery ? undefined : namedQueryParameters(spec.query);
    const middleware = async (ctx: Context): Promise<void> => {
      const actor = spec.access === 'public' ? undefined : await authorise(ctx, spec.access);
      if (knownQuery) refuseUnknownQuery(ctx, knownQuery);
      if (spec.body && hasBody(ctx) && !ctx.is(bodyTypes)) throw new UnsupportedMediaTypeError(bodyTypes);
      refuseNulCharacters({ params: ctx.params, query: ctx.query, body: spec.rawBody ? undefined : ctx.request.body });
      const input = {
        params: spec.params ? parsePart(spec.params, ctx.params, 'params') : undefined,
        query: spec.query ? parsePart(spec.query, ctx.query, 'query') : undefined,
        body: !spec.body ? undefined : spec.handlerParsesBody ? (ctx.request.body ?? {}) : parsePart(spec.body, ctx.request.body ?? {}, 'body'),
      };
      ctx.status = spec.status ?? 200;
      // Answers to signed-in callers may carry personal data: no shared or browser caching.
      if (actor) ctx.set('Cache-Control', 'no-store');
      const result = await handler(new HandlerContext(ctx, input, actor));
      if (result !== undefined) ctx.body = checkResponse(ctx, spec.response, result);
      else if (ctx.body === undefined && ctx.status !== 204) ctx.status = 204;
    };
    this.routes.push({ method, path, tag: this.tag, tagDescription: this.description, spec, middleware });
    return this;
  }
}

/** A class rather than an object literal with getters: it stays one hidden class, cheap per request. */
class HandlerContext<P, Q, B> implements RouteContext<P, Q, B> {
  constructor(
    readonly ctx: Context,
    readonly input: RouteInput<P, Q, B>,
    readonly maybeActor: Actor | undefined,
  ) {}

  get actor(): Actor {
    if (!this.maybeActor) throw new UnauthorizedError();
    return this.maybeActor;
  }
}

async function authorise(ctx: Context, access: Exclude<RouteAccess, 'public'>): Promise<Actor | undefined> {
  const actor = await resolveActor(ctx, ctx.deps.auth, access !== 'optional');
  if (actor && access !== 'optional' && access.length > 0 && !roleAllowed(actor.role, access)) {
    throw new ForbiddenError();
  }
  return actor;
}

/**
 * Outside production (`NODE_ENV=test` in the suite, `development` with `npm run dev`) every JSON
 * answer is checked against the route's response schema, so a presenter that drifts from the
 * documented contract fails its tests instead of its clients.
 */
function checkResponse(ctx: Context, schema: ZodType | undefined, result: unknown): unknown {
  if (!schema || ctx.deps.config.env === 'production') return result;
  const parsed = schema.safeParse(result);
  if (!parsed.success) {
    throw new AppError(500, 'response_contract', 'Response contract broken', JSON.stringify(parsed.error.issues));
  }
  return result;
}
