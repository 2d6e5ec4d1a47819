/**
 * Jobs at the service (docs/contract.md §5): a hard delete queues a durable cleanup job
 * whose progress (how many entities remain) is observable until it is done; jobs are
 * listed newest first and filtered. The job worker is started by the test, so that the
 * queued state can be seen first. In process, on a real PostgreSQL.
 */
import { NotFoundError, QuotaExceededError, ValidationError } from '../../src/domain/errors.js';
import { EVALUATE_TESTS, SEARCH_INDEX_BUILD } from '../../src/domain/jobKinds.js';
import { LIMITS } from '../../src/domain/limits.js';
import { createLogger } from '../../src/platform/logger.js';
import { CLEANUP_PROPERTY_VALUES } from '../../src/services/jobs/kinds.js';
import { cleanupBatch, cleanupHandler } from '../../src/services/jobs/cleanupPropertyValues.js';
import { JobWorker } from '../../src/services/jobs/worker.js';
import type { WriteService } from '../../src/services/writes/writeService.js';
import { NO_WAIT } from '../../src/services/indexWaiter.js';
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

test('a test run asked for again while it waits is that run; distinct runs count against the asker, 429 beyond the quota (issue #46 item 6)', async () => {
  const tests = [];
  for (let i = 0; i < LIMITS.unfinishedJobsPerPrincipal; i++) {
    const definition = { json: JSON.stringify({ on: { types: ['dataset'] }, rules: [{ property: 'urn', operator: 'exists' }] }) };
    tests.push((await runtime.services.tests.createTest(ADMIN, { id: `jobs-quota-${i}`, name: `quota ${i}`, category: 'c', definition })).result);
  }
  const looper = { actor: 'urn:li:corpuser:run-looper', scope: 'write' as const };
  const first = await runtime.services.compliance.run(looper, {});
  for (let i = 0; i < 5; i++) expect(await runtime.services.compliance.run(looper, {})).toEqual(first);
  expect(await runtime.services.compliance.run(ADMIN, {})).toEqual(first);
  // Distinct runs (each of one test) count against the asker.
  for (const test of tests.slice(1)) await runtime.services.compliance.run(looper, { testUrns: [test] });
  await expect(runtime.services.compliance.run(looper, { testUrns: [tests[0]!] })).rejects.toThrow(QuotaExceededError);
  expect((await jobs().list(READER, { kind: EVALUATE_TESTS })).filter((j) => j.owner === looper.actor && j.status === 'pending')).toHaveLength(LIMITS.unfinishedJobsPerPrincipal);
  for (const test of tests) await runtime.services.tests.deleteTest(ADMIN, test);
  await runtime.database.db.execute(sql`DELETE FROM job`);
});

test('a hard delete queues a cleanup job for the property: pending, nothing done yet, remaining unknown', async () => {
  await runtime.services.properties.delete(ADMIN, propertyUrn(HELD));
  const [job] = await jobs().list(READER, { propertyUrn: propertyUrn(HELD) });
  expect(job).toMatchObject({ kind: CLEANUP_PROPERTY_VALUES, status: 'pending', attempts: 0, done: 0, remaining: null, finishedOn: null, propertyUrn: propertyUrn(HELD), owner: null });
  expect(await jobs().get(READER, job!.id)).toEqual({ ...job, payload: { propertyUrn: propertyUrn(HELD) }, result: null });
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
  expect(all.map((j) => j.propertyUrn)).toEqual([propertyUrn(OTHER), propertyUrn(HELD)]);
  expect(Number(all[0]!.id)).toBeGreaterThan(Number(all[1]!.id));
  expect(await jobs().list(READER, { status: 'done', kind: CLEANUP_PROPERTY_VALUES, propertyUrn: propertyUrn(OTHER) })).toEqual([all[0]]);
  expect(await jobs().list(READER, { status: 'failed' })).toEqual([]);
  expect(await jobs().list(READER, { count: 1 })).toEqual([all[0]]);
});

test('the cleanup pages through the holders in urn order, and a last pass from the start takes a holder left behind its cursor', async () => {
  const PAGED = 'io.svc.jobs.paged';
  const holders = Array.from({ length: 9 }, (_, i) => datasetUrn(`jobs.paged${i}`));
  const behind = datasetUrn('jobs.a-behind'); // before every holder in urn order
  await catalog.define(PAGED);
  await catalog.createDatasets([...holders, behind]);
  for (const d of holders) await catalog.setValues(d, { [PAGED]: ['x'] });
  await runtime.worker.stop();
  await runtime.services.properties.delete(ADMIN, propertyUrn(PAGED));
  // After the first page, a stale value of the property turns up behind the cursor.
  const db = runtime.database.db;
  const pages: number[] = [];
  const writes: WriteService = Object.create(runtime.services.writes);
  writes.submit = async (...args: Parameters<WriteService['submit']>) => {
    const answer = await runtime.services.writes.submit(...args);
    pages.push(args[1].entities.length);
    if (pages.length === 1) await db.execute(sql`INSERT INTO property_value (entity_urn, property_urn, entity_type, generation, "values") VALUES (${behind}, ${propertyUrn(PAGED)}, 'dataset', 1, '["x"]'::jsonb)`);
    return answer;
  };
  const worker = new JobWorker({ db, log: createLogger('silent'), pollMs: 20, format: 'test' });
  worker.register(CLEANUP_PROPERTY_VALUES, cleanupHandler({ db, writes, indexWaiter: NO_WAIT, batchSize: 4 }));
  worker.start();
  try {
    await jobsSettled(runtime);
  } finally {
    await worker.stop();
    runtime.worker.start();
  }
  // Three pages of 4, 4 and 1 holders; then, from the start again, the one behind the cursor.
  expect(pages).toEqual([4, 4, 1, 1]);
  const [job] = await jobs().list(READER, { propertyUrn: propertyUrn(PAGED) });
  expect(job).toMatchObject({ status: 'done', total: holders.length, done: holders.length, remaining: 0 });
  expect(await db.query(sql`SELECT entity_urn FROM property_value WHERE property_urn = ${propertyUrn(PAGED)}`)).toEqual([]);
});

