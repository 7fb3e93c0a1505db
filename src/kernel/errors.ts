/**
 * Every error a client can see is an AppError, rendered as RFC 9457 problem details
 * by the one error middleware (kernel/http/problem.ts).
 */

export interface FieldError {
  path: string;
  message: string;
}

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  errors?: FieldError[];
  [extension: string]: unknown;
}

export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly title: string,
    detail?: string,
    readonly errors?: FieldError[],
    /** Extra members of the problem body (RFC 9457 extensions), e.g. `retryAfter`. */
    readonly extensions: Record<string, unknown> = {},
  ) {
    super(detail ?? title);
    this.name = 'AppError';
  }
}

export class ValidationError extends AppError {
  constructor(errors: FieldError[], detail = 'The request is not valid.', code = 'validation_failed') {
    super(400, code, 'Validation failed', detail, errors);
  }
}

/** A single-field validation failure that a service finds (an unknown referenced id, say). */
export function invalidField(path: string, message: string, code = 'validation_failed'): ValidationError {
  return new ValidationError([{ path, message }], message, code);
}

export class UnauthorizedError extends AppError {
  constructor(detail = 'Authentication is required.') {
    super(401, 'unauthorized', 'Unauthorized', detail);
  }
}

export class ForbiddenError extends AppError {
  constructor(detail = 'You are not allowed to do this.') {
    super(403, 'forbidden', 'Forbidden', detail);
  }
}

export class NotFoundError extends AppError {
  constructor(detail = 'The resource does not exist.') {
    super(404, 'not_found', 'Not found', detail);
  }
}

export class ConflictError extends AppError {
  constructor(detail: string, code = 'conflict') {
    super(409, code, 'Conflict', detail);
  }
}

export class RateLimitedError extends AppError {
  constructor(
    readonly retryAfterSeconds: number,
    detail = 'Too many requests; try again later.',
  ) {
    super(429, 'rate_limited', 'Too many requests', detail, undefined, { retryAfter: retryAfterSeconds });
  }
}

/**
 * Nothing was wrong with the request, but what it needs is held up (a row another transaction
 * holds, no database connection free in time): send it again after `Retry-After` seconds.
 */
export class ServiceBusyError extends AppError {
  constructor(
    readonly retryAfterSeconds: number,
    detail = 'The service is busy; send the request again.',
  ) {
    super(503, 'busy', 'Busy', detail, undefined, { retryAfter: retryAfterSeconds });
  }
}

export class UnsupportedMediaTypeError extends AppError {
  constructor(accepted: string[]) {
    super(415, 'unsupported_media_type', 'Unsupported media type', `Send the body as ${accepted.join(' or ')}.`);
  }
}
