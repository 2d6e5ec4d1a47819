/**
 * Holds the row locks of entities, as a writer of them would, on a connection of the
 * test's own: the server's statements that write them wait for it, each on one of the
 * server's pooled connections, until `release` (or the end of `work`). For suites that
 * need the server's work held at a known point: a job mid-run, a full pool.
 */
import { withClient } from './storedValues.js';

export interface EntityLock {
  /** The server's backends waiting for this lock. */
  blocked(): Promise<number[]>;
  /** Ends one of them, as a database that drops a connection would. */
  terminate(pid: number): Promise<void>;
  release(): Promise<void>;
}

export async function lockEntities<T>(databaseUrl: string, urns: string[], work: (lock: EntityLock) => Promise<T>): Promise<T> {
  return withClient(databaseUrl, async (holder) => {
    const pid = Number((await holder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid);
    await holder.query('BEGIN');
    const locked = (await holder.query('SELECT urn FROM entity WHERE urn = ANY($1) ORDER BY urn FOR UPDATE', [urns])).rowCount;
    if (locked !== urns.length) throw new Error(`locked ${locked} of ${urns.length} entities: some do not exist`);
    let released = false;
    const release = async () => {
      if (!released) await holder.query('ROLLBACK');
      released = true;
    };
    return withClient(databaseUrl, async (watcher) => {
      try {
        return await work({
          // Waiters queue behind the first one on a row: blocked by the holder or by one of them.
          blocked: async () =>
            (
              await watcher.query<{ pid: number }>(
                `WITH RECURSIVE waiter(pid) AS (
                   SELECT pid FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))
                   UNION SELECT a.pid FROM pg_stat_activity a JOIN waiter w ON w.pid = ANY(pg_blocking_pids(a.pid)))
                 SELECT pid FROM waiter ORDER BY pid`,
                [pid],
              )
            ).rows.map((r) => Number(r.pid)),
          terminate: async (victim) => {
            if (!(await watcher.query<{ ended: boolean }>('SELECT pg_terminate_backend($1) AS ended', [victim])).rows[0]!.ended) throw new Error(`backend ${victim} was not ended`);
          },
          release,
        });
      } finally {
        await release();
      }
    });
  });
}
