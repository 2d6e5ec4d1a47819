/**
 * Continuous evaluation of metadata tests (docs/metadata-tests.md, "Continuous
 * evaluation"), in process on a real PostgreSQL and Meilisearch: the change-log
 * consumer evaluates changed entities, a changed test is evaluated everywhere it
 * applies as a job, results are written only when an outcome changes and never bring
 * an entity back to the evaluator, soft delete, restore and hard delete of a test, a
 * structured property a test names changing state, the first start on a database that
 * already holds tests, and two evaluators on one database.
 */
import { ENTITY } from '../../src/domain/registry/entityTypes.js';
import type { TestResults } from '../../src/domain/testResults.js';
import { SYSTEM_CALLER } from '../../src/services/caller.js';
import { sql } from '../../src/store/sql.js';
import { datasetUrn, propertyUrn } from '../support/catalog.js';
import { ADMIN, startTestRuntime, WRITER, type TestRuntime } from '../support/runtime.js';
import { searchAvailableForTests } from '../support/server.js';
import { evaluationSettled, storedOutcomes } from '../support/testEvaluation.js';
import { waitFor } from '../support/waitFor.js';
import { writesOf } from '../support/writes.js';
import { nonEmpty } from '../support/nonEmpty.js';

const canRun = searchAvailableForTests();
if (!canRun) console.warn('testEvaluation: skipped (no Meilisearch for tests)');

const testUrn = (id: string) => `urn:li:test:${id}`;
const definition = (rules: unknown, on: Record<string, unknown> = { types: ['dataset'] }) => ({ json: JSON.stringify({ on, rules }) });
const described = definition([{ property: 'datasetProperties.description', operator: 'exists' }]);

