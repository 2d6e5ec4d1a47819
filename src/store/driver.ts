/**
 * Every statement of the service runs here, on the pg driver: one pool, statements
 * prepared once per connection under a name derived from their text, transactions on
 * one pooled client (BEGIN, COMMIT or ROLLBACK), and a lost connection turned into
 * UnavailableError (503) at this one place; each statement timed and traced
 * (statementTelemetry.ts). Row types are the callers': the generated Prisma model
 * types (import type only) where a row is a table's columns.
 */
import { createHash } from 'node:crypto';
import pg from 'pg';
import { databaseUnreachable, isSessionEnded } from './connectionErrors.js';
import type { Statement } from './sql.js';
import { observeStatement } from './statementTelemetry.js';

/** What a read or a statement runs on: the pool, or the transaction it is part of. */
export interface Queryable {
  /** The rows the statement returns. */
  query<R>(statement: Statement): Promise<R[]>;
  /** How many rows the statement changed. */
  execute(statement: Statement): Promise<number>;
}

/** The pool: each statement on a connection of its own. */
export interface Db extends Queryable {
  readonly kind: 'pool';
  /** Runs `work` in one transaction: committed when it returns, rolled back when it throws. */
  transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T>;
}

/** A transaction's connection (see Db.transaction). */
export interface Tx extends Queryable {
  readonly kind: 'transaction';
}

const INT8 = 20;
const INT8_ARRAY = 1016;

/**
 * int8 (bigint: versions, ids, generations) as BigInt, as the Prisma model types say;
 * everything else as pg parses it by default.
 */
const TYPES = {
  getTypeParser(oid: number, format?: 'text' | 'binary'): (value: string) => unknown {
    if (oid === INT8) return (value: string) => BigInt(value);
    if (oid === INT8_ARRAY) {
      const parseArray = builtinParser(INT8_ARRAY, 'text') as (value: string) => Array<string | null>;
      return (value: string) => parseArray(value).map((v) => (v === null ? null : BigInt(v)));
    }
    return builtinParser(oid, format ?? 'text');
  },
};

/** pg's own parser for a type (its typings list only some type ids). */
const builtinParser = pg.types.getTypeParser as (oid: number, format: 'text' | 'binary') => (value: string) => unknown;

/** The pool's options: int8 as BigInt; waiting at most a minute for a free connection under load. */
export function poolConfig(url: string, max: number): pg.PoolConfig {
  return { connectionString: url, max, types: TYPES, connectionTimeoutMillis: 60_000 };
}

const statementNames = new Map<string, string>();
const MAX_STATEMENT_NAMES = 2000;

/** A stable name per SQL text (bounded: past 2,000 texts, new ones go unprepared). */
function nameOf(statement: Statement): string | undefined {
  if (statement.name !== undefined) return statement.name ?? undefined;
  let name = statementNames.get(statement.text);
  if (name === undefined) {
    if (statementNames.size >= MAX_STATEMENT_NAMES) return undefined;
    name = `s${createHash('sha1').update(statement.text).digest('hex').slice(0, 16)}`;
    statementNames.set(statement.text, name);
  }
  return name;
}

/**
 * A client checked out of the pool. It listens for the client's 'error' event while it
 * holds it (pg emits one when the socket fails or closes, before the statement in
 * flight is failed), so a statement failing after that is a lost connection, and the
 * client is destroyed rather than returned to the pool.
 */
class Connection {
  private lost: unknown = null;
  private readonly onError = (err: Error) => {
    this.lost ??= err;
  };

  constructor(private readonly client: pg.PoolClient) {
    client.on('error', this.onError);
  }

  async run(statement: Statement): Promise<pg.QueryResult> {
    const name = nameOf(statement);
    try {
      return await this.client.query({ text: statement.text, values: statement.values as unknown[], ...(name ? { name } : {}) });
    } catch (err) {
      if (this.lost === null && !isSessionEnded(err)) throw err;
      this.lost ??= err;
      throw databaseUnreachable();
    }
  }

  /** Whether the connection was lost while held. */
  get broken(): boolean {
    return this.lost !== null;
  }

  release(): void {
    this.client.removeListener('error', this.onError);
    this.client.release(this.lost === null ? undefined : (this.lost as Error));
  }
}

async function connect(pool: pg.Pool): Promise<Connection> {
  try {
    return new Connection(await pool.connect());
  } catch {
    // No connection could be made: refused, the socket missing while PostgreSQL
    // restarts, PostgreSQL starting up or shutting down, the pool closed, no free
    // connection within the minute.
    throw databaseUnreachable();
  }
}

class TransactionConnection implements Tx {
  readonly kind = 'transaction';

  constructor(private readonly connection: Connection) {}

  async query<R>(statement: Statement): Promise<R[]> {
    return (await observed(this.connection, statement)).rows as R[];
  }

  async execute(statement: Statement): Promise<number> {
    return (await observed(this.connection, statement)).rowCount ?? 0;
  }
}

function observed(connection: Connection, statement: Statement): Promise<pg.QueryResult> {
  return observeStatement(statement, () => connection.run(statement));
}

const BEGIN: Statement = { text: 'BEGIN', values: [], name: null };
const COMMIT: Statement = { text: 'COMMIT', values: [], name: null };
const ROLLBACK: Statement = { text: 'ROLLBACK', values: [], name: null };

export class PooledDb implements Db {
  readonly kind = 'pool';

  constructor(private readonly pool: pg.Pool) {}

  async query<R>(statement: Statement): Promise<R[]> {
    return (await observeStatement(statement, () => this.onConnection((c) => c.run(statement)))).rows as R[];
  }

  async execute(statement: Statement): Promise<number> {
    return (await observeStatement(statement, () => this.onConnection((c) => c.run(statement)))).rowCount ?? 0;
  }

  transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    return this.onConnection(async (connection) => {
      await observed(connection, BEGIN);
      let result: T;
      try {
        result = await work(new TransactionConnection(connection));
      } catch (err) {
        // A broken connection has lost the transaction with it; PostgreSQL rolls it back.
        if (!connection.broken) await observed(connection, ROLLBACK);
        throw err;
      }
      await observed(connection, COMMIT);
      return result;
    });
  }

  private async onConnection<T>(fn: (connection: Connection) => Promise<T>): Promise<T> {
    const connection = await connect(this.pool);
    try {
      return await fn(connection);
    } finally {
      connection.release();
    }
  }
}
