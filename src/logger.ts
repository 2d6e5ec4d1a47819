/** Structured JSON logs (pino). Secrets never reach a log line: see the redact paths. */
import { pino, type Logger } from 'pino';

export type { Logger };

export function createLogger(level: string): Logger {
  return pino({
    level,
    redact: {
      paths: ['req.headers.authorization', 'headers.authorization', 'token', 'secret', '*.token', '*.secret'],
      censor: '[redacted]',
    },
  });
}
