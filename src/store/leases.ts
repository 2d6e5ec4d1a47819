/**
 * Named leases for singleton loops (the search indexer): the holder renews before
 * expiry; when a replica dies, another takes over once the lease lapses. It needs no
 * session state, so it survives pooled connections being replaced.
 */
import type { Db } from './database.js';
import type { WorkerLeaseModel } from './generated/prisma/models.js';
import { sql } from './sql.js';

/** Takes or renews the lease; true when `holder` holds it afterwards. */
export async function acquireLease(db: Db, name: string, holder: string, ttlSeconds: number): Promise<boolean> {
  const rows = await db.query<Pick<WorkerLeaseModel, 'holder'>>(sql`
    INSERT INTO worker_lease (name, holder, expires_at) VALUES (${name}, ${holder}, now() + make_interval(secs => ${ttlSeconds}))
    ON CONFLICT (name) DO UPDATE SET holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at
      WHERE worker_lease.holder = EXCLUDED.holder OR worker_lease.expires_at < now()
    RETURNING holder`);
  return rows[0]?.holder === holder;
}

export async function releaseLease(db: Db, name: string, holder: string): Promise<void> {
  await db.execute(sql`DELETE FROM worker_lease WHERE name = ${name} AND holder = ${holder}`);
}
