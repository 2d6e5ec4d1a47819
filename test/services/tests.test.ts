/**
 * Metadata tests at the service (docs/contract.md §7): create, read, update, delete and
 * list tests; definitions validated when written; evaluation (scope, conditions, every
 * operator, structured property values as readers see them, bounded regular
 * expressions) and push, which stores the results as the entity's testResults aspect.
 * In process, on a real PostgreSQL.
 */
import { AlreadyExistsError, InvalidUrnError, NotFoundError, StaleWriteError, ValidationError } from '../../src/domain/errors.js';
import type { Caller } from '../../src/services/caller.js';
import { ENTITY } from '../../src/domain/registry/entityTypes.js';
import type { TestService } from '../../src/services/testService.js';
import { ADMIN, READER, startTestRuntime, WRITER, type TestRuntime } from '../support/runtime.js';
import { datasetUrn, fieldUrn, propertyUrn, rejection, serviceCatalog, type ServiceCatalog } from '../support/serviceCatalog.js';
import { withClient } from '../support/storedValues.js';
import { writesOf } from '../support/writes.js';

let runtime: TestRuntime;
let catalog: ServiceCatalog;
const testUrn = (id: string) => `urn:li:test:${id}`;
const leaf = (property: string, operator: string, values?: unknown[]) => (values === undefined ? { property, operator } : { property, operator, values });
const definition = (json: unknown) => ({ json: JSON.stringify(json) });
const onDatasets = (rules: unknown, conditions?: unknown) => definition({ on: { types: ['dataset'], ...(conditions ? { conditions } : {}) }, rules });
const NAME_EXISTS = onDatasets([leaf('datasetProperties.name', 'exists')]);

beforeAll(async () => {
  // Evaluation on request alone: the continuous evaluator would store results without push (test/services/testEvaluation.test.ts).
  runtime = await startTestRuntime({ env: { TEST_EVALUATION: 'false' } });
  catalog = serviceCatalog(runtime);
});
afterAll(async () => {
  await runtime?.stop();
});

const tests = () => runtime.services.tests;
const create = async (id: string, def = NAME_EXISTS, extra: { description?: string; name?: string; category?: string } = {}) =>
  (await tests().createTest(ADMIN, { id, name: extra.name ?? `Test ${id}`, category: extra.category ?? 'Governance', definition: def, ...(extra.description ? { description: extra.description } : {}) })).result;
/** The results of an evaluation (its write receipt is asserted where the evaluation pushes). */
const evaluate = async (...args: Parameters<TestService['evaluate']>) => (await tests().evaluate(...args)).result;

async function dataset(name: string, datasetProperties?: Record<string, unknown>): Promise<string> {
  const urn = datasetUrn(name);
  const aspects = new Map<string, { value: unknown }>([['status', { value: { removed: false } }]]);
  if (datasetProperties) aspects.set('datasetProperties', { value: datasetProperties });
  await writesOf(runtime.services).batchUpsert(WRITER, ENTITY.dataset, [{ urn, aspects }]);
  return urn;
}

/** The test ids among a result list, sorted. */
const ids = (list: ReadonlyArray<{ test: string }>) => list.map((r) => r.test.replace('urn:li:test:', '')).sort();

