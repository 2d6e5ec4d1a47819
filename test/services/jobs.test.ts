/**
 * Jobs at the service (docs/contract.md §5): a hard delete queues a durable cleanup job
 * whose progress (how many entities remain) is observable until it is done; jobs are
 * listed newest first and filtered. The job worker is started by the test, so that the
 * queued state can be seen first. In process, on a real PostgreSQL.
 */
import { NotFoundError, ValidationError } from '../../src/domain/errors.js';
import { createLogger } from '../../src/logger.js';
import { CLEANUP_PROPERTY_VALUES } from '../../src/services/jobs/kinds.js';
import { JobWorker } from '../../src/services/jobs/worker.js';
import { sql } from '../../src/store/sql.js';
import { ADMIN, READER, startTestRuntime, type TestRuntime } from '../support/runtime.js';
import { datasetUrn, jobsSettled, propertyUrn, rejection, serviceCatalog, type ServiceCatalog } from '../support/serviceCatalog.js';
import { waitFor } from '../support/waitFor.js';
import { nonEmpty } from '../support/nonEmpty.js';

let runtime: TestRuntime;
let catalog: ServiceCatalog;
const HELD = 'io.svc.jobs.held';
const OTHER = 'io.svc.jobs.other';
const DATASETS = Array.from({ length: 25 }, (_, i) => datasetUrn(`jobs.d${i}`));

beforeAll(async () => {
  runtime = await startTestRuntime({ env: { BACKGROUND_WORKERS: 'false' } });
  catalog = serviceCatalog(runtime);
  await catalog.define(HELD);
  await catalog.define(OTHER);
  await catalog.createDatasets(DATASETS);
  for (const d of DATASETS) await catalog.setValues(d, { [HELD]: ['x'] });
});
afterAll(async () => {
  await runtime?.stop();
});

const jobs = () => runtime.services.jobs;

test('a hard delete queues a cleanup job for the property: pending, nothing done yet, remaining unknown', async () => {
  await runtime.services.properties.delete(ADMIN, propertyUrn(HELD));
  const [job] = await jobs().list(READER, { propertyUrn: propertyUrn(HELD) });
  expect(job).toMatchObject({ kind: CLEANUP_PROPERTY_VALUES, status: 'pending', attempts: 0, done: 0, remaining: null, finishedOn: null, payload: { propertyUrn: propertyUrn(HELD) } });
  expect(await jobs().get(READER, job!.id)).toEqual(job);
});

test('the worker runs it to the end: every holder counted, none remaining, the values gone', async () => {
  runtime.worker.start();
  await jobsSettled(runtime);
  const [job] = await jobs().list(READER, { propertyUrn: propertyUrn(HELD) });
  expect(job).toMatchObject({ status: 'done', attempts: 1, total: DATASETS.length, done: DATASETS.length, remaining: 0, lastError: null });
  expect(Date.parse(job!.finishedOn!)).toBeGreaterThanOrEqual(Date.parse(job!.createdOn));
  for (const d of nonEmpty(DATASETS.slice(0, 3))) expect(await catalog.valuesOf(d)).toEqual([]);
});

test('listing filters by status, kind and property, newest first, and pages by count', async () => {
  await runtime.services.properties.delete(ADMIN, propertyUrn(OTHER));
  await jobsSettled(runtime);
  const all = await jobs().list(READER, {});
  expect(all.map((j) => j.payload.propertyUrn)).toEqual([propertyUrn(OTHER), propertyUrn(HELD)]);
  expect(Number(all[0]!.id)).toBeGreaterThan(Number(all[1]!.id));
  expect(await jobs().list(READER, { status: 'done', kind: CLEANUP_PROPERTY_VALUES, propertyUrn: propertyUrn(OTHER) })).toEqual([all[0]]);
  expect(await jobs().list(READER, { status: 'failed' })).toEqual([]);
  expect(await jobs().list(READER, { count: 1 })).toEqual([all[0]]);
});

test('a bad status or count is a ValidationError naming it; an unknown or malformed job id a NotFoundError', async () => {
  expect((await rejection(jobs().list(READER, { status: 'sleeping' }), ValidationError)).field).toBe('status');
  expect((await rejection(jobs().list(READER, { count: -1 }), ValidationError)).field).toBe('count');
  await rejection(jobs().get(READER, '999999'), NotFoundError);
  await rejection(jobs().get(READER, 'abc'), NotFoundError);
});

test('a job queued with a delay starts when it is due, not at the next poll', async () => {
  // A poll longer than the test's wait: only the worker's wake at the due time can run it.
  const worker = new JobWorker({ db: runtime.database.db, log: createLogger('silent'), writes: runtime.services.writes, pollMs: 600_000, format: 'test' });
  const ran: bigint[] = [];
  worker.register('test-delayed', async ({ job }) => {
    ran.push(job.id);
    return 'done';
  });
  worker.start();
  try {
    const [queued] = await runtime.database.db.query<{ id: bigint }>(sql`INSERT INTO job (kind, payload, run_after) VALUES ('test-delayed', '{}'::jsonb, now() + interval '1 second') RETURNING id`);
    // As a service that queues a job does: the worker looks, finds it not yet due, and sleeps.
    worker.nudge();
    await waitFor('the delayed job to run', 30_000, async () => (ran.length > 0 ? true : undefined), 50);
    expect(ran).toEqual([queued!.id]);
  } finally {
    await worker.stop();
  }
});
