/**
 * The job queue's statements on a real PostgreSQL (issue #43 item 4, issue #46 items 3
 * and 6): one way to queue (joining a waiting job of the same key, within the asker's
 * quota), one way to record progress (only while the lease is held: a worker that lost
 * its job cannot move the new holder's cursor), the claim's order (cleanups before
 * evaluations) and a running job told when an earlier-ranked one is due, listings that
 * never carry a payload, and pruning after the retention.
 */
import { randomUUID } from 'node:crypto';
import { BULK_EDIT_VALUES, CLEANUP_PROPERTY_VALUES, EVALUATE_TESTS, SEARCH_INDEX_BUILD } from '../../../src/domain/jobKinds.js';
import { QuotaExceededError } from '../../../src/domain/errors.js';
import { claimJob, enqueueJob, getJob, listJobs, pruneJobs, recordProgress, type JobRequest, type WorkerRuns } from '../../../src/store/jobs.js';
import { inTransaction } from '../../../src/store/transaction.js';
import { postgresAvailableForTests } from '../../support/server.js';
import { openStoreDatabase, type StoreDatabase } from '../../support/storeDatabase.js';

const RUNS: WorkerRuns = { kinds: [CLEANUP_PROPERTY_VALUES, SEARCH_INDEX_BUILD, BULK_EDIT_VALUES, EVALUATE_TESTS], format: 'f' };
const worker = () => `worker:${randomUUID()}`;