(canRun ? describe : describe.skip)('continuous evaluation', () => {
  let rt: TestRuntime;
  const db = () => rt.database.db;

  const write = (urn: string, aspects: Record<string, unknown>) =>
    writesOf(rt.services).batchUpsert(WRITER, ENTITY.dataset, [{ urn, aspects: new Map(Object.entries(aspects).map(([k, v]) => [k, { value: v }])) }]);
  const createTest = (id: string, def: { json: string }, name = id) => rt.services.tests.createTest(ADMIN, { id, name, category: 'Governance', definition: def });
  const resultsOf = async (urn: string) => (await rt.services.tests.getTestResults(ADMIN, urn)) as TestResults | null;
  const failingIn = async (test: string) =>
    (await rt.services.search.scroll(ADMIN, { types: [], query: '*', count: 100, orFilters: [{ and: [{ field: 'failingTests', values: [test] }] }] })).entities.map((e) => e.urn);
  const evaluateJobs = async () =>
    db().query<{ id: bigint; status: string; total: number | null; done: number; payload: { tests: string[] | null; trigger: string } }>(sql`
      SELECT id, status, total, done, payload FROM job WHERE kind = 'evaluate-tests' ORDER BY id`);
  const changesOf = async (urn: string) =>
    Number((await db().query<{ n: bigint }>(sql`SELECT count(*) AS n FROM change_log WHERE urn = ${urn} AND aspect = 'testResults'`))[0]!.n);
  /** testResults naming the test: the latest versions, or every version (history included). */
  const mentions = async (test: string, versions: 'latest' | 'all' = 'latest') =>
    Number(
      (
        await db().query<{ n: bigint }>(sql`
          SELECT count(*) AS n FROM aspect WHERE aspect = 'testResults' AND (version = 0 OR ${versions === 'all'}) AND metadata::text LIKE ${`%"${test}"%`}`)
      )[0]!.n,
    );

  beforeAll(async () => {
    rt = await startTestRuntime({ search: true });
  }, 120_000);

  afterAll(async () => {
    await rt?.stop();
  });

  test('a dataset changed so that it fails a test is stored failing and found through failingTests', async () => {
    const D = datasetUrn('eval.orders');
    await createTest('described', described);
    await write(D, { datasetProperties: { name: 'orders', description: 'Orders placed' } });
    await evaluationSettled(rt);
    expect(await storedOutcomes(rt, D)).toEqual({ passing: [testUrn('described')], failing: [] });

    const before = Date.now();
    await write(D, { datasetProperties: { name: 'orders' } });
    await evaluationSettled(rt, { indexed: true });
    const stored = await resultsOf(D);
    expect(stored).toEqual({ passing: [], failing: [{ test: testUrn('described'), type: 'FAILURE', lastComputed: { time: expect.any(Number), actor: SYSTEM_CALLER.actor } }] });
    expect(stored!.failing[0]!.lastComputed!.time).toBeGreaterThanOrEqual(before);
    expect(await failingIn(testUrn('described'))).toEqual([D]);
  });

  test('results are written only when an outcome changes, and the evaluator’s own writes do not bring the entity back', async () => {
    const D = datasetUrn('eval.quiet');
    await write(D, { datasetProperties: { name: 'quiet', description: 'first' } });
    await evaluationSettled(rt);
    const writes = await changesOf(D);
    expect(writes).toBe(1);
    const version = (await rt.services.entities.getAspect(ADMIN, D, 'testResults')).systemMetadata?.version;
    // The same outcome from a new description: nothing to write.
    await write(D, { datasetProperties: { name: 'quiet', description: 'second' } });
    await evaluationSettled(rt);
    expect(await changesOf(D)).toBe(writes);
    expect((await rt.services.entities.getAspect(ADMIN, D, 'testResults')).systemMetadata?.version).toBe(version);
    const evaluatedBefore = rt.testEvaluator!.state.evaluated;
    // Caught up means past its own result rows too; nothing was evaluated again for them.
    await evaluationSettled(rt);
    expect(rt.testEvaluator!.state.evaluated).toBe(evaluatedBefore);
  });

  test('a new test is evaluated on every entity it selects, as a job with progress', async () => {
    const urns = Array.from({ length: 30 }, (_, i) => datasetUrn(`eval.bulk_${i}`));
    await writesOf(rt.services).batchUpsert(
      WRITER,
      ENTITY.dataset,
      urns.map((urn, i) => ({ urn, aspects: new Map([['datasetProperties', { value: { name: `bulk_${i}`, ...(i % 3 === 0 ? { description: 'x' } : {}) } }]]) })),
    );
    await evaluationSettled(rt);
    await createTest('named-bulk', definition([{ property: 'datasetProperties.name', operator: 'starts_with', values: ['bulk_1'] }]));
    await evaluationSettled(rt);
    const job = (await evaluateJobs()).find((j) => j.payload.tests?.includes(testUrn('named-bulk')));
    expect(job).toMatchObject({ status: 'done', payload: { trigger: 'changed' } });
    expect(job!.done).toBe(job!.total);
    expect(job!.total).toBeGreaterThanOrEqual(urns.length);
    for (const [i, urn] of nonEmpty(urns.entries())) {
      const outcomes = await storedOutcomes(rt, urn);
      const named = String(i).startsWith('1') ? 'passing' : 'failing';
      expect(outcomes?.[named]).toContain(testUrn('named-bulk'));
      expect(outcomes?.[i % 3 === 0 ? 'passing' : 'failing']).toContain(testUrn('described'));
    }
  });

  test('tests created one after another share one job', async () => {
    const before = (await evaluateJobs()).length;
    // One after another, each answered at its commit (async) as a script writing several would be: waiting
    // for the index after each, on a loaded machine, took longer than the evaluation's 2 s wait (seen once).
    for (const id of ['batch-a', 'batch-b', 'batch-c']) {
      await rt.services.tests.createTest(ADMIN, { id, name: id, category: 'Governance', definition: definition([{ property: 'urn', operator: 'contains_str', values: [id] }]) }, { async: true });
    }
    await evaluationSettled(rt);
    const added = (await evaluateJobs()).slice(before);
    expect(added).toHaveLength(1);
    expect(added[0]!.payload.tests).toEqual([testUrn('batch-a'), testUrn('batch-b'), testUrn('batch-c')]);
  });

  test('a soft-deleted test stops being evaluated and its results go; restored, they come back', async () => {
    const T = testUrn('described');
    const D = datasetUrn('eval.orders');
    await writesOf(rt.services).setAspect(ADMIN, T, 'status', { value: { removed: true } });
    await evaluationSettled(rt, { indexed: true });
    expect(await mentions(T)).toBe(0);
    expect(await failingIn(T)).toEqual([]);
    await write(D, { datasetProperties: { name: 'orders', description: 'described again' } });
    await write(D, { datasetProperties: { name: 'orders' } });
    await evaluationSettled(rt);
    expect((await storedOutcomes(rt, D))?.failing).not.toContain(T);

    await writesOf(rt.services).setAspect(ADMIN, T, 'status', { value: { removed: false } });
    await evaluationSettled(rt, { indexed: true });
    expect((await storedOutcomes(rt, D))?.failing).toContain(T);
    expect(await failingIn(T)).toContain(D);
  });

  test('a hard-deleted test leaves no result behind, in the latest results or the earlier versions', async () => {
    const T = testUrn('named-bulk');
    expect(await mentions(T, 'all')).toBeGreaterThan(0);
    expect((await rt.services.tests.deleteTest(ADMIN, T)).result).toBe(true);
    await evaluationSettled(rt, { indexed: true });
    expect(await mentions(T, 'all')).toBe(0);
    const indexed = await db().query<{ n: bigint }>(sql`SELECT count(*) AS n FROM test_result WHERE ${T} = ANY(passing) OR ${T} = ANY(failing)`);
    expect(Number(indexed[0]!.n)).toBe(0);
    expect(await failingIn(T)).toEqual([]);
  });

  test('a structured property a test names, soft deleted, changes the test’s outcome everywhere', async () => {
    const P = propertyUrn('io.eval.retention');
    const E = datasetUrn('eval.kept');
    await rt.services.properties.create(ADMIN, { qualifiedName: 'io.eval.retention', valueType: 'urn:li:dataType:svc.number', entityTypes: ['urn:li:entityType:svc.dataset'] });
    await write(E, { datasetProperties: { name: 'kept' } });
    await rt.services.values.upsert(WRITER, E, [{ structuredPropertyUrn: P, values: [{ numberValue: 90 }] }]);
    await createTest('retention', definition([{ property: `structuredProperties.${P}`, operator: 'greater_than', values: ['30'] }]));
    await evaluationSettled(rt);
    expect((await storedOutcomes(rt, E))?.passing).toContain(testUrn('retention'));
    await rt.services.properties.softDelete(ADMIN, P);
    await evaluationSettled(rt);
    expect((await storedOutcomes(rt, E))?.failing).toContain(testUrn('retention'));
  });

  test('the evaluator records its position in the log as it goes', async () => {
    const read = async () => (await db().query<{ xid: bigint; id: bigint }>(sql`SELECT xid, id FROM change_log_consumer WHERE name = 'test-evaluator'`))[0]!;
    const before = await read();
    await write(datasetUrn('eval.moved'), { datasetProperties: { name: 'moved' } });
    await evaluationSettled(rt);
    const after = await read();
    expect(BigInt(after.xid) > BigInt(before.xid) || (after.xid === before.xid && BigInt(after.id) > BigInt(before.id))).toBe(true);
  });

  test('evaluate with push stores through the same path, stamped with the caller', async () => {
    const D = datasetUrn('eval.pushed');
    await write(D, { datasetProperties: { name: 'pushed' } });
    await evaluationSettled(rt);
    await writesOf(rt.services).setAspect(WRITER, D, 'testResults', { value: { passing: [], failing: [] } });
    const answer = (await rt.services.tests.evaluate(WRITER, { urn: D, testUrns: [testUrn('described')], push: true })).result;
    expect(answer).toEqual({ passing: [], failing: [{ test: testUrn('described'), type: 'FAILURE' }] });
    expect((await resultsOf(D))?.failing).toEqual([{ test: testUrn('described'), type: 'FAILURE', lastComputed: { time: expect.any(Number), actor: WRITER.actor } }]);
  });
});

