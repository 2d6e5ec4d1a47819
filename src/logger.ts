/**
 * Structured logs (pino): JSON lines for machines, and, when standard output is a
 * terminal, the same lines printed for people (LOG_FORMAT chooses explicitly). Secrets
 * never reach a log line: see the redact paths.
 */
import { pino, type Logger } from 'pino';
import pretty from 'pino-pretty';

export type { Logger };

export type LogFormat = 'auto' | 'json' | 'pretty';

export function createLogger(level: string, format: LogFormat = 'json'): Logger {
  const options = {
    level,
    redact: {
      paths: ['req.headers.authorization', 'headers.authorization', 'token', 'secret', '*.token', '*.secret'],
      censor: '[redacted]',
    },
  };
  const human = format === 'pretty' || (format === 'auto' && process.stdout.isTTY === true);
  if (!human) return pino(options);
  // Synchronous, in this thread: start-up lines appear in order and none is lost at exit.
  return pino(options, pretty({ colorize: process.stdout.isTTY === true, translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname', singleLine: false, sync: true }));
}