(postgresAvailableForTests() ? describe : describe.skip)('the job queue', () => {
  let s: StoreDatabase;
  const enqueue = (request: JobRequest) => inTransaction(s.db, (tx) => enqueueJob(tx, request));
  /** Due a second ago: run_after's default rounds to the millisecond, so a claim at once could find a job not yet due. */
  const due = async () => s.query(`UPDATE job SET run_after = now() - interval '1 second' WHERE status = 'pending'`);

  beforeAll(async () => {
    s = await openStoreDatabase('store_job_queue');
  }, 60_000);

  afterEach(async () => {
    await s.query('DELETE FROM job');
  });

  afterAll(async () => {
    await s?.close();
  });

  test('a cleanup queued after a thousand evaluations is claimed first, and the running evaluation hears of it', async () => {
    for (let i = 0; i < 1000; i++) await enqueue({ kind: EVALUATE_TESTS, payload: { i } });
    const bulk = await enqueue({ kind: BULK_EDIT_VALUES, payload: {} });
    await due();
    const w = worker();
    const evaluation = await claimJob(s.db, w, 15, { ...RUNS, kinds: [EVALUATE_TESTS] });
    expect(evaluation?.kind).toBe(EVALUATE_TESTS);
    // The bulk edit outranks the evaluation running.
    expect(await recordProgress(s.db, evaluation!.id, w, 15, { done: 1 }, RUNS)).toEqual({ held: true, outranked: true });
    const cleanup = await enqueue({ kind: CLEANUP_PROPERTY_VALUES, payload: { propertyUrn: 'urn:li:structuredProperty:p' } });
    await due();
    expect((await claimJob(s.db, worker(), 15, RUNS))?.id).toBe(cleanup.id);
    expect((await claimJob(s.db, worker(), 15, RUNS))?.id).toBe(bulk.id);
    // A job of a kind this worker does not run does not make its job yield.
    expect(await recordProgress(s.db, evaluation!.id, w, 15, { done: 2 }, { ...RUNS, kinds: [EVALUATE_TESTS] })).toEqual({ held: true, outranked: false });
  });

  test('progress is recorded only by the lease holder: a worker whose lease passed on moves nothing, cursor included', async () => {
    const { id } = await enqueue({ kind: EVALUATE_TESTS, payload: { trigger: 'run' } });
    await due();
    const first = worker();
    await claimJob(s.db, first, 15, RUNS);
    expect((await recordProgress(s.db, id, first, 15, { total: 10, done: 3, cursor: { after: 'a' }, result: { n: 3 } }, RUNS)).held).toBe(true);
    // Its lease lapses and a second worker takes the job over.
    await s.query(`UPDATE job SET locked_until = now() - interval '1 second' WHERE id = $1`, [String(id)]);
    const second = worker();
    expect((await claimJob(s.db, second, 15, RUNS))?.id).toBe(id);
    expect(await recordProgress(s.db, id, first, 15, { done: 9, cursor: { after: 'z' }, result: { n: 9 } }, RUNS)).toEqual({ held: false, outranked: false });
    expect(await getJob(s.db, id)).toMatchObject({ total: 10, done: 3, cursor: { after: 'a' }, result: { n: 3 } });
  });

  test('the same request joins the job still waiting; a merge folds into it; a started job is not joined', async () => {
    const key = 'evaluate-tests:changed';
    const merge = (tests: string[]) => (waiting: Record<string, unknown>) => ({ ...waiting, tests: [...new Set([...(waiting.tests as string[]), ...tests])].sort() });
    const a = await enqueue({ kind: EVALUATE_TESTS, payload: { tests: ['t1'] }, coalesce: { key, joins: 'waiting', merge: merge(['t1']) } });
    const b = await enqueue({ kind: EVALUATE_TESTS, payload: { tests: ['t2'] }, coalesce: { key, joins: 'waiting', merge: merge(['t2']) } });
    expect(b).toEqual({ id: a.id, created: false });
    expect((await getJob(s.db, a.id))?.payload).toEqual({ tests: ['t1', 't2'] });
    await due();
    await claimJob(s.db, worker(), 15, RUNS);
    const c = await enqueue({ kind: EVALUATE_TESTS, payload: { tests: ['t3'] }, coalesce: { key, joins: 'waiting', merge: merge(['t3']) } });
    expect(c.created).toBe(true);
    // 'unfinished' joins a running job too (one index build per format).
    const build = { kind: SEARCH_INDEX_BUILD, payload: { format: 'f' }, coalesce: { key: 'search-index-build:f', joins: 'unfinished' as const } };
    const first = await enqueue(build);
    await due();
    await claimJob(s.db, worker(), 15, { ...RUNS, kinds: [SEARCH_INDEX_BUILD] });
    expect(await enqueue(build)).toEqual({ id: first.id, created: false });
  });

  test("an owner's unfinished jobs are capped by the quota, with a 429 naming them; a job that ends makes room", async () => {
    const owner = 'urn:li:corpuser:looper';
    const ask = () => enqueue({ kind: EVALUATE_TESTS, payload: {}, owner, quota: 3 });
    const ids = [await ask(), await ask(), await ask()].map((j) => j.id);
    await expect(ask()).rejects.toThrow(QuotaExceededError);
    await expect(ask()).rejects.toThrow(/has 3 jobs queued or running, as many as one principal may \(3\)/);
    // Someone else, and propgraph itself, are not held back.
    expect((await enqueue({ kind: EVALUATE_TESTS, payload: {}, owner: 'urn:li:corpuser:other', quota: 3 })).created).toBe(true);
    expect((await enqueue({ kind: CLEANUP_PROPERTY_VALUES, payload: {} })).created).toBe(true);
    await s.query(`UPDATE job SET status = 'done', finished_on = now() WHERE id = $1`, [String(ids[0])]);
    expect((await ask()).created).toBe(true);
  });

  test('a listing carries the property, owner and counts, never the payload or the result; ten 1 MB payloads list in a few hundred bytes each', async () => {
    const values = Array.from({ length: 100 }, () => ({ string: 'x'.repeat(10_000) }));
    for (let i = 0; i < 10; i++) {
      const { id } = await enqueue({ kind: BULK_EDIT_VALUES, payload: { propertyUrn: 'urn:li:structuredProperty:big', values }, owner: 'urn:li:corpuser:w' });
      await s.query(`UPDATE job SET result = $2::jsonb WHERE id = $1`, [String(id), JSON.stringify({ changed: 5, refusedCount: 1, refused: [{ urn: 'u', reason: 'r'.repeat(1000) }] })]);
    }
    const listed = await listJobs(s.db, { limit: 10 });
    expect(listed).toHaveLength(10);
    expect(listed[0]).toMatchObject({ kind: BULK_EDIT_VALUES, propertyUrn: 'urn:li:structuredProperty:big', owner: 'urn:li:corpuser:w', counts: { changed: 5, refusedCount: 1 } });
    expect(Object.keys(listed[0]!)).not.toContain('payload');
    expect(Object.keys(listed[0]!)).not.toContain('result');
    expect(JSON.stringify(listed, (_k, v) => (typeof v === 'bigint' ? String(v) : v)).length).toBeLessThan(10 * 600);
  });

  test('jobs that ended before the retention are deleted; pending, running and recent ones stay', async () => {
    const old = await enqueue({ kind: EVALUATE_TESTS, payload: {} });
    const oldFailed = await enqueue({ kind: EVALUATE_TESTS, payload: {} });
    const recent = await enqueue({ kind: EVALUATE_TESTS, payload: {} });
    const pending = await enqueue({ kind: EVALUATE_TESTS, payload: {} });
    await s.query(`UPDATE job SET status = 'done', finished_on = now() - interval '8 days' WHERE id = $1`, [String(old.id)]);
    await s.query(`UPDATE job SET status = 'failed', finished_on = now() - interval '8 days' WHERE id = $1`, [String(oldFailed.id)]);
    await s.query(`UPDATE job SET status = 'done', finished_on = now() - interval '1 day' WHERE id = $1`, [String(recent.id)]);
    expect(await pruneJobs(s.db, 7 * 86_400, 1000)).toBe(2);
    expect((await listJobs(s.db, { limit: 10 })).map((j) => j.id).sort()).toEqual([recent.id, pending.id].sort());
  });
});