describe('tests as entities', () => {
  test('createTest stores a test under the given id, or a generated one; getTest reads it back exactly', async () => {
    const urn = await create('svc-created', NAME_EXISTS, { description: 'd', name: 'Named', category: 'Quality' });
    expect(urn).toBe(testUrn('svc-created'));
    expect(await tests().getTest(READER, urn)).toEqual({ urn, name: 'Named', category: 'Quality', description: 'd', definition: { type: 'JSON', json: NAME_EXISTS.json } });
    expect((await tests().createTest(ADMIN, { name: 'Generated', category: 'Quality', definition: NAME_EXISTS })).result).toMatch(/^urn:li:test:[0-9a-f-]{36}$/);
  });

  test('an existing id is an AlreadyExistsError; an id with a space a ValidationError on id', async () => {
    await create('svc-dup');
    await rejection(create('svc-dup'), AlreadyExistsError);
    expect((await rejection(create('has space'), ValidationError)).field).toBe('id');
  });

  test.each<[string, string, RegExp]>([
    ['an unknown operator', JSON.stringify({ on: { types: ['dataset'] }, rules: { or: [leaf('urn', 'exists'), leaf('urn', 'equal', ['x'])] } }), /^Invalid test definition: rules\.or\[1\]\.operator: unknown operator "equal"/],
    ['no entity type', JSON.stringify({ on: { types: [] }, rules: [] }), /on\.types: must name at least one entity type/],
    ['text that is not JSON', '{"on": [', /not valid JSON/],
  ])('a definition with %s is a ValidationError and nothing is stored', async (_label, json, message) => {
    const id = `svc-invalid-${json.length}`;
    const err = await rejection(tests().createTest(ADMIN, { id, name: 'n', category: 'c', definition: { json } }), ValidationError);
    expect(err.message).toMatch(message);
    expect(await tests().getTest(READER, testUrn(id))).toBeNull();
  });

  test('the same rules hold for a testInfo written as an aspect', async () => {
    const err = await rejection(writesOf(runtime.services).setAspect(ADMIN, testUrn('svc-aspect'), 'testInfo', { value: { name: 'n', category: 'c', definition: { type: 'JSON', json: '{"on": [' } } }), ValidationError);
    expect(err.message).toMatch(/not valid JSON/);
  });

  test('updateTest replaces the test; a missing one is a NotFoundError and is not created', async () => {
    const urn = await create('svc-update', NAME_EXISTS, { description: 'old' });
    await tests().updateTest(ADMIN, urn, { name: 'After', category: 'c2', definition: NAME_EXISTS });
    expect(await tests().getTest(READER, urn)).toEqual({ urn, name: 'After', category: 'c2', definition: { type: 'JSON', json: NAME_EXISTS.json } });
    await rejection(tests().updateTest(ADMIN, testUrn('svc-missing'), { name: 'x', category: 'c', definition: NAME_EXISTS }), NotFoundError);
    expect(await tests().getTest(READER, testUrn('svc-missing'))).toBeNull();
  });

  test('an update naming the version it read is refused as stale when someone changed the test since, told who and what; naming the current one, it is written (issue #39)', async () => {
    const urn = await create('svc-stale', NAME_EXISTS, { name: 'Read' });
    const versionOf = async () => String((await runtime.services.entities.getAspect(READER, urn, 'testInfo')).systemMetadata?.version);
    const read = await versionOf();
    const other: Caller = { ...WRITER, actor: 'urn:li:corpuser:ana@example.com', scope: 'admin', via: 'console' };
    await tests().updateTest(other, urn, { name: 'Theirs', category: 'Governance', definition: NAME_EXISTS }, { expectedVersion: read });
    const stale = await rejection(tests().updateTest(ADMIN, urn, { name: 'Mine', category: 'Governance', definition: NAME_EXISTS }, { expectedVersion: read }), StaleWriteError);
    expect(stale.details).toMatchObject({ expectedVersion: read, currentVersion: await versionOf(), writesSince: [{ actor: other.actor, via: 'console' }], changes: [{ field: 'name', before: 'Read', after: 'Theirs' }] });
    expect((await tests().getTest(READER, urn))?.name).toBe('Theirs');
    await tests().updateTest(ADMIN, urn, { name: 'Mine', category: 'Governance', definition: NAME_EXISTS }, { expectedVersion: String(stale.details?.currentVersion) });
    expect((await tests().getTest(READER, urn))?.name).toBe('Mine');
  });

  test('deleteTest removes the test and says whether there was one', async () => {
    const urn = await create('svc-delete');
    expect((await tests().deleteTest(ADMIN, urn)).result).toBe(true);
    expect(await tests().getTest(READER, urn)).toBeNull();
    expect((await tests().deleteTest(ADMIN, urn)).result).toBe(false);
  });

  test('a urn of another type is an InvalidUrnError', async () => {
    await rejection(tests().getTest(READER, 'urn:li:tag:x'), InvalidUrnError);
  });

  test('listTests pages and filters by text; soft-deleted tests are not listed; bad paging is a ValidationError naming it', async () => {
    for (const id of ['list-1', 'list-2', 'list-3']) await create(`svc-${id}`, NAME_EXISTS, { name: `Listable ${id}`, category: 'Listing' });
    const page = await tests().listTests(READER, { start: 1, count: 1, query: 'listable' });
    expect(page).toMatchObject({ start: 1, count: 1, total: 3 });
    expect(page.tests.map((t) => t.urn)).toEqual([testUrn('svc-list-2')]);
    await writesOf(runtime.services).setAspect(ADMIN, testUrn('svc-list-3'), 'status', { value: { removed: true } });
    expect((await tests().listTests(READER, { query: 'listable' })).tests.map((t) => t.urn)).toEqual([testUrn('svc-list-1'), testUrn('svc-list-2')]);
    expect((await rejection(tests().listTests(READER, { start: -1 }), ValidationError)).field).toBe('start');
    expect((await rejection(tests().listTests(READER, { count: 1.5 }), ValidationError)).field).toBe('count');
  });

  test('validateTest reports the reason without storing anything', () => {
    expect(tests().validateTest(NAME_EXISTS.json)).toEqual({ valid: true });
    expect(tests().validateTest('{"on": {"types": ["dataset"]}, "rules": [{"property": "urn"}]}')).toEqual({
      valid: false,
      error: 'Invalid test definition: rules[0].operator: is required; one of equals, contains_any, contains_str, starts_with, regex_match, greater_than, greater_than_or_equal_to, less_than, less_than_or_equal_to, exists, is_true, is_false',
    });
  });
});

