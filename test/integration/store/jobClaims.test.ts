/**
 * Jobs in a rolling upgrade (migration job_claims_by_kind): a release before 0.2.0 claims
 * every runnable job, whatever its kind, and fails those it cannot run. The database
 * skips such a claim, so the job waits, untouched, for a worker of this release; the
 * kinds the old release runs stay its to claim.
 */
import { randomUUID } from 'node:crypto';
import { claimJob } from '../../../src/store/jobs.js';
import { postgresAvailableForTests } from '../../support/server.js';
import { openStoreDatabase, type StoreDatabase } from '../../support/storeDatabase.js';

/** The claim of release 0.1.0 (its store/jobs.ts), word for word but for the parameters. */
const RELEASE_CLAIM = `
  UPDATE job SET status = 'running', locked_by = $1,
                 locked_until = now() + make_interval(secs => 15), attempts = attempts + 1
  WHERE id = (
    SELECT id FROM job
    WHERE (status = 'pending' AND run_after <= now()) OR (status = 'running' AND locked_until < now())
    ORDER BY id
    FOR UPDATE SKIP LOCKED
    LIMIT 1
  )
  RETURNING id::text, kind`;

(postgresAvailableForTests() ? describe : describe.skip)('jobs claimed by an older release during a rolling upgrade', () => {
  let s: StoreDatabase;

  beforeAll(async () => {
    s = await openStoreDatabase('store_job_claims');
  }, 60_000);

  afterAll(async () => {
    await s?.close();
  });

  // Runnable already: run_after keeps milliseconds and its default rounds the insert's time
  // to the nearest one, so a claim in the next half millisecond could find it not yet due
  // (seen once: an old release's claim of a cleanup job came back empty).
  const enqueue = async (kind: string) =>
    (await s.query<{ id: string }>(`INSERT INTO job (kind, payload, run_after) VALUES ($1, '{}'::jsonb, now() - interval '1 second') RETURNING id::text AS id`, [kind]))[0]!.id;
  const row = async (id: string) => (await s.query(`SELECT status, attempts, locked_by FROM job WHERE id = $1`, [id]))[0];

  test("the old release's claim of a kind it cannot run is skipped, the job left as it was; this release's worker takes it", async () => {
    const build = await enqueue('search-index-build');
    expect(await s.query(RELEASE_CLAIM, [`worker-${randomUUID()}`])).toEqual([]);
    expect(await row(build)).toEqual({ status: 'pending', attempts: 0, locked_by: null });

    const claimed = await claimJob(s.db, `worker:${randomUUID()}`, 15, { kinds: ['search-index-build'], format: 'f' });
    expect(claimed?.id).toBe(BigInt(build));
    await s.query(`DELETE FROM job`);
  });

  test('the kinds the old release runs are still its to claim, and an expired lease of this release may pass to it', async () => {
    const cleanup = await enqueue('cleanup-property-values');
    const old = `worker-${randomUUID()}`;
    expect(await s.query(RELEASE_CLAIM, [old])).toEqual([{ id: cleanup, kind: 'cleanup-property-values' }]);
    expect(await row(cleanup)).toMatchObject({ status: 'running', attempts: 1, locked_by: old });
    await s.query(`DELETE FROM job`);

    const reindex = await enqueue('reindex');
    await s.query(`UPDATE job SET status = 'running', locked_by = 'worker:gone', locked_until = now() - interval '1 second' WHERE id = $1`, [reindex]);
    expect(await s.query(RELEASE_CLAIM, [old])).toEqual([{ id: reindex, kind: 'reindex' }]);
    await s.query(`DELETE FROM job`);
  });
});