(canRun ? describe : describe.skip)('one database, several processes', () => {
  test('the first start on a database that already holds tests evaluates them everywhere (an upgrade)', async () => {
    const off = await startTestRuntime({ env: { TEST_EVALUATION: 'false' } });
    const D = datasetUrn('upgrade.before');
    try {
      await writesOf(off.services).batchUpsert(WRITER, ENTITY.dataset, [{ urn: D, aspects: new Map([['datasetProperties', { value: { name: 'before' } }]]) }]);
      await off.services.tests.createTest(ADMIN, { id: 'upgraded', name: 'upgraded', category: 'c', definition: described });
    } finally {
      await off.stop();
    }
    const on = await startTestRuntime({ env: { DATABASE_URL: off.config.databaseUrl! } });
    try {
      await evaluationSettled(on);
      expect(await storedOutcomes(on, D)).toEqual({ passing: [], failing: [testUrn('upgraded')] });
      const jobs = await on.database.db.query<{ payload: { trigger: string } }>(sql`SELECT payload FROM job WHERE kind = 'evaluate-tests'`);
      // The start queues the full run. A 'changed' run of the same test may follow: the
      // evaluator starts at the cluster's transaction horizon, which another suite's open
      // transaction (one PostgreSQL serves every test worker) can hold behind the test's
      // creation (seen once in a CI run). Both runs write the same results.
      expect(jobs.map((j) => j.payload.trigger)).toContain('start');
    } finally {
      await on.stop();
    }
  });

  test('two evaluators on one database: one holds the lease, the other takes over when it goes', async () => {
    const a = await startTestRuntime();
    const b = await startTestRuntime({ env: { DATABASE_URL: a.config.databaseUrl! } });
    const D = datasetUrn('replicas.one');
    const stopped = new Set<TestRuntime>();
    try {
      await a.services.tests.createTest(ADMIN, { id: 'replicated', name: 'replicated', category: 'c', definition: described });
      await waitFor('one evaluator to hold the lease', 30_000, async () => (a.testEvaluator!.state.leader !== b.testEvaluator!.state.leader ? true : undefined));
      const [leader, other] = a.testEvaluator!.state.leader ? [a, b] : [b, a];
      await writesOf(other.services).batchUpsert(WRITER, ENTITY.dataset, [{ urn: D, aspects: new Map([['datasetProperties', { value: { name: 'one' } }]]) }]);
      await evaluationSettled(leader);
      expect(await storedOutcomes(leader, D)).toEqual({ passing: [], failing: [testUrn('replicated')] });
      expect(other.testEvaluator!.state.evaluated).toBe(0);

      await leader.stop();
      stopped.add(leader);
      await writesOf(other.services).batchUpsert(WRITER, ENTITY.dataset, [{ urn: D, aspects: new Map([['datasetProperties', { value: { name: 'one', description: 'now' } }]]) }]);
      await evaluationSettled(other);
      expect(await storedOutcomes(other, D)).toEqual({ passing: [testUrn('replicated')], failing: [] });
      expect(other.testEvaluator!.state.leader).toBe(true);
    } finally {
      for (const r of [a, b]) if (!stopped.has(r)) await r.stop();
    }
  }, 120_000);
});
