/**
 * The embedded PostgreSQL's cluster on disk (postgres.ts): the user it runs as under
 * root and the directories that user must reach, its initialisation on first start
 * (initdb, then a sync to disk beside the start-up), and where its Unix socket lives.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { chown, mkdir, open, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Logger } from '../platform/logger.js';
import { writeHba } from './postgresAuth.js';
import { EmbeddedPostgresUnavailable } from './postgresErrors.js';

export const SUPERUSER = 'postgres';
// The socket is named after the port even without TCP; one cluster per directory, so a fixed one.
export const PORT = 5432;
const run = promisify(execFile);

export interface Owner {
  readonly uid: number;
  readonly gid: number;
}

/** A data directory of the PGlite versions is left alone, with what to do about it. */
export function refuseLegacyPglite(dataDir: string, clusterDir: string): void {
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
export async function clusterOwner(log: Logger): Promise<Owner | undefined> {
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
export function requireReachable(clusterDir: string, owner: Owner): void {
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
export async function initialise(binDir: string, clusterDir: string, owner: Owner | undefined, log: Logger, password: string): Promise<void> {
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
export async function syncCluster(binDir: string, clusterDir: string, owner: Owner | undefined, log: Logger): Promise<void> {
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
export async function socketDirFor(clusterDir: string, owner: Owner | undefined): Promise<string> {
  const socketFile = `/.s.PGSQL.${PORT}.lock`;
  if (Buffer.byteLength(path.resolve(clusterDir) + socketFile) <= 100) return path.resolve(clusterDir);
  const dir = path.join(tmpdir(), `propgraph-pg-${createHash('sha256').update(path.resolve(clusterDir)).digest('hex').slice(0, 16)}`);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  if (owner) await chown(dir, owner.uid, owner.gid);
  return dir;
}
