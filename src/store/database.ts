/**
 * Opens the database: the PostgreSQL at DATABASE_URL, or, when none is given, the
 * embedded one this server starts under its data directory (embedded/postgres.ts).
 * One driver path for both: a pg pool (driver.ts) that runs every statement, and the
 * same SQL migrations, applied at start-up.
 */
import pg from 'pg';
import type { Logger } from 'pino';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../embedded/postgres.js';
import { PooledDb, poolConfig, type Db } from './driver.js';
import { applyMigrations, type SqlRunner } from './migrate.js';

export type { Db, Queryable, Tx } from './driver.js';

export interface Database {
  /** Every statement of the service runs on this. */
  readonly db: Db;
  /** Whether this server runs the database itself (the default) or uses DATABASE_URL. */
  readonly kind: 'embedded' | 'external';
  /** Plain SQL text on the same pool (the migrations; checks and dumps in tests). */
  readonly sql: SqlRunner;
  /** The connection pool's state now, for /metrics. */
  poolState(): PoolState;
  close(): Promise<void>;
}

export interface PoolState {
  /** Connections open. */
  readonly total: number;
  readonly idle: number;
  /** Queries waiting for a connection. */
  readonly waiting: number;
}

export interface DatabaseOptions {
  databaseUrl?: string | undefined;
  dataDir: string;
  /** EMBEDDED_POSTGRES_BIN_DIR. */
  embeddedBinDir?: string | undefined;
  poolSize?: number;
  log: Logger;
  /** The embedded PostgreSQL when it was started already (embedded/earlyStart.ts). */
  embedded?: Promise<EmbeddedPostgres> | null | undefined;
}

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  if (options.databaseUrl) return openPostgres(options.databaseUrl, options.poolSize ?? 20, options.log, 'external');
  const embedded = await (options.embedded ?? startEmbeddedPostgres({ dataDir: options.dataDir, log: options.log, binDir: options.embeddedBinDir }));
  try {
    const database = await openPostgres(embedded.url, options.poolSize ?? 20, options.log, 'embedded');
    await embedded.durable.catch(async (err: unknown) => {
      await database.close();
      throw err;
    });
    return {
      ...database,
      close: async () => {
        await database.close();
        await embedded.stop();
      },
    };
  } catch (err) {
    await embedded.stop();
    throw err;
  }
}

async function openPostgres(url: string, poolSize: number, log: Logger, kind: Database['kind']): Promise<Database> {
  const pool = new pg.Pool(poolConfig(url, poolSize));
  // An idle client losing its connection (server restart) must not crash the process.
  pool.on('error', (err) => log.warn({ err: err.message }, 'postgres pool client error'));
  const sql: SqlRunner = {
    exec: async (text) => {
      await pool.query(text);
    },
    query: async (text, params = []) => (await pool.query(text, params as unknown[])).rows,
    withLock: async (fn) => {
      const client = await pool.connect();
      try {
        return await fn({
          exec: async (text) => {
            await client.query(text);
          },
          query: async (text, params = []) => (await client.query(text, params as unknown[])).rows,
        });
      } finally {
        client.release();
      }
    },
  };
  try {
    await applyMigrations(sql, log);
  } catch (err) {
    await pool.end();
    throw err;
  }
  return {
    db: new PooledDb(pool),
    kind,
    sql,
    poolState: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    close: () => pool.end(),
  };
}