describe('evaluate', () => {
  let A: string;
  let B: string;
  const T = ['eval-pass', 'eval-fail', 'eval-other-type', 'eval-condition-false'];

  beforeAll(async () => {
    A = await dataset('mtests.eval_a', { name: 'fct_orders', description: 'Orders' });
    B = await dataset('mtests.eval_b', { name: 'dim_customers' });
    await create(T[0]!, onDatasets([leaf('datasetProperties.name', 'exists')]));
    await create(T[1]!, onDatasets([leaf('datasetProperties.description', 'exists')]));
    await create(T[2]!, definition({ on: { types: ['chart'] }, rules: [] }));
    await create(T[3]!, onDatasets([], [leaf('datasetProperties.name', 'starts_with', ['fct_'])]));
  });

  test('answers passing and failing tests; tests out of scope are in neither list', async () => {
    expect(await evaluate(READER, { urn: B, testUrns: T.map(testUrn) })).toEqual({
      passing: [{ test: testUrn('eval-pass'), type: 'SUCCESS' }],
      failing: [{ test: testUrn('eval-fail'), type: 'FAILURE' }],
    });
  });

  test('conditions decide the scope per entity', async () => {
    const results = await evaluate(READER, { urn: A, testUrns: T.map(testUrn) });
    expect({ passing: ids(results.passing), failing: ids(results.failing) }).toEqual({ passing: ['eval-condition-false', 'eval-fail', 'eval-pass'], failing: [] });
  });

  test('without testUrns every test in scope runs; with them only those named', async () => {
    const all = await evaluate(READER, { urn: B });
    expect([...ids(all.passing), ...ids(all.failing)]).toEqual(expect.arrayContaining(['eval-pass', 'eval-fail']));
    expect([...ids(all.passing), ...ids(all.failing)]).not.toContain('eval-other-type');
    expect(await evaluate(READER, { urn: B, testUrns: [testUrn('eval-fail')] })).toEqual({ passing: [], failing: [{ test: testUrn('eval-fail'), type: 'FAILURE' }] });
  });

  test('batchEvaluate answers per entity; an empty or unknown one is refused', async () => {
    expect((await tests().batchEvaluate(READER, { urns: [A, B], testUrns: [testUrn('eval-fail')] })).result).toEqual([
      { urn: A, results: { passing: [{ test: testUrn('eval-fail'), type: 'SUCCESS' }], failing: [] } },
      { urn: B, results: { passing: [], failing: [{ test: testUrn('eval-fail'), type: 'FAILURE' }] } },
    ]);
    expect((await rejection(tests().batchEvaluate(READER, { urns: [] }), ValidationError)).field).toBe('urns');
    expect((await rejection(tests().batchEvaluate(READER, { urns: [A, datasetUrn('mtests.nowhere')] }), NotFoundError)).message).toContain(datasetUrn('mtests.nowhere'));
  });

  test('a soft-deleted test is not run, and naming it is a ValidationError on testUrns; so is naming an unknown test', async () => {
    const gone = await create('eval-soft-deleted', onDatasets([]));
    await writesOf(runtime.services).setAspect(ADMIN, gone, 'status', { value: { removed: true } });
    expect(ids((await evaluate(READER, { urn: B })).passing)).not.toContain('eval-soft-deleted');
    expect(await rejection(evaluate(READER, { urn: B, testUrns: [gone] }), ValidationError)).toMatchObject({ field: 'testUrns', message: expect.stringContaining(gone) });
    expect(await rejection(evaluate(READER, { urn: B, testUrns: [testUrn('does-not-exist')] }), ValidationError)).toMatchObject({
      field: 'testUrns',
      message: `Unknown test urn in testUrns: ${testUrn('does-not-exist')}`,
    });
  });

  test('an unknown entity is a NotFoundError; a schema field of an existing dataset exists without aspects; a malformed urn is an InvalidUrnError', async () => {
    await rejection(evaluate(READER, { urn: datasetUrn('mtests.nowhere') }), NotFoundError);
    expect(await evaluate(READER, { urn: fieldUrn(A, 'no.aspects.yet') })).toEqual({ passing: expect.any(Array), failing: expect.any(Array) });
    await rejection(evaluate(READER, { urn: 'urn:li:dataset:(broken' }), InvalidUrnError);
  });
});

