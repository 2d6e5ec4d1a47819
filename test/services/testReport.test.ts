/**
 * The compliance report (docs/metadata-tests.md, "The compliance report"), in process on
 * a real PostgreSQL and Meilisearch, over 1,000 datasets: the counts of each test match
 * a brute-force evaluation of every entity, the failing entities page through exactly
 * the failing set (and a query narrows them), the trend holds the days recorded and
 * today's counts, an explanation names the rule that failed with what the entity has,
 * and a run asked for is a job that restores results written by hand.
 */
import { NotFoundError, ValidationError } from '../../src/domain/errors.js';
import { ENTITY } from '../../src/domain/registry/entityTypes.js';
import type { ComplianceReport } from '../../src/services/complianceService.js';
import { sql } from '../../src/store/sql.js';
import { datasetUrn, propertyUrn } from '../support/catalog.js';
import { ADMIN, READER, startTestRuntime, WRITER, type TestRuntime } from '../support/runtime.js';
import { searchAvailableForTests } from '../support/server.js';
import { evaluationSettled, storedOutcomes } from '../support/testEvaluation.js';
import { waitFor } from '../support/waitFor.js';
import { writesOf } from '../support/writes.js';
import { nonEmpty } from '../support/nonEmpty.js';

const canRun = searchAvailableForTests();
if (!canRun) console.warn('testReport: skipped (no Meilisearch for tests)');

const N = 1000;
const RETENTION = propertyUrn('io.report.retentionDays');
const OWNED = 'urn:li:tag:owned';
const testUrn = (id: string) => `urn:li:test:${id}`;
const OWNER = testUrn('report-owner');
const KEPT = testUrn('report-retention');
const NAMED = testUrn('report-naming');
const CHARTS = testUrn('report-charts');

const urnOf = (i: number) => datasetUrn(`report.t${String(i).padStart(4, '0')}`, 'hive', i % 4 === 0 ? 'DEV' : 'PROD');
const nameOf = (i: number) => (i % 2 === 0 ? `fct_sales_${i}` : `dim_sales_${i}`);

