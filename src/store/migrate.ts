/**
 * Applies the SQL migrations in prisma/migrations at start-up and records them in
 * `_prisma_migrations` exactly as `prisma migrate deploy` would, so either tool can
 * take over a database the other has migrated. (Prisma's schema engine, which
 * `migrate deploy` needs, cannot be downloaded in every environment.)
 */
import { createHash, randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import type { Logger } from 'pino';
import type pg from 'pg';
import { APP_VERSION } from '../platform/version.js';
import { recordedVersion, recordVersion, refuseNewerData } from './dataVersion.js';
import { isRetryableConflict } from './statementRefusal.js';

export interface SqlQueryRunner {
  exec(text: string): Promise<void>;
  query(text: string, params?: readonly unknown[]): Promise<Record<string, unknown>[]>;
}

export interface SqlRunner extends SqlQueryRunner {
  /** Runs `fn` on one connection (needed for session-level advisory locks). */
  withLock<T>(fn: (conn: SqlQueryRunner) => Promise<T>): Promise<T>;
}

/** The runner over a pg pool: statements on any connection, `withLock` on one held for `fn`. */
export function poolRunner(pool: pg.Pool): SqlRunner {
  const on = (q: pg.Pool | pg.PoolClient): SqlQueryRunner => ({
    exec: async (text) => {
      await q.query(text);
    },
    query: async (text, params = []) => (await q.query(text, params as unknown[])).rows as Record<string, unknown>[],
  });
  return {
    ...on(pool),
    withLock: async (fn) => {
      const client = await pool.connect();
      try {
        return await fn(on(client));
      } finally {
        client.release();
      }
    },
  };
}

/** src/store or dist/store → the package root's prisma/migrations. */
export const MIGRATIONS_DIR = fileURLToPath(new URL('../../prisma/migrations/', import.meta.url));

/** The lock id Prisma Migrate itself takes, so the two never run concurrently. */
const MIGRATION_LOCK_ID = 72707369;

const CREATE_MIGRATIONS_TABLE = `
CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                  VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"            VARCHAR(64) NOT NULL,
    "finished_at"         TIMESTAMPTZ,
    "migration_name"      VARCHAR(255) NOT NULL,
    "logs"                TEXT,
    "rolled_back_at"      TIMESTAMPTZ,
    "started_at"          TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`;

export interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

export function listMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(path.join(dir, d.name, 'migration.sql')))
    .map((d) => d.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(path.join(dir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    });
}

export interface MigrateOptions {
  readonly dir?: string;
  /** The version opening the database (recorded, and checked against the one recorded). */
  readonly appVersion?: string;
  /** Apply only up to this migration (a restore recreates the schema its backup was taken from). */
  readonly upTo?: string;
}

/**
 * Refuses data a newer version migrated (store/dataVersion.ts), applies the missing
 * migrations, records the version. Returns the names of the migrations applied now.
 */
export async function applyMigrations(runner: SqlRunner, log: Logger, options: MigrateOptions = {}): Promise<string[]> {
  const appVersion = options.appVersion ?? APP_VERSION;
  const all = listMigrations(options.dir ?? MIGRATIONS_DIR);
  const migrations = options.upTo === undefined ? all : all.filter((m) => m.name <= options.upTo!);
  return runner.withLock(async (conn) => {
    await conn.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_ID]);
    try {
      await conn.exec(CREATE_MIGRATIONS_TABLE);
      const rows = await conn.query(
        'SELECT migration_name, checksum FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL',
      );
      const applied = new Map(rows.map((r) => [String(r.migration_name), String(r.checksum)]));
      const recorded = await recordedVersion(conn, new Set(applied.keys()));
      refuseNewerData(appVersion, recorded, [...applied.keys()], new Set(all.map((m) => m.name)));
      const done: string[] = [];
      for (const m of migrations) {
        const previous = applied.get(m.name);
        if (previous !== undefined) {
          if (previous !== m.checksum) log.warn({ migration: m.name }, 'migration was edited after it was applied');
          continue;
        }
        await applyOne(conn, m, log);
        log.info({ migration: m.name }, 'applied migration');
        done.push(m.name);
      }
      // A partial schema (a restore's first step) is not a version having opened the data.
      if (options.upTo === undefined) await recordVersion(conn, log, { appVersion, recorded, appliedBefore: [...applied.keys()], appliedNow: done });
      return done;
    } finally {
      await conn.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_ID]);
    }
  });
}

/** Attempts at one migration that PostgreSQL aborted for a deadlock before giving up. */
const MIGRATION_ATTEMPTS = 8;

/**
 * One migration in its own transaction, recorded as Prisma records it. A migration
 * altering a table takes its lock while an older replica still writes (a rolling
 * upgrade), and the two can deadlock; PostgreSQL then aborts one of them. When it is
 * the migration, the whole transaction was rolled back, so it is run again after a
 * short pause rather than failing the start.
 */
async function applyOne(conn: SqlQueryRunner, m: Migration, log: Logger): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const id = randomUUID();
    await conn.exec('BEGIN');
    try {
      await conn.query(
        'INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at) VALUES ($1, $2, $3, now())',
        [id, m.checksum, m.name],
      );
      await conn.exec(m.sql);
      await conn.query(
        'UPDATE "_prisma_migrations" SET finished_at = now(), applied_steps_count = 1 WHERE id = $1',
        [id],
      );
      await conn.exec('COMMIT');
      return;
    } catch (err) {
      await conn.exec('ROLLBACK');
      if (!isRetryableConflict(err) || attempt >= MIGRATION_ATTEMPTS) throw err;
      log.warn({ migration: m.name, attempt }, 'migration aborted by a deadlock with running writes; applying it again');
      await new Promise((resolve) => setTimeout(resolve, 50 * 2 ** attempt * (0.5 + Math.random())));
    }
  }
}