describe('every operator', () => {
  const RETENTION = 'mtests.retention';
  const CLASS = 'mtests.classification';
  const cases: Array<[string, Record<string, unknown>]> = [
    ['equals', leaf('datasetProperties.name', 'equals', ['fct_orders'])],
    ['contains_any', leaf(`structuredProperties.${propertyUrn(CLASS)}`, 'contains_any', ['public', 'confidential'])],
    ['contains_str', leaf('datasetProperties.description', 'contains_str', ['customer'])],
    ['starts_with', leaf('datasetProperties.name', 'starts_with', ['fct_'])],
    ['regex_match', leaf('datasetProperties.name', 'regex_match', ['fct_[a-z]+'])],
    ['greater_than', leaf(`structuredProperties.${propertyUrn(RETENTION)}`, 'greater_than', [90])],
    ['less_than', leaf(`structuredProperties.${propertyUrn(RETENTION)}`, 'less_than', ['400'])],
    ['exists', leaf(`structuredProperties.${propertyUrn(RETENTION)}`, 'exists')],
    ['is_true', leaf('datasetProperties.customProperties.certified', 'is_true')],
    ['is_false', leaf('datasetProperties.customProperties.deprecated', 'is_false')],
    ['and', { and: [leaf('datasetProperties.name', 'exists'), leaf('datasetProperties.description', 'contains_str', ['customer'])] }],
    ['or', { or: [leaf('datasetProperties.name', 'equals', ['x']), leaf('datasetProperties.description', 'contains_str', ['customer'])] }],
    ['not', { not: leaf('datasetProperties.customProperties.deprecated', 'is_true') }],
    ['legacy spelling', { query: 'datasetProperties.name', operation: 'equals', params: { values: ['fct_orders'] } }],
  ];

  test('each passes on the entity that satisfies it and fails on the one that does not', async () => {
    await catalog.define(RETENTION, { valueType: 'number', cardinality: 'MULTIPLE' });
    await catalog.define(CLASS);
    const pass = await dataset('mtests.ops_pass', { name: 'fct_orders', description: 'Orders by customers', customProperties: { certified: 'true', deprecated: 'false' } });
    const fail = await dataset('mtests.ops_fail', { name: 'dim_orders', description: 'Orders', customProperties: { certified: 'false', deprecated: 'true' } });
    await catalog.setValues(pass, { [RETENTION]: [365], [CLASS]: ['confidential'] });
    await catalog.setValues(fail, { [CLASS]: ['secret'] });
    for (const [name, rules] of cases) await create(`op-${name.replace(' ', '-')}`, onDatasets(rules));
    const testUrns = cases.map(([name]) => testUrn(`op-${name.replace(' ', '-')}`));
    const expected = testUrns.map((u) => u.replace('urn:li:test:', '')).sort();
    const passed = await evaluate(READER, { urn: pass, testUrns });
    expect({ passing: ids(passed.passing), failing: ids(passed.failing) }).toEqual({ passing: expected, failing: [] });
    const failed = await evaluate(READER, { urn: fail, testUrns });
    expect({ passing: ids(failed.passing), failing: ids(failed.failing) }).toEqual({ passing: [], failing: expected });
  });

  test('a pathological regular expression does not stall evaluation: it fails within its bound', async () => {
    const d = await dataset('mtests.redos', { name: 'redos', description: `${'a'.repeat(40)}!` });
    await create('redos', onDatasets([leaf('datasetProperties.description', 'regex_match', ['^(a+)+$'])]));
    await create('redos-2', onDatasets([leaf('datasetProperties.description', 'regex_match', ['(a|a)*'])]));
    const started = Date.now();
    const results = await evaluate(READER, { urn: d, testUrns: [testUrn('redos'), testUrn('redos-2')] });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(results).toEqual({ passing: [], failing: [{ test: testUrn('redos'), type: 'FAILURE' }, { test: testUrn('redos-2'), type: 'FAILURE' }] });
  });
});

