import pino, { type Logger } from 'pino';

/**
 * Structured JSON logs. Logs carry ids, never personal data: request bodies and query strings
 * are not logged, and credentials are redacted should an object carrying them slip in.
 */
export function createLogger(level: string): Logger {
  return pino({
    level,
    base: { service: 'comando' },
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', 'password', '*.password', 'token', '*.token'],
      censor: '[redacted]',
    },
  });
}
