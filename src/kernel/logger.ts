import pino, { type Logger } from 'pino';

/**
 * Structured JSON logs. Logs carry ids, never personal data: request bodies and query strings
 * are not logged, and credentials are redacted should an object carrying them slip in.
 */
export function createLogger(level: string): Logger {
  const options = {
    level,
    base: { service: 'comando' },
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', 'password', '*.password', 'token', '*.token'],
      censor: '[redacted]',
    },
  };
  // Asynchronous writes: while one write is in flight, further lines are gathered into the
  // next one, so under load the access log costs a syscall per batch rather than per line.
  // pino flushes what is pending when the process exits.
  return pino(options, pino.destination({ dest: 1, sync: false }));
}
