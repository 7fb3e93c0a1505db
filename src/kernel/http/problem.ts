import type { Context, Next } from 'koa';
import { DriverException, UniqueConstraintViolationException, ForeignKeyConstraintViolationException } from '@mikro-orm/core';
import type { Logger } from 'pino';
import { AppError, NotFoundError, ServiceBusyError, type ProblemBody } from '../errors';

/** Stable machine words for HTTP errors raised by Koa, the router and the body parser. */
const codeByStatus: Record<number, [code: string, title: string]> = {
  400: ['bad_request', 'Bad request'],
  401: ['unauthorized', 'Unauthorized'],
  403: ['forbidden', 'Forbidden'],
  404: ['not_found', 'Not found'],
  405: ['method_not_allowed', 'Method not allowed'],
  406: ['not_acceptable', 'Not acceptable'],
  409: ['conflict', 'Conflict'],
  411: ['length_required', 'Length required'],
  413: ['payload_too_large', 'Payload too large'],
  415: ['unsupported_media_type', 'Unsupported media type'],
  422: ['unprocessable', 'Unprocessable content'],
  429: ['rate_limited', 'Too many requests'],
};

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

export function problemType(code: string): string {
  return `/problems/${code}`;
}

export function toProblem(error: AppError): ProblemBody {
  const body: ProblemBody = {
    type: problemType(error.code),
    title: error.title,
    status: error.status,
    detail: error.message,
    code: error.code,
    ...error.extensions,
  };
  if (error.errors?.length) body.errors = error.errors;
  return body;
}

interface HttpLikeError {
  status?: unknown;
  statusCode?: unknown;
  type?: unknown;
  expose?: unknown;
  message?: unknown;
  headers?: unknown;
}

/** Errors from Koa, @koa/router and raw-body/co-body carry a 4xx `status`. */
function fromHttpError(error: HttpLikeError): AppError | undefined {
  const status = typeof error.status === 'number' ? error.status : error.statusCode;
  if (typeof status !== 'number' || status < 400 || status >= 500) return undefined;
  const [code, title] = codeByStatus[status] ?? ['client_error', 'Client error'];
  if (error.type === 'entity.parse.failed' || (status === 400 && /JSON|token/i.test(String(error.message)))) {
    return new AppError(400, 'malformed_body', 'Malformed body', 'The request body could not be parsed.');
  }
  if (status === 413) {
    return new AppError(413, code, title, 'The request body is larger than this endpoint accepts.');
  }
  const detail = error.expose !== false && typeof error.message === 'string' ? error.message : title;
  return new AppError(status, code, title, detail);
}

/**
 * Database constraint failures that reach here were not anticipated by a service: still a 4xx. A
 * statement that gave up waiting (its lock or statement timeout, no pooled connection in time) is a
 * 503 the client may send again.
 */
function fromDatabaseError(error: unknown): AppError | undefined {
  if (error instanceof UniqueConstraintViolationException) {
    return new AppError(409, 'conflict', 'Conflict', 'A resource with the same unique value already exists.');
  }
  if (error instanceof ForeignKeyConstraintViolationException) {
    return new AppError(409, 'conflict', 'Conflict', 'The change conflicts with related data.');
  }
  if (isDatabaseWait(error)) return new ServiceBusyError(DATABASE_RETRY_AFTER_SECONDS, 'The database is busy; send the request again.');
  return undefined;
}

/** How long a client is asked to wait after the database gave up waiting. */
const DATABASE_RETRY_AFTER_SECONDS = 5;

/** SQLSTATEs of a statement that gave up waiting: lock_not_available (lock_timeout), query_canceled (statement_timeout). */
const WAIT_STATES = new Set(['55P03', '57014']);

/** A statement that gave up waiting for a row another transaction holds (its `lock_timeout`). */
export function isLockTimeout(error: unknown): boolean {
  return error instanceof DriverException && error.code === '55P03';
}

/** A statement that gave up waiting for a lock, for its own time, or for a pooled connection. */
export function isDatabaseWait(error: unknown): boolean {
  if (error instanceof DriverException && WAIT_STATES.has(String(error.code))) return true;
  // The ORM wraps the pool's error in a DriverException with the same message.
  return error instanceof Error && isPoolTimeout(error);
}

/** pg-pool's errors for a connection not had within connectionTimeoutMillis (a queue wait, or a new connection). */
function isPoolTimeout(error: Error): boolean {
  return error.message === 'timeout exceeded when trying to connect' || error.message === 'Connection terminated due to connection timeout';
}

/**
 * What may be logged about an unexpected error. Driver errors embed the SQL with its
 * parameters (names, phones...), so only their class and SQLSTATE are kept.
 */
export function safeErrorFields(error: unknown): Record<string, unknown> {
  if (error instanceof DriverException) {
    const { constraint, table } = error as DriverException & { constraint?: string; table?: string };
    return { errorName: error.name, sqlState: error.code, constraint, table };
  }
  if (error instanceof Error) return { errorName: error.name, errorMessage: error.message, stack: error.stack };
  return { errorName: typeof error };
}

export function sendProblem(ctx: Context, error: AppError): void {
  ctx.status = error.status;
  ctx.type = PROBLEM_CONTENT_TYPE;
  if ((error.status === 429 || error.status === 503) && typeof error.extensions.retryAfter === 'number') {
    ctx.set('Retry-After', String(error.extensions.retryAfter));
  }
  ctx.body = toProblem(error);
}

/**
 * The one error middleware: everything thrown below it becomes problem+json; a 500 leaks nothing.
 */
export function problemMiddleware(logger: Logger) {
  return async function problems(ctx: Context, next: Next): Promise<void> {
    try {
      await next();
      // Unknown /api/* paths answer a 404 problem rather than Koa's plain "Not Found".
      if (ctx.status === 404 && ctx.body === undefined && ctx.path.startsWith('/api')) {
        sendProblem(ctx, new NotFoundError(`No API route matches ${ctx.method} ${ctx.path}.`));
      }
    } catch (error) {
      const known = error instanceof AppError ? error : (fromHttpError(error as HttpLikeError) ?? fromDatabaseError(error));
      if (known) {
        sendProblem(ctx, known);
        return;
      }
      logger.error({ requestId: ctx.state.requestId, ...safeErrorFields(error) }, 'unhandled error');
      sendProblem(ctx, new AppError(500, 'internal_error', 'Internal server error', 'Something went wrong on our side.'));
    }
  };
}