describe('structured property values as readers see them', () => {
  const NUM = 'mtests.lifecycle.days';
  const STR = 'mtests.lifecycle.tier';
  let D: string;
  const outcome = async (id: string): Promise<'pass' | 'fail'> => ((await evaluate(READER, { urn: D, testUrns: [testUrn(id)] })).passing.length === 1 ? 'pass' : 'fail');

  beforeAll(async () => {
    await catalog.define(NUM, { valueType: 'number', cardinality: 'MULTIPLE' });
    await catalog.define(STR);
    D = await dataset('mtests.lifecycle');
    await catalog.setValues(D, { [NUM]: [60], [STR]: ['gold'] });
    await create('sp-days-is-60', onDatasets([leaf(`structuredProperties.${propertyUrn(NUM)}`, 'equals', ['60.0'])]));
    await create('sp-tier-is-gold', onDatasets([leaf(`structuredProperties.${propertyUrn(STR)}`, 'equals', ['gold'])]));
    await create('sp-days-exists', onDatasets([leaf(`structuredProperties.${propertyUrn(NUM)}`, 'exists')]));
  });

  test('numbers compare as 60.0 and strings as written', async () => {
    expect(await outcome('sp-days-is-60')).toBe('pass');
    expect(await outcome('sp-tier-is-gold')).toBe('pass');
  });

  test('values of a soft-deleted property are not seen, and are seen again after the restore', async () => {
    await catalog.softDelete(STR);
    expect(await outcome('sp-tier-is-gold')).toBe('fail');
    await catalog.softDelete(STR, false);
    expect(await outcome('sp-tier-is-gold')).toBe('pass');
  });

  test('after a versioned breaking change, old values are not seen and new ones are', async () => {
    await catalog.define(NUM, { valueType: 'number', cardinality: 'SINGLE', version: '20250101000000' });
    expect(await outcome('sp-days-exists')).toBe('fail');
    await catalog.setValues(D, { [NUM]: [60], [STR]: ['gold'] });
    expect(await outcome('sp-days-is-60')).toBe('pass');
  });

  test('values of a hard-deleted property are not seen', async () => {
    await runtime.services.properties.delete(ADMIN, propertyUrn(NUM));
    expect(await outcome('sp-days-exists')).toBe('fail');
    expect(await outcome('sp-tier-is-gold')).toBe('pass');
  });
});

