import pino, { type Logger } from 'pino';

/**
 * Structured JSON logs. Logs carry ids, never personal data: every log call names its fields
 * (ids, routes, counts); request headers, bodies and query strings are never passed to the
 * logger. (pino's `redact` was dropped: it cost ~2% of a request's CPU to guard keys no call
 * writes.)
 */
export function createLogger(level: string): Logger {
  // Asynchronous writes: while one write is in flight, further lines are gathered into the
  // next one, so under load the access log costs a syscall per batch rather than per line.
  // pino flushes what is pending when the process exits.
  return pino({ level, base: { service: 'comando' } }, pino.destination({ dest: 1, sync: false }));
}
