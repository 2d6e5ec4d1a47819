/**
 * Structured logs (pino): JSON lines for machines, and, when standard output is a
 * terminal, the same lines printed for people (LOG_FORMAT chooses explicitly). Secrets
 * never reach a log line: see the redact paths.
 *
 * The access line of each request and the audit lines carry their fields under one key
 * (`access`, `audit`) and say the same in their message, so that a person reading the
 * pretty form sees one line each while a machine reading JSON gets the fields.
 */
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pino, type DestinationStream, type Logger } from 'pino';
import type PinoPretty from 'pino-pretty';
import { createStream } from 'rotating-file-stream';

/**
 * pino-pretty is loaded when a log is for people: a server whose log is JSON (a service,
 * a container, a test) spent CPU loading it at every start (docs/decisions.md, "The
 * subgraph schema, checked once by codegen").
 */
const loadPretty = (): typeof PinoPretty => createRequire(import.meta.url)('pino-pretty') as typeof PinoPretty;

export type { Logger };

export type LogFormat = 'auto' | 'json' | 'pretty';

/** Where audit lines go besides the log (config.ts's AuditLogConfig). */
export interface AuditFile {
  readonly file: string;
  readonly maxBytes: number;
  readonly files: number;
}

/**
 * `destination`: where the lines go instead of standard output (tests read them);
 * `audit`: a file that receives the audit lines too.
 */
export function createLogger(level: string, format: LogFormat = 'json', destination?: DestinationStream, audit?: AuditFile): Logger {
  const options = {
    level,
    redact: {
      paths: ['req.headers.authorization', 'headers.authorization', 'token', 'secret', '*.token', '*.secret'],
      censor: '[redacted]',
    },
  };
  const human = format === 'pretty' || (format === 'auto' && process.stdout.isTTY === true);
  // JSON lines go out asynchronously (issue #29's profile: one synchronous write per access
  // line took 1.6 s of 32 s under attack). Lines queued while a write is in flight leave
  // together in the next one. A process that ends exits through exitAfterFlush, so only a
  // SIGKILL can lose the last lines, never data.
  const withAudit = (main: DestinationStream): DestinationStream => (audit ? teeAuditLines(main, openAuditFile(audit)) : main);
  if (!human) return pino(options, withAudit(destination ?? pino.destination({ dest: 1, sync: false })));
  // Synchronous, in this thread: start-up lines appear in order and none is lost at exit.
  return pino(
    options,
    withAudit(
      loadPretty()({
        colorize: !destination && process.stdout.isTTY === true,
        translateTime: 'SYS:HH:MM:ss',
        ignore: 'pid,hostname,access,audit',
        singleLine: false,
        sync: true,
        ...(destination ? { destination } : {}),
      }),
    ),
  );
}

/** What every audit line holds, and no other line: services/audit.ts writes `audit` with `action` first. */
const AUDIT_LINE = '"audit":{"action":"';

/**
 * The audit file: JSON lines, rotated when it passes maxBytes as logrotate would
 * (audit.log.1 the newest rotated, `files` kept), so it never grows without bound.
 */
function openAuditFile(audit: AuditFile): NodeJS.WritableStream {
  // A file that cannot be written stops the start, naming it, rather than losing lines later.
  try {
    mkdirSync(path.dirname(audit.file), { recursive: true });
    closeSync(openSync(audit.file, 'a'));
  } catch (err) {
    throw new Error(`AUDIT_LOG_FILE ${audit.file} cannot be written: ${(err as Error).message}`);
  }
  const name = path.basename(audit.file);
  const sizeKiB = Math.max(1, Math.ceil(audit.maxBytes / 1024));
  // With `rotate` (logrotate's behaviour) the name's only argument is the rotated file's number.
  const stream = createStream((rotated: number | Date | null) => (typeof rotated === 'number' && rotated > 0 ? `${name}.${rotated}` : name), {
    path: path.dirname(audit.file),
    size: `${sizeKiB}K`,
    rotate: audit.files,
  });
  // A write that fails later (a full disk) must not end the server: the log keeps the line.
  stream.on('error', (err: Error) => process.stderr.write(`propgraph: the audit file ${audit.file} failed: ${err.message}\n`));
  return stream;
}

/**
 * Every line to `main` as before, and the audit lines to `audit` as well: the log stays
 * whole, and operators read the audit trail where they keep it. Ending it ends both,
 * so exitAfterFlush waits for the audit file too.
 */
function teeAuditLines(main: DestinationStream, audit: NodeJS.WritableStream): DestinationStream {
  const stream = main as DestinationStream & Partial<NodeJS.WritableStream>;
  return {
    write(line: string) {
      const written = stream.write(line);
      if (line.includes(AUDIT_LINE)) audit.write(line);
      return written;
    },
    end() {
      audit.end(() => stream.end?.());
    },
    once(event: string, listener: () => void) {
      stream.once?.(event, listener);
      return this;
    },
  } as DestinationStream;
}

/** Bound on waiting for standard output at exit: a reader that stopped reading must not hold the exit. */
const EXIT_FLUSH_MS = 2000;

/**
 * Exits once every line logged so far is written, in order. pino's own exit handler
 * writes what is queued synchronously but cannot wait for an asynchronous write already
 * in flight, whose lines then came after the last line (seen beside two busy loops:
 * PostgreSQL's "database system is shut down" after "stopped"), and its flush() answers
 * at once. Ending the stream waits for that write, writes the rest, and closes it.
 */
export function exitAfterFlush(log: Logger, code: number): void {
  const exit = () => process.exit(code);
  setTimeout(exit, EXIT_FLUSH_MS);
  const stream = (log as unknown as Record<symbol, unknown>)[pino.symbols.streamSym] as Partial<NodeJS.WritableStream> | undefined;
  if (typeof stream?.end !== 'function' || typeof stream.once !== 'function') return exit();
  stream.once('close', exit);
  stream.end();
}