describe('push', () => {
  let D: string;
  const some = [testUrn('push-pass'), testUrn('push-fail'), testUrn('push-out-of-scope')];

  beforeAll(async () => {
    D = await dataset('mtests.push', { name: 'fct_push' });
    await create('push-pass', onDatasets([leaf('datasetProperties.name', 'exists')]));
    await create('push-fail', onDatasets([leaf('datasetProperties.description', 'exists')]));
    await create('push-out-of-scope', definition({ on: { types: ['chart'] }, rules: [] }));
  });

  test('without push nothing is stored, and the receipt says nothing was written', async () => {
    expect((await tests().evaluate(READER, { urn: D, testUrns: some })).receipt).toEqual({ indexStatus: null, lastChange: 0n });
    expect((await tests().evaluate(READER, { urn: D, testUrns: some, push: false })).receipt).toEqual({ indexStatus: null, lastChange: 0n });
    expect(await tests().getTestResults(READER, D)).toBeNull();
  });

  test('push stores the results as the testResults aspect, through the aspect store (versioned, in the change log); the receipt names the change', async () => {
    const { result: results, receipt } = await tests().evaluate(WRITER, { urn: D, testUrns: some, push: true });
    expect(results).toEqual({ passing: [{ test: testUrn('push-pass'), type: 'SUCCESS' }], failing: [{ test: testUrn('push-fail'), type: 'FAILURE' }] });
    // Each stored result says when it was computed and by whom.
    const stamped = { lastComputed: { time: expect.any(Number), actor: WRITER.actor } };
    expect(await tests().getTestResults(READER, D)).toEqual({
      passing: results.passing.map((r) => ({ ...r, ...stamped })),
      failing: results.failing.map((r) => ({ ...r, ...stamped })),
    });
    const aspect = await runtime.services.entities.getAspect(READER, D, 'testResults');
    expect(aspect.systemMetadata).toMatchObject({ version: '1' });
    const logged = await withClient(runtime.databaseUrl, (c) => c.query(`SELECT count(*)::int AS n, max(id)::text AS id FROM change_log WHERE urn = $1 AND aspect = 'testResults'`, [D]));
    expect(logged.rows[0].n).toBe(1);
    expect(receipt.lastChange).toBe(BigInt(logged.rows[0].id));
    expect(receipt.indexStatus).not.toBeNull();
  });

  test('pushing a subset replaces only the results of the tests it ran', async () => {
    await writesOf(runtime.services).setAspect(WRITER, D, 'datasetProperties', { value: { name: 'fct_push', description: 'now described' } });
    const before = (await tests().getTestResults(READER, D))!;
    await evaluate(WRITER, { urn: D, testUrns: [testUrn('push-fail')], push: true });
    expect(await tests().getTestResults(READER, D)).toEqual({
      passing: [
        { test: testUrn('push-fail'), type: 'SUCCESS', lastComputed: { time: expect.any(Number), actor: WRITER.actor } },
        // Not evaluated: kept as it was, its time included.
        before.passing.find((r) => r.test === testUrn('push-pass')),
      ],
      failing: [],
    });
  });

  test('a testResults aspect of the wrong shape is a ValidationError naming the entry', async () => {
    const err = await rejection(writesOf(runtime.services).setAspect(WRITER, D, 'testResults', { value: { passing: [{ test: testUrn('x'), type: 'FAILURE' }], failing: [] } }), ValidationError);
    expect(err.message).toMatch(/passing\[0\]\.type must be "SUCCESS", not "FAILURE"/);
  });
});
