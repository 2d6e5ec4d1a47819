/**
 * Runs a unit of work in one database transaction, retrying when PostgreSQL aborts
 * it for a deadlock or serialization failure, turning a lost connection into
 * UnavailableError (503) instead of an internal error, and running hooks after commit.
 */
import { UnavailableError } from '../domain/errors.js';
import { isConnectionError } from './connectionErrors.js';
import type { Db, Tx } from './database.js';
import { isRetryableConflict } from './statementRefusal.js';

type CommitHook = (db: Db) => void;

/** Hooks of the transactions inTransaction has open, run once each commits. */
const commitHooks = new WeakMap<Tx, CommitHook[]>();

/**
 * Runs `hook` after `tx` commits (never when it rolls back), before inTransaction
 * returns, so it happens before any response that reports the commit. `tx` must be a
 * transaction opened by inTransaction: anything else is a programming error, refused
 * loudly rather than left to skip the hook.
 */
export function afterCommit(tx: Tx, hook: CommitHook): void {
  const hooks = commitHooks.get(tx);
  if (!hooks) throw new Error('afterCommit needs a transaction opened by inTransaction');
  hooks.push(hook);
}

export async function inTransaction<T>(db: Db, work: (tx: Tx) => Promise<T>, attempts = 4): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    let hooks: CommitHook[] = [];
    try {
      // maxWait is generous: under load, transactions queue for a pooled connection.
      const result = await db.$transaction(
        (tx) => {
          hooks = [];
          commitHooks.set(tx, hooks);
          return work(tx);
        },
        { maxWait: 60_000, timeout: 120_000 },
      );
      for (const hook of hooks) hook(db);
      return result;
    } catch (err) {
      if (attempt < attempts && isRetryableConflict(err)) continue;
      if (isConnectionError(err)) throw new UnavailableError('The database is not reachable right now; retry later');
      throw err;
    }
  }
}
