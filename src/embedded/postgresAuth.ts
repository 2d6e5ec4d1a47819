/**
 * Who may connect to the embedded PostgreSQL (issue #29). Its socket is in DATA_DIR,
 * but `trust` let every process of the user it runs as (`postgres` under root) in as
 * the superuser. The cluster's superuser has a generated password instead, kept in
 * DATA_DIR/postgres-password (mode 0600, the server's own user), and every connection
 * proves it with scram-sha-256, the socket's included. A password file put there
 * before the first start is used as it is.
 *
 * A cluster made by an earlier propgraph (pg_hba `trust`, no password file) is moved
 * over on its first start: the password is written first, then set on the role through
 * the still trusting socket, then pg_hba.conf is replaced and reloaded. Each step is
 * redone on the next start if one is interrupted.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, chown, open, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import type { Logger } from '../platform/logger.js';

export const PASSWORD_FILE = 'postgres-password';
const DATABASE = 'propgraph';
const SUPERUSER = 'postgres';

/** The whole pg_hba.conf: the Unix socket is the only way in (no TCP listener), with the password. */
export const HBA_CONF = `# Written by propgraph: the only way in is the Unix socket, with the superuser's password
# (kept in DATA_DIR/${PASSWORD_FILE}), proved with scram-sha-256.
local   all   all   scram-sha-256
`;

interface Owner {
  readonly uid: number;
  readonly gid: number;
}

const passwordPath = (dataDir: string) => path.join(dataDir, PASSWORD_FILE);

/** The cluster's password, or undefined when DATA_DIR has none (yet). */
export function readPassword(dataDir: string): string | undefined {
  const file = passwordPath(dataDir);
  if (!existsSync(file)) return undefined;
  const password = readFileSync(file, 'utf8').trim();
  return password === '' ? undefined : password;
}

/** The cluster's password: the one in DATA_DIR, or a new one written there (mode 0600, atomically) when there is none. */
export async function ensurePassword(dataDir: string): Promise<string> {
  const existing = readPassword(dataDir);
  if (existing) return existing;
  const password = randomBytes(32).toString('base64url');
  const file = passwordPath(dataDir);
  const scratch = `${file}.new`;
  await writeFile(scratch, `${password}\n`, { mode: 0o600 });
  await chmod(scratch, 0o600);
  const handle = await open(scratch, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(scratch, file);
  return password;
}

/** A connection string through the cluster's socket, with the password from DATA_DIR (for tools and tests reading the same database). */
export function embeddedDatabaseUrl(dataDir: string, socketDir = path.join(dataDir, 'postgres')): string {
  const password = readPassword(dataDir);
  if (!password) throw new Error(`${passwordPath(dataDir)} is missing: the embedded PostgreSQL has not been started in ${dataDir} yet`);
  return `postgresql://${SUPERUSER}:${encodeURIComponent(password)}@localhost/${DATABASE}?host=${encodeURIComponent(socketDir)}`;
}

/** Whether the cluster's pg_hba.conf is this module's (a cluster created or moved over by this version). */
export async function requiresPassword(clusterDir: string): Promise<boolean> {
  const hba = await readFile(path.join(clusterDir, 'pg_hba.conf'), 'utf8').catch(() => '');
  return hba === HBA_CONF;
}

/** Writes pg_hba.conf (atomically, owned by the cluster's user). */
export async function writeHba(clusterDir: string, owner: Owner | undefined): Promise<void> {
  const file = path.join(clusterDir, 'pg_hba.conf');
  const scratch = `${file}.new`;
  await writeFile(scratch, HBA_CONF, { mode: 0o600 });
  if (owner) await chown(scratch, owner.uid, owner.gid);
  await rename(scratch, file);
}

/**
 * Moves a running cluster of an earlier version over to its password: sets it on the
 * superuser (through the socket, which still trusts), replaces pg_hba.conf and reloads.
 */
export async function requirePassword(socketDir: string, port: number, clusterDir: string, owner: Owner | undefined, password: string, log: Logger): Promise<void> {
  const client = new pg.Client({ host: socketDir, port, user: SUPERUSER, database: 'postgres', password });
  await client.connect();
  try {
    // The statement text holds the password; it is not logged (log_statement is off) and goes over the socket only.
    await client.query(`SET password_encryption = 'scram-sha-256'`);
    await client.query(`ALTER ROLE ${SUPERUSER} PASSWORD ${client.escapeLiteral(password)}`);
    await writeHba(clusterDir, owner);
    await client.query('SELECT pg_reload_conf()');
  } finally {
    await client.end();
  }
  log.info({ passwordFile: PASSWORD_FILE }, 'embedded PostgreSQL: connections now need the password in DATA_DIR (the cluster trusted its socket before)');
}