(canRun ? describe : describe.skip)('the compliance report over 1,000 datasets', () => {
  let rt: TestRuntime;
  let report: ComplianceReport;
  /** What evaluating every test on every entity gives, test by test. */
  const bruteForce = new Map<string, { passing: Set<string>; failing: Set<string> }>();

  const compliance = () => rt.services.compliance;
  const countsOf = (r: ComplianceReport, urn: string) => {
    const t = r.tests.find((x) => x.test.urn === urn)!;
    return { passing: t.passing, failing: t.failing, notApplicable: t.notApplicable };
  };

  beforeAll(async () => {
    // Today's counts recorded a second after results change, not a minute: the trend test waits for them.
    rt = await startTestRuntime({ search: true, tuning: { testCountsSnapshotMs: 1000 } });
    await rt.services.properties.create(ADMIN, { qualifiedName: 'io.report.retentionDays', valueType: 'urn:li:dataType:svc.number', entityTypes: ['urn:li:entityType:svc.dataset'] });
    const items = Array.from({ length: N }, (_, i) => ({
      urn: urnOf(i),
      aspects: new Map<string, { value: unknown }>([
        ['datasetProperties', { value: { name: nameOf(i), description: `Sales table ${i}` } }],
        ...(i % 3 === 0 ? [['globalTags', { value: { tags: [{ tag: OWNED }] } }] as [string, { value: unknown }]] : []),
        ...(i % 5 !== 0 ? [['structuredProperties', { value: { properties: [{ propertyUrn: RETENTION, values: [{ double: i % 90 }] }] } }] as [string, { value: unknown }]] : []),
      ]),
    }));
    await writesOf(rt.services).batchUpsert(WRITER, ENTITY.dataset, items, { async: true });
    const test = (id: string, on: unknown, rules: unknown) => rt.services.tests.createTest(ADMIN, { id, name: id, category: 'Governance', definition: { json: JSON.stringify({ on, rules }) } });
    await test('report-owner', { types: ['dataset'], conditions: [{ property: 'datasetKey.origin', operator: 'equals', values: ['PROD'] }] }, [{ property: 'globalTags.tags.tag', operator: 'contains_any', values: [OWNED] }]);
    await test('report-retention', { types: ['dataset'] }, [{ property: `structuredProperties.${RETENTION}`, operator: 'greater_than', values: [30] }]);
    await test('report-naming', { types: ['dataset'] }, [{ property: 'datasetProperties.name', operator: 'regex_match', values: ['(?i)FCT_.*'] }]);
    await test('report-charts', { types: ['chart'] }, [{ property: 'chartInfo.title', operator: 'exists' }]);
    await evaluationSettled(rt, { indexed: true, timeoutMs: 240_000 });
    report = await compliance().report(READER);

    for (const t of [OWNER, KEPT, NAMED, CHARTS]) bruteForce.set(t, { passing: new Set(), failing: new Set() });
    for (let i = 0; i < N; i += 100) {
      const urns = Array.from({ length: Math.min(100, N - i) }, (_, k) => urnOf(i + k));
      for (const { urn, results } of (await rt.services.tests.batchEvaluate(READER, { urns })).result) {
        for (const r of results.passing) bruteForce.get(r.test)!.passing.add(urn);
        for (const r of results.failing) bruteForce.get(r.test)!.failing.add(urn);
      }
    }
  }, 600_000);

  afterAll(async () => {
    await rt?.stop();
  });

  test('the counts of every test match a brute-force evaluation of every entity', () => {
    for (const [test, { passing, failing }] of nonEmpty(bruteForce)) {
      const targeted = test === CHARTS ? 0 : N;
      expect({ test, ...countsOf(report, test) }).toEqual({ test, passing: passing.size, failing: failing.size, notApplicable: targeted - passing.size - failing.size });
    }
    // The data makes every kind of count non-trivial.
    expect(countsOf(report, OWNER).notApplicable).toBe(N / 4);
    expect(countsOf(report, KEPT).passing).toBeGreaterThan(0);
    expect(countsOf(report, NAMED)).toMatchObject({ passing: N / 2, failing: N / 2 });
  });

  test('the failing entities page through exactly the failing set, in URN order', async () => {
    const seen: string[] = [];
    let scrollId: string | null = null;
    do {
      const page = await compliance().failing(READER, { urn: OWNER, count: 97, ...(scrollId ? { scrollId } : {}) });
      expect(page.total).toBe(bruteForce.get(OWNER)!.failing.size);
      seen.push(...page.entities.map((e) => e.urn));
      scrollId = page.scrollId;
    } while (scrollId);
    expect(seen).toEqual([...bruteForce.get(OWNER)!.failing].sort());
  });

  test('a query searches among the failing entities', async () => {
    const page = await compliance().failing(READER, { urn: NAMED, query: 'dim_sales_7', count: 100 });
    expect(page.entities.map((e) => e.urn)).toContain(urnOf(7));
    for (const e of nonEmpty(page.entities)) expect(bruteForce.get(NAMED)!.failing.has(e.urn)).toBe(true);
  });

  test('the trend holds the days recorded, then today’s counts; the evaluator records today’s', async () => {
    await rt.database.db.execute(sql`
      INSERT INTO test_result_daily (test_urn, day, passing, failing, not_applicable)
      VALUES (${OWNER}, (now() AT TIME ZONE 'UTC')::date - 2, 1, 2, 3)`);
    const one = await compliance().report(READER, { urn: OWNER, days: 7 });
    expect(one.tests).toHaveLength(1);
    const today = new Date().toISOString().slice(0, 10);
    const trend = one.tests[0]!.trend;
    expect(trend).toHaveLength(2);
    expect(trend[0]).toMatchObject({ passing: 1, failing: 2, notApplicable: 3 });
    expect(trend[0]!.day < today).toBe(true);
    expect(trend[1]).toEqual({ day: today, ...countsOf(report, OWNER) });
    await waitFor('today’s counts recorded', 120_000, async () => {
      const rows = await rt.database.db.query<{ passing: number; failing: number }>(sql`
        SELECT passing, failing FROM test_result_daily WHERE test_urn = ${OWNER} AND day = (now() AT TIME ZONE 'UTC')::date`);
      return rows[0]?.failing === countsOf(report, OWNER).failing ? true : undefined;
    });
  });

  test('an explanation names the rule that failed and what the entity has there', async () => {
    const failing = [...bruteForce.get(OWNER)!.failing][0]!;
    const why = await compliance().explain(READER, { test: OWNER, entity: failing });
    expect(why.outcome).toBe('FAILURE');
    expect(why.conditions).toMatchObject({ holds: true });
    expect(why.rules).toMatchObject({ kind: 'and', holds: false, children: [{ kind: 'leaf', holds: false, property: 'globalTags.tags.tag', operator: 'contains_any', values: [OWNED], actual: [] }] });
  });

  test('a run asked for is a job with progress that restores results written by hand', async () => {
    const stale = urnOf(10);
    const before = await storedOutcomes(rt, stale);
    await writesOf(rt.services).setAspect(WRITER, stale, 'testResults', { value: { passing: [], failing: [] } });
    await evaluationSettled(rt);
    // A write of testResults alone is not a change tests read: it stays until something else changes.
    expect(await storedOutcomes(rt, stale)).toEqual({ passing: [], failing: [] });
    const { jobId } = await compliance().run(WRITER, { query: 'fct_sales_10', types: ['dataset'] });
    await evaluationSettled(rt);
    const job = await rt.services.jobs.get(READER, jobId);
    expect(job).toMatchObject({ kind: 'evaluate-tests', status: 'done', payload: { trigger: 'run', query: 'fct_sales_10' } });
    expect(job.done).toBe(job.total);
    expect(await storedOutcomes(rt, stale)).toEqual(before);
  });

  test('refusals: an unknown test, a bad day count, types without a query, and a reader running tests', async () => {
    await expect(compliance().report(READER, { urn: testUrn('nope') })).rejects.toThrow(NotFoundError);
    await expect(compliance().failing(READER, { urn: testUrn('nope') })).rejects.toThrow(NotFoundError);
    await expect(compliance().report(READER, { days: 0 })).rejects.toThrow(ValidationError);
    await expect(compliance().run(WRITER, { testUrns: [testUrn('nope')] })).rejects.toThrow(/Unknown or soft-deleted test in testUrns: urn:li:test:nope/);
    await expect(compliance().run(WRITER, { types: ['dataset'] })).rejects.toThrow(/types narrows a query/);
    expect(() => compliance().run(READER, {})).toThrow(/needs a token with write scope/);
  });
});
