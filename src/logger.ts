/**
 * Structured logs (pino): JSON lines for machines, and, when standard output is a
 * terminal, the same lines printed for people (LOG_FORMAT chooses explicitly). Secrets
 * never reach a log line: see the redact paths.
 *
 * The access line of each request and the audit lines carry their fields under one key
 * (`access`, `audit`) and say the same in their message, so that a person reading the
 * pretty form sees one line each while a machine reading JSON gets the fields.
 */
import { pino, type DestinationStream, type Logger } from 'pino';
import pretty from 'pino-pretty';

export type { Logger };

export type LogFormat = 'auto' | 'json' | 'pretty';

/** `destination`: where the lines go instead of standard output (tests read them). */
export function createLogger(level: string, format: LogFormat = 'json', destination?: DestinationStream): Logger {
  const options = {
    level,
    redact: {
      paths: ['req.headers.authorization', 'headers.authorization', 'token', 'secret', '*.token', '*.secret'],
      censor: '[redacted]',
    },
  };
  const human = format === 'pretty' || (format === 'auto' && process.stdout.isTTY === true);
  if (!human) return destination ? pino(options, destination) : pino(options);
  // Synchronous, in this thread: start-up lines appear in order and none is lost at exit.
  return pino(
    options,
    pretty({
      colorize: !destination && process.stdout.isTTY === true,
      translateTime: 'SYS:HH:MM:ss',
      ignore: 'pid,hostname,access,audit',
      singleLine: false,
      sync: true,
      ...(destination ? { destination } : {}),
    }),
  );
}
