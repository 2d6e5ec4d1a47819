/**
 * Runs a unit of work in one database transaction (driver.ts: BEGIN, COMMIT or
 * ROLLBACK on one pooled connection; a lost connection is UnavailableError there),
 * retrying when PostgreSQL aborts it for a deadlock or serialization failure, told by
 * its SQLSTATE. What is to happen after the commit is the caller's to do once this
 * returns: the unit of work returns it.
 */
import type { Db, Tx } from './database.js';
import { isRetryableConflict } from './statementRefusal.js';

export async function inTransaction<T>(db: Db, work: (tx: Tx) => Promise<T>, attempts = 4): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction(work);
    } catch (err) {
      if (attempt < attempts && isRetryableConflict(err)) continue;
      throw err;
    }
  }
}
