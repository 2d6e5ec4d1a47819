/**
 * Opens the database: the PostgreSQL at DATABASE_URL, or, when none is given, the
 * embedded one this server starts under its data directory (embedded/postgres.ts).
 * One driver path for both: a pg pool under Prisma's @prisma/adapter-pg, and the same
 * SQL migrations, applied at start-up.
 */
import { createHash } from 'node:crypto';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import type { Logger } from 'pino';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../embedded/postgres.js';
import { UnavailableError } from '../domain/errors.js';
import { PrismaClient } from './generated/prisma/client.js';
import { applyMigrations, type SqlRunner } from './migrate.js';
import { isConnectionError } from './connectionErrors.js';
import { observeStatement, rawQueryText } from './statementTelemetry.js';

export type Db = PrismaClient;
/** The client inside an interactive transaction. */
export type Tx = Parameters<Parameters<PrismaClient['$transaction']>[0]>[0];
/** What a read or a statement runs on: the client, or the transaction it is part of. */
export type Queryable = Db | Tx;

export interface Database {
  readonly prisma: PrismaClient;
  /** Whether this server runs the database itself (the default) or uses DATABASE_URL. */
  readonly kind: 'embedded' | 'external';
  /** Runs a plain SQL statement outside Prisma (health checks, dumps in tests). */
  readonly sql: SqlRunner;
  /** Reads on the driver itself, for the hottest paths (see DriverRead). */
  readonly read: DriverRead;
  /** Statements on the driver whose text varies (see DriverStatement). */
  readonly statement: DriverStatement;
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

/**
 * A read straight on the pg driver, for the few paths run on every search where
 * Prisma's own per-query work costs more than PostgreSQL answering (BENCHMARKS.md,
 * "Where the time goes"): a named statement, prepared once per connection; a lost
 * connection fails as UnavailableError, as every Prisma query does.
 */
export type DriverRead = (statement: { readonly name: string; readonly text: string }, params: readonly unknown[]) => Promise<Record<string, unknown>[]>;

/**
 * A statement straight on the pg driver, unnamed because its text varies with what it
 * writes: the write path's applying statement (store/writeApply.ts). Through Prisma's
 * raw-query layer, preparing that statement for a 1,000-entity batch held the event
 * loop for a long turn (BENCHMARKS.md, "Figures that explained code choices"). Errors
 * are the driver's own (`code` is PostgreSQL's SQLSTATE); a lost connection fails as
 * UnavailableError.
 */
export type DriverStatement = (text: string, values: readonly unknown[]) => Promise<Record<string, unknown>[]>;

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
  const pool = new pg.Pool({ connectionString: url, max: poolSize });
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
  const read: DriverRead = (statement, params) =>
    observeStatement('driver', statement.name, statement.text, async () => {
      try {
        return (await pool.query({ name: statement.name, text: statement.text, values: params as unknown[] })).rows;
      } catch (err) {
        if (isConnectionError(err)) throw new UnavailableError('The database is not reachable right now; retry later');
        throw err;
      }
    });
  const statement: DriverStatement = (text, values) =>
    observeStatement('driver', 'write', text, async () => {
      try {
        return (await pool.query(text, values as unknown[])).rows;
      } catch (err) {
        if (isConnectionError(err)) throw new UnavailableError('The database is not reachable right now; retry later');
        throw err;
      }
    });
  // Named statements are prepared once per connection and reused, so the planner does
  // not parse and plan the same write statements on every request.
  const prisma = unavailableWhenUnreachable(new PrismaClient({ adapter: new PrismaPg(pool, { statementNameGenerator: statementName }) }));
  await warmUp(prisma);
  return {
    prisma,
    kind,
    sql,
    read,
    statement,
    poolState: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    close: async () => {
      await prisma.$disconnect();
      await pool.end();
    },
  };
}

/**
 * Every query, not only those in a transaction (see transaction.ts), fails with
 * UnavailableError while PostgreSQL is unreachable (restarting, shutting down, the
 * network gone), so reads answer 503 rather than 500 during an outage. The pool
 * replaces broken connections by itself; nothing else is needed to recover. Each
 * query is timed (and traced) here too (statementTelemetry.ts).
 */
function unavailableWhenUnreachable(prisma: PrismaClient): PrismaClient {
  const extended = prisma.$extends({
    query: {
      $allOperations({ model, operation, args, query }) {
        const name = model ? `${model}.${operation}` : operation;
        return observeStatement('prisma', name, model ? undefined : rawQueryText(args), async () => {
          try {
            return await query(args);
          } catch (err) {
            if (isConnectionError(err)) throw new UnavailableError('The database is not reachable right now; retry later');
            throw err;
          }
        });
      },
    },
  });
  // The extension changes behaviour, not the client's shape.
  return extended as unknown as PrismaClient;
}

const statementNames = new Map<string, string>();

/** A stable name per SQL text (bounded: past 2,000 texts, new ones go unnamed). */
function statementName(query: { sql: string }): string {
  let name = statementNames.get(query.sql);
  if (name === undefined) {
    if (statementNames.size >= 2000) return '';
    name = `s${createHash('sha1').update(query.sql).digest('hex').slice(0, 16)}`;
    statementNames.set(query.sql, name);
  }
  return name;
}

/** Loads Prisma's query compiler now rather than on the first request. */
async function warmUp(prisma: PrismaClient): Promise<void> {
  await prisma.$queryRaw`SELECT 1`;
}
