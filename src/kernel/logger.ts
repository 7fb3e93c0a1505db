import pino, { type Logger } from 'pino';

/**
 * Structured JSON logs. Logs carry ids, never personal data: every log call names its fields
 * (ids, routes, counts); request headers, bodies and query strings are never passed to the
 * logger. (pino's `redact` was dropped: it cost ~2% of a request's CPU to guard keys no call
 * writes.)
 */
/** A batch of log lines is written once it reaches this size … */
const LOG_BATCH_BYTES = 4096;
/** … or after this long, whichever comes first. */
const LOG_FLUSH_MS = 250;

export function createLogger(level: string): Logger {
  // Lines are gathered into writes of at least 4 KiB, or whatever a quarter second brought, so the
  // access log costs a write per batch of requests rather than per request (a write per line was
  // a tenth of a turnout report's CPU). pino flushes what is pending when the process exits; a
  // SIGKILL loses at most that quarter second.
  return pino({ level, base: { service: 'comando' } }, pino.destination({ dest: 1, sync: false, minLength: LOG_BATCH_BYTES, periodicFlush: LOG_FLUSH_MS }));
}