test('the cleanup moves each holder\'s version into history already without the property; the older versions are left to its history pass, which then takes them', async () => {
  const SCRUBBED = 'io.svc.jobs.scrubbed';
  const d = datasetUrn('jobs.scrubbed');
  const db = runtime.database.db;
  await catalog.define(SCRUBBED);
  await catalog.createDatasets([d]);
  await catalog.setValues(d, { [SCRUBBED]: ['one'] });
  await catalog.setValues(d, { [SCRUBBED]: ['two'] });
  const naming = async () =>
    db.query<{ version: number; names: boolean }>(sql`SELECT version::int AS version, metadata::text LIKE ${`%${propertyUrn(SCRUBBED)}"%`} AS names
      FROM aspect WHERE urn = ${d} AND aspect = 'structuredProperties' ORDER BY version`);
  await runtime.worker.stop();
  try {
    await runtime.services.properties.delete(ADMIN, propertyUrn(SCRUBBED));
    expect(await cleanupBatch(db, runtime.services.writes, propertyUrn(SCRUBBED), '', 10)).toMatchObject({ rewritten: 1, nextUrn: d });
    // Version 2 is what was the latest ('two'), moved by the cleanup's own write.
    expect(await naming()).toEqual([
      { version: 0, names: false },
      { version: 1, names: true },
      { version: 2, names: false },
    ]);
  } finally {
    runtime.worker.start();
  }
  await jobsSettled(runtime);
  expect((await naming()).map((v) => v.names)).toEqual([false, false, false]);
});

test('a bad status or count is a ValidationError naming it; an unknown or malformed job id a NotFoundError', async () => {
  expect((await rejection(jobs().list(READER, { status: 'sleeping' }), ValidationError)).field).toBe('status');
  expect((await rejection(jobs().list(READER, { count: -1 }), ValidationError)).field).toBe('count');
  await rejection(jobs().get(READER, '999999'), NotFoundError);
  await rejection(jobs().get(READER, 'abc'), NotFoundError);
});

test('a job queued with a delay starts when it is due, not at the next poll', async () => {
  // A poll longer than the test's wait: only the worker's wake at the due time can run it.
  const worker = new JobWorker({ db: runtime.database.db, log: createLogger('silent'), pollMs: 600_000, format: 'test' });
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

test('a running evaluation yields at its next step to an index build queued meanwhile, which runs first; then it resumes (issue #46 item 6)', async () => {
  const format = 'test-rank';
  const worker = new JobWorker({ db: runtime.database.db, log: createLogger('silent'), pollMs: 600_000, format, leaseSeconds: 30 });
  const events: string[] = [];
  let runs = 0;
  worker.register(EVALUATE_TESTS, async (ctx) => {
    events.push(`evaluation run ${++runs}`);
    if (runs > 1) return 'done';
    for (let step = 0; !ctx.stopping(); step++) await ctx.progress({ done: step });
    events.push('evaluation yielded');
    return 'yield';
  });
  worker.register(SEARCH_INDEX_BUILD, async () => {
    events.push('index build');
    return 'done';
  });
  const queue = async (kind: string) =>
    (await runtime.database.db.query<{ id: bigint }>(sql`INSERT INTO job (kind, payload, run_after) VALUES (${kind}, ${JSON.stringify({ format })}::jsonb, now() - interval '1 second') RETURNING id`))[0]!.id;
  const evaluation = await queue(EVALUATE_TESTS);
  worker.start();
  try {
    await waitFor('the evaluation to run', 30_000, async () => (events.length > 0 ? true : undefined), 20);
    const build = await queue(SEARCH_INDEX_BUILD);
    await waitFor('both jobs to finish', 60_000, async () => {
      const [a, b] = await Promise.all([jobs().get(READER, String(evaluation)), jobs().get(READER, String(build))]);
      return a.status === 'done' && b.status === 'done' ? true : undefined;
    }, 50);
    expect(events).toEqual(['evaluation run 1', 'evaluation yielded', 'index build', 'evaluation run 2']);
    // The yield handed the job back without counting an attempt against it.
    expect((await jobs().get(READER, String(evaluation))).attempts).toBe(1);
  } finally {
    await worker.stop();
  }
});

test('an idle worker deletes the jobs that ended before the retention, and keeps the others', async () => {
  const [old] = await runtime.database.db.query<{ id: bigint }>(sql`INSERT INTO job (kind, payload, status, finished_on) VALUES ('test-old', '{}'::jsonb, 'done', now() - interval '8 days') RETURNING id`);
  const [recent] = await runtime.database.db.query<{ id: bigint }>(sql`INSERT INTO job (kind, payload, status, finished_on) VALUES ('test-old', '{}'::jsonb, 'done', now() - interval '1 day') RETURNING id`);
  const worker = new JobWorker({ db: runtime.database.db, log: createLogger('silent'), pollMs: 20, format: 'test-prune', retentionSeconds: 7 * 86_400 });
  worker.start();
  try {
    await waitFor('the old job to be deleted', 30_000, () => jobs().get(READER, String(old!.id)).then(() => undefined, (err: unknown) => (err instanceof NotFoundError ? true : undefined)), 50);
    expect((await jobs().get(READER, String(recent!.id))).status).toBe('done');
  } finally {
    await worker.stop();
  }
});
