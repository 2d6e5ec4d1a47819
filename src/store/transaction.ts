/**
 * Runs a unit of work in one database transaction, retrying when PostgreSQL aborts
 * it for a deadlock or serialization failure, and turning a lost connection into
 * UnavailableError (503) instead of an internal error. What is to happen after the
 * commit is the caller's to do once this returns: the unit of work returns it.
 */
import { UnavailableError } from '../domain/errors.js';
import { isConnectionError } from './connectionErrors.js';
import type { Db, Tx } from './database.js';
import { isRetryableConflict } from './statementRefusal.js';

export async function inTransaction<T>(db: Db, work: (tx: Tx) => Promise<T>, attempts = 4): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      // maxWait is generous: under load, transactions queue for a pooled connection.
      return await db.$transaction(work, { maxWait: 60_000, timeout: 120_000 });
    } catch (err) {
      if (attempt < attempts && isRetryableConflict(err)) continue;
      if (isConnectionError(err)) throw new UnavailableError('The database is not reachable right now; retry later');
      throw err;
    }
  }
}
