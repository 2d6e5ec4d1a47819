/**
 * Opens the database: the PostgreSQL at DATABASE_URL, or, when none is given, the
 * embedded one this server starts under its data directory (embedded/postgres.ts).
 * One driver path for both: a pg pool (driver.ts) that runs every statement, and the
 * same SQL migrations, applied at start-up.
 */
import type { Writable } from 'node:stream';
import pg from 'pg';
import type { Logger } from 'pino';
import type { BackupHeader, BackupManifest } from '../domain/backupFormat.js';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../embedded/postgres.js';
import { beginDump } from './backup/dump.js';
import { databaseUnreachable, isSessionEnded } from './connectionErrors.js';
import { PooledDb, poolConfig, type Db } from './driver.js';
import { applyMigrations, poolRunner, type SqlRunner } from './migrate.js';

export type { Db, Queryable, Tx } from './driver.js';

export interface Database {
  /** Every statement of the service runs on this. */
  readonly db: Db;
  /** Whether this server runs the database itself (the default) or uses DATABASE_URL. */
  readonly kind: 'embedded' | 'external';
  /** Plain SQL text on the same pool (the migrations; checks and dumps in tests). */
  readonly sql: SqlRunner;
  /** Starts a consistent snapshot for a backup (store/backup/dump.ts). */
  readonly openSnapshot: SnapshotOpener;
  /** The connection pool's state now, for /metrics. */
  poolState(): PoolState;
  close(): Promise<void>;
}

/** A snapshot begun on a connection of its own: the header now, the rows when written (which releases the connection). */
export interface Snapshot {
  readonly header: BackupHeader;
  write(out: Writable): Promise<BackupManifest>;
}

export type SnapshotOpener = (appVersion: string) => Promise<Snapshot>;

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
  const sql = poolRunner(pool);
  try {
    await applyMigrations(sql, log);
  } catch (err) {
    await pool.end();
    throw err;
  }
  const openSnapshot: SnapshotOpener = async (appVersion) => {
    let client: pg.PoolClient;
    try {
      client = await pool.connect();
    } catch {
      throw databaseUnreachable();
    }
    try {
      const dump = await beginDump(client, appVersion);
      return {
        header: dump.header,
        write: async (out) => {
          let manifest: BackupManifest;
          try {
            manifest = await dump.write(out);
          } catch (err) {
            // Mid-COPY (the client went away): the connection is discarded, never pooled again, so it cannot leak.
            client.release(err instanceof Error ? err : true);
            throw err;
          }
          client.release();
          return manifest;
        },
      };
    } catch (err) {
      client.release();
      if (isSessionEnded(err)) throw databaseUnreachable();
      throw err;
    }
  };
  return {
    db: new PooledDb(pool),
    kind,
    sql,
    openSnapshot,
    poolState: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    close: () => pool.end(),
  };
}
