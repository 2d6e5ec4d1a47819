/**
 * Metadata tests over HTTP (docs/contract.md §7): tests written as REST v3 `testInfo`
 * aspects, evaluated with `POST /gms/test?action=evaluate`, results read back as the
 * entity's `testResults` aspect; and the TestService calls GraphQL resolvers make.
 */
import { LOCAL_CALLER } from '../../src/rest/caller.js';
import { enc, http, type HttpResponse } from '../support/http.js';
import { postgresAvailableForTests, startTestServer, type Backend, type TestServer } from '../support/server.js';

const V3 = '/openapi/v3';
const AUTH = { authorization: 'Bearer test-token' };
const ds = (name: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,${name},PROD)`;
const RETENTION = 'urn:li:structuredProperty:mtests.retention';
const CLASS = 'urn:li:structuredProperty:mtests.classification';
const testUrn = (id: string) => `urn:li:test:${id}`;

function leaf(property: string, operator: string, values?: unknown[]): Record<string, unknown> {
  return values === undefined ? { property, operator } : { property, operator, values };
}

let server: TestServer;

async function ok(res: Promise<HttpResponse>): Promise<HttpResponse> {
  const r = await res;
  if (r.status !== 200) throw new Error(`expected 200, got ${r.status}: ${r.text}`);
  return r;
}

function writeTest(id: string, definition: unknown, extra: Record<string, unknown> = {}): Promise<HttpResponse> {
  return http(server.url, 'POST', `${V3}/entity/test/${enc(testUrn(id))}/testInfo`, {
    query: { createIfNotExists: 'false' },
    json: { value: { name: `Test ${id}`, category: 'Governance', definition: { type: 'JSON', json: JSON.stringify(definition) }, ...extra } },
  });
}

async function defineProperty(urn: string, body: Record<string, unknown>): Promise<void> {
  await ok(
    http(server.url, 'POST', `${V3}/entity/structuredProperty/${enc(urn)}/propertyDefinition`, {
      query: { createIfNotExists: 'false' },
      json: { value: { qualifiedName: urn.split(':').pop(), entityTypes: ['urn:li:entityType:svc.dataset'], ...body } },
    }),
  );
}

async function createDataset(urn: string, datasetProperties?: Record<string, unknown>): Promise<void> {
  await ok(http(server.url, 'POST', `${V3}/entity/dataset`, { json: [{ urn, status: { value: { removed: false } } }] }));
  if (datasetProperties) {
    await ok(
      http(server.url, 'POST', `${V3}/entity/dataset/${enc(urn)}/datasetProperties`, { query: { createIfNotExists: 'false' }, json: { value: datasetProperties } }),
    );
  }
}

async function setProperties(urn: string, properties: Array<{ propertyUrn: string; values: unknown[] }>): Promise<void> {
  await ok(
    http(server.url, 'POST', `${V3}/entity/dataset/${enc(urn)}/structuredProperties`, { query: { createIfNotExists: 'false' }, json: { value: { properties } } }),
  );
}

function evaluate(body: unknown, options: { action?: string; path?: string; headers?: Record<string, string>; url?: string } = {}): Promise<HttpResponse> {
  return http(options.url ?? server.url, 'POST', options.path ?? '/gms/test', {
    query: { action: options.action ?? 'evaluate' },
    headers: options.headers ?? AUTH,
    json: body,
  });
}

/** The test ids among a result list, sorted. */
function ids(list: Array<{ test: string }>): string[] {
  return list.map((r) => r.test.replace('urn:li:test:', '')).sort();
}

const backends: Backend[] = postgresAvailableForTests() ? ['embedded', 'external'] : ['embedded'];

/** What push stamps on each result it stores: when, and who evaluated. */
const STAMP = { time: expect.any(Number), actor: expect.stringMatching(/^urn:li:corpuser:/) };

describe.each(backends)('metadata tests on %s', (backend) => {
  beforeAll(async () => {
    // The evaluate endpoint alone: the continuous evaluator would store results without push (test/services/testEvaluation.test.ts).
    server = await startTestServer({ backend, env: { TEST_EVALUATION: 'false' } });
  });

  afterAll(async () => {
    await server?.stop();
  });

  describe('tests as REST v3 entities', () => {
    test('a testInfo written over REST v3 reads back exactly as written', async () => {
      const def = { on: { types: ['dataset'] }, rules: [leaf('urn', 'exists')] };
      const written = await writeTest('rest-roundtrip', def, { description: 'every dataset has a urn' });
      expect(written.status).toBe(200);
      const read = await ok(http(server.url, 'GET', `${V3}/entity/test/${enc(testUrn('rest-roundtrip'))}/testInfo`));
      expect(read.body).toEqual({
        urn: testUrn('rest-roundtrip'),
        testInfo: {
          value: { name: 'Test rest-roundtrip', category: 'Governance', description: 'every dataset has a urn', definition: { type: 'JSON', json: JSON.stringify(def) } },
        },
      });
    });

    test('an invalid definition is refused with 400 naming the offending part', async () => {
      const res = await writeTest('rest-invalid', { on: { types: ['dataset'] }, rules: { or: [leaf('urn', 'exists'), leaf('urn', 'equal', ['x'])] } });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('Validation Error');
      expect(res.body.message).toMatch(/^Invalid test definition: rules\.or\[1\]\.operator: unknown operator "equal"/);
      expect((await http(server.url, 'GET', `${V3}/entity/test/${enc(testUrn('rest-invalid'))}`)).status).toBe(404);
    });

    test('a definition that is not JSON is refused with 400', async () => {
      const res = await http(server.url, 'POST', `${V3}/entity/test/${enc(testUrn('rest-notjson'))}/testInfo`, {
        json: { value: { name: 'n', category: 'c', definition: { type: 'JSON', json: '{"on": [' } } },
      });
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(/not valid JSON/);
    });

    test('a testResults aspect of the wrong shape is refused with 400', async () => {
      await createDataset(ds('mtests.shape'));
      const res = await http(server.url, 'POST', `${V3}/entity/dataset/${enc(ds('mtests.shape'))}/testResults`, {
        query: { createIfNotExists: 'false' },
        json: { value: { passing: [{ test: 'urn:li:test:x', type: 'FAILURE' }], failing: [] } },
      });
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(/passing\[0\]\.type must be "SUCCESS", not "FAILURE"/);
    });
  });

  describe('evaluate', () => {
    const A = ds('mtests.eval_a');
    const B = ds('mtests.eval_b');
    const T = ['eval-pass', 'eval-fail', 'eval-other-type', 'eval-condition-false'];

    beforeAll(async () => {
      await createDataset(A, { name: 'fct_orders', description: 'Orders' });
      await createDataset(B, { name: 'dim_customers' });
      await ok(writeTest(T[0]!, { on: { types: ['dataset'] }, rules: [leaf('datasetProperties.name', 'exists')] }));
      await ok(writeTest(T[1]!, { on: { types: ['dataset'] }, rules: [leaf('datasetProperties.description', 'exists')] }));
      await ok(writeTest(T[2]!, { on: { types: ['chart'] }, rules: [] }));
      await ok(writeTest(T[3]!, { on: { types: ['dataset'], conditions: [leaf('datasetProperties.name', 'starts_with', ['fct_'])] }, rules: [] }));
    });

    test('returns passing and failing tests; tests out of scope are in neither list', async () => {
      const res = await ok(evaluate({ urn: B, testUrns: T.map(testUrn) }));
      expect(res.body).toEqual({
        value: {
          passing: [{ test: testUrn('eval-pass'), type: 'SUCCESS' }],
          failing: [{ test: testUrn('eval-fail'), type: 'FAILURE' }],
        },
      });
    });

    test('conditions decide scope per entity', async () => {
      const res = await ok(evaluate({ urn: A, testUrns: T.map(testUrn) }));
      expect(ids(res.body.value.passing)).toEqual(['eval-condition-false', 'eval-fail', 'eval-pass']);
      expect(res.body.value.failing).toEqual([]);
    });

    test('without testUrns every test runs', async () => {
      const res = await ok(evaluate({ urn: B }));
      const all = [...ids(res.body.value.passing), ...ids(res.body.value.failing)];
      expect(all).toEqual(expect.arrayContaining(['eval-pass', 'eval-fail']));
      expect(all).not.toContain('eval-other-type');
      expect(all).not.toContain('eval-condition-false');
    });

    test('testUrns runs only the tests it names, and tests is an alias for it', async () => {
      const byTestUrns = await ok(evaluate({ urn: B, testUrns: [testUrn('eval-fail')] }));
      expect(byTestUrns.body).toEqual({ value: { passing: [], failing: [{ test: testUrn('eval-fail'), type: 'FAILURE' }] } });
      const byTests = await ok(evaluate({ urn: B, tests: [testUrn('eval-pass')] }));
      expect(byTests.body).toEqual({ value: { passing: [{ test: testUrn('eval-pass'), type: 'SUCCESS' }], failing: [] } });
    });

    test('is also served at /test', async () => {
      const res = await ok(evaluate({ urn: B, testUrns: [testUrn('eval-pass')] }, { path: '/test' }));
      expect(res.body.value.passing).toEqual([{ test: testUrn('eval-pass'), type: 'SUCCESS' }]);
    });

    test('batchEvaluate returns results per urn', async () => {
      const res = await ok(evaluate({ urns: [A, B], testUrns: [testUrn('eval-fail')] }, { action: 'batchEvaluate' }));
      expect(res.body).toEqual({
        value: {
          [A]: { passing: [{ test: testUrn('eval-fail'), type: 'SUCCESS' }], failing: [] },
          [B]: { passing: [], failing: [{ test: testUrn('eval-fail'), type: 'FAILURE' }] },
        },
      });
    });

    test('a soft-deleted test is not run', async () => {
      await ok(writeTest('eval-soft-deleted', { on: { types: ['dataset'] }, rules: [] }));
      await ok(http(server.url, 'POST', `${V3}/entity/test/${enc(testUrn('eval-soft-deleted'))}/status`, { query: { createIfNotExists: 'false' }, json: { value: { removed: true } } }));
      const res = await ok(evaluate({ urn: B }));
      expect(ids(res.body.value.passing)).not.toContain('eval-soft-deleted');
      const named = await evaluate({ urn: B, testUrns: [testUrn('eval-soft-deleted')] });
      expect(named.status).toBe(400);
      expect(named.body.message).toContain(testUrn('eval-soft-deleted'));
    });
  });

  describe('every operator over HTTP', () => {
    const PASS = ds('mtests.ops_pass');
    const FAIL = ds('mtests.ops_fail');
    const cases: Array<[string, Record<string, unknown>]> = [
      ['equals', leaf('datasetProperties.name', 'equals', ['fct_orders'])],
      ['contains_any', leaf(`structuredProperties.${CLASS}`, 'contains_any', ['public', 'confidential'])],
      ['contains_str', leaf('datasetProperties.description', 'contains_str', ['customer'])],
      ['starts_with', leaf('datasetProperties.name', 'starts_with', ['fct_'])],
      ['regex_match', leaf('datasetProperties.name', 'regex_match', ['fct_[a-z]+'])],
      ['greater_than', leaf(`structuredProperties.${RETENTION}`, 'greater_than', [90])],
      ['less_than', leaf(`structuredProperties.${RETENTION}`, 'less_than', ['400'])],
      ['exists', leaf(`structuredProperties.${RETENTION}`, 'exists')],
      ['is_true', leaf('datasetProperties.customProperties.certified', 'is_true')],
      ['is_false', leaf('datasetProperties.customProperties.deprecated', 'is_false')],
      ['and', { and: [leaf('datasetProperties.name', 'exists'), leaf('datasetProperties.description', 'contains_str', ['customer'])] }],
      ['or', { or: [leaf('datasetProperties.name', 'equals', ['x']), leaf('datasetProperties.description', 'contains_str', ['customer'])] }],
      ['not', { not: leaf('datasetProperties.customProperties.deprecated', 'is_true') }],
    ];

    beforeAll(async () => {
      await defineProperty(RETENTION, { valueType: 'urn:li:dataType:svc.number', cardinality: 'MULTIPLE' });
      await defineProperty(CLASS, { valueType: 'urn:li:dataType:svc.string' });
      await createDataset(PASS, { name: 'fct_orders', description: 'Orders by customers', customProperties: { certified: 'true', deprecated: 'false' } });
      await createDataset(FAIL, { name: 'dim_orders', description: 'Orders', customProperties: { certified: 'false', deprecated: 'true' } });
      await setProperties(PASS, [
        { propertyUrn: RETENTION, values: [{ double: 365 }] },
        { propertyUrn: CLASS, values: [{ string: 'confidential' }] },
      ]);
      await setProperties(FAIL, [{ propertyUrn: CLASS, values: [{ string: 'secret' }] }]);
      for (const [name, rules] of cases) await ok(writeTest(`op-${name}`, { on: { types: ['dataset'] }, rules }));
    });

    test('each operator passes on the entity that satisfies it and fails on the one that does not', async () => {
      const testUrns = cases.map(([name]) => testUrn(`op-${name}`));
      const expected = cases.map(([name]) => `op-${name}`).sort();
      const pass = await ok(evaluate({ urn: PASS, testUrns }));
      expect({ passing: ids(pass.body.value.passing), failing: ids(pass.body.value.failing) }).toEqual({ passing: expected, failing: [] });
      const fail = await ok(evaluate({ urn: FAIL, testUrns }));
      expect({ passing: ids(fail.body.value.passing), failing: ids(fail.body.value.failing) }).toEqual({ passing: [], failing: expected });
    });
  });

  describe('structured property values as readers see them', () => {
    const D = ds('mtests.lifecycle');
    const NUM = 'urn:li:structuredProperty:mtests.lifecycle.days';
    const STR = 'urn:li:structuredProperty:mtests.lifecycle.tier';
    const numTest = testUrn('sp-days-is-60');
    const strTest = testUrn('sp-tier-is-gold');
    const existsTest = testUrn('sp-days-exists');

    const outcome = async (test: string): Promise<'pass' | 'fail'> => {
      const res = await ok(evaluate({ urn: D, testUrns: [test] }));
      return res.body.value.passing.length === 1 ? 'pass' : 'fail';
    };

    beforeAll(async () => {
      await defineProperty(NUM, { valueType: 'urn:li:dataType:svc.number', cardinality: 'MULTIPLE' });
      await defineProperty(STR, { valueType: 'urn:li:dataType:svc.string' });
      await createDataset(D);
      await setProperties(D, [
        { propertyUrn: NUM, values: [{ double: 60 }] },
        { propertyUrn: STR, values: [{ string: 'gold' }] },
      ]);
      await ok(writeTest('sp-days-is-60', { on: { types: ['dataset'] }, rules: [leaf(`structuredProperties.${NUM}`, 'equals', ['60.0'])] }));
      await ok(writeTest('sp-tier-is-gold', { on: { types: ['dataset'] }, rules: [leaf(`structuredProperties.${STR}`, 'equals', ['gold'])] }));
      await ok(writeTest('sp-days-exists', { on: { types: ['dataset'] }, rules: [leaf(`structuredProperties.${NUM}`, 'exists')] }));
    });

    test('number values compare as 60.0 and string values as written', async () => {
      expect(await outcome(numTest)).toBe('pass');
      expect(await outcome(strTest)).toBe('pass');
    });

    test('values of a soft-deleted property are not seen, and are seen again after restore', async () => {
      const status = `${V3}/entity/structuredProperty/${enc(STR)}/status`;
      await ok(http(server.url, 'POST', status, { query: { createIfNotExists: 'false' }, json: { value: { removed: true } } }));
      expect(await outcome(strTest)).toBe('fail');
      await ok(http(server.url, 'POST', status, { query: { createIfNotExists: 'false' }, json: { value: { removed: false } } }));
      expect(await outcome(strTest)).toBe('pass');
    });

    test('after a versioned breaking change, old values are not seen and new ones are', async () => {
      await defineProperty(NUM, { valueType: 'urn:li:dataType:svc.number', cardinality: 'SINGLE', version: '20250101000000' });
      expect(await outcome(existsTest)).toBe('fail');
      expect(await outcome(numTest)).toBe('fail');
      await setProperties(D, [
        { propertyUrn: NUM, values: [{ double: 60 }] },
        { propertyUrn: STR, values: [{ string: 'gold' }] },
      ]);
      expect(await outcome(numTest)).toBe('pass');
    });

    test('values of a hard-deleted property are not seen', async () => {
      await ok(http(server.url, 'DELETE', `${V3}/entity/structuredProperty/${enc(NUM)}`));
      expect(await outcome(existsTest)).toBe('fail');
      expect(await outcome(strTest)).toBe('pass');
    });
  });

  describe('push', () => {
    const D = ds('mtests.push');
    const results = () => http(server.url, 'GET', `${V3}/entity/dataset/${enc(D)}/testResults`);

    beforeAll(async () => {
      await createDataset(D, { name: 'fct_push' });
      await ok(writeTest('push-pass', { on: { types: ['dataset'] }, rules: [leaf('datasetProperties.name', 'exists')] }));
      await ok(writeTest('push-fail', { on: { types: ['dataset'] }, rules: [leaf('datasetProperties.description', 'exists')] }));
      await ok(writeTest('push-out-of-scope', { on: { types: ['chart'] }, rules: [] }));
    });

    const some = [testUrn('push-pass'), testUrn('push-fail'), testUrn('push-out-of-scope')];

    test('push false (the default) stores nothing', async () => {
      await ok(evaluate({ urn: D, testUrns: some }));
      await ok(evaluate({ urn: D, testUrns: some, push: false }));
      expect((await results()).status).toBe(404);
    });

    test('push true stores the results as the testResults aspect, readable over REST, each stamped with when and by whom', async () => {
      const res = await ok(evaluate({ urn: D, testUrns: some, push: true }));
      const read = await ok(results());
      expect(res.body.value).toEqual({ passing: [{ test: testUrn('push-pass'), type: 'SUCCESS' }], failing: [{ test: testUrn('push-fail'), type: 'FAILURE' }] });
      expect(read.body).toEqual({
        urn: D,
        testResults: {
          value: {
            passing: [{ test: testUrn('push-pass'), type: 'SUCCESS', lastComputed: STAMP }],
            failing: [{ test: testUrn('push-fail'), type: 'FAILURE', lastComputed: STAMP }],
          },
        },
      });
    });

    test('the pushed results go through the aspect store: versioned and in the change log', async () => {
      const read = await ok(http(server.url, 'GET', `${V3}/entity/dataset/${enc(D)}/testResults`, { query: { systemMetadata: 'true' } }));
      expect(read.body.testResults.systemMetadata.version).toBe('1');
      const rows = await server.database.sql.query(`SELECT count(*)::int AS n FROM change_log WHERE urn = $1 AND aspect = 'testResults'`, [D]);
      expect(rows[0]!.n).toBe(1);
    });

    test('pushing a subset replaces only the results of the tests it ran', async () => {
      await ok(
        http(server.url, 'POST', `${V3}/entity/dataset/${enc(D)}/datasetProperties`, {
          query: { createIfNotExists: 'false' },
          json: { value: { name: 'fct_push', description: 'now described' } },
        }),
      );
      const before = (await ok(results())).body.testResults.value;
      await ok(evaluate({ urn: D, testUrns: [testUrn('push-fail')], push: true }));
      const read = await ok(results());
      expect(read.body.testResults.value).toEqual({
        passing: [
          { test: testUrn('push-fail'), type: 'SUCCESS', lastComputed: STAMP },
          // Not evaluated: kept as it was, its time included.
          before.passing[0],
        ],
        failing: [],
      });
    });
  });

  describe('errors', () => {
    const D = ds('mtests.errors');

    beforeAll(async () => {
      await createDataset(D);
    });

    test('an unknown entity is 404', async () => {
      const res = await evaluate({ urn: ds('mtests.nowhere') });
      expect(res.status).toBe(404);
      expect(res.body.error).toBe('Not Found');
    });

    test('a schema field of an existing dataset exists even without aspects of its own', async () => {
      const res = await evaluate({ urn: `urn:li:schemaField:(${D},no.aspects.yet)` });
      expect(res.status).toBe(200);
      expect(res.body.value).toEqual({ passing: expect.any(Array), failing: expect.any(Array) });
    });

    test('a malformed entity urn is 400 Invalid urn', async () => {
      const res = await evaluate({ urn: 'urn:li:dataset:(broken' });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('Invalid urn!: urn:li:dataset:(broken');
    });

    test.each<[string, unknown, RegExp]>([
      ['a missing urn', { push: true }, /urn is required/],
      ['a urn that is not a string', { urn: 42 }, /^urn must be a string, not 42$/],
      ['a push that is not a boolean', { urn: D, push: 'yes' }, /push must be true or false/],
      ['testUrns that is not a list', { urn: D, testUrns: 'urn:li:test:x' }, /testUrns must be a list/],
      ['both testUrns and tests', { urn: D, testUrns: [], tests: [] }, /testUrns or its alias tests, not both/],
      ['an unknown field', { urn: D, tset: [] }, /^tset is not a known field; expected one of urn, push, testUrns, tests$/],
      ['a misspelt field', { urn: D, tsetUrns: [] }, /^tsetUrns is not a known field; did you mean 'testUrns'\?$/],
      ['a body that is not an object', [D], /request body must be a JSON object/],
    ])('%s is 400 naming the field', async (_name, body, message) => {
      const res = await evaluate(body);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('Validation Error');
      expect(res.body.message).toMatch(message);
    });

    test('an unknown test urn in testUrns is 400 naming it', async () => {
      const res = await evaluate({ urn: D, testUrns: [testUrn('does-not-exist')] });
      expect(res.status).toBe(400);
      expect(res.body.message).toBe(`Unknown test urn in testUrns: ${testUrn('does-not-exist')}`);
    });

    test('a testUrns entry that is not a test urn is 400 naming it', async () => {
      const res = await evaluate({ urn: D, testUrns: ['urn:li:tag:pii'] });
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(/testUrns\[0\] must be a test urn.*urn:li:tag:pii/);
    });

    test('a missing or unknown action is 400', async () => {
      const missing = await http(server.url, 'POST', '/gms/test', { headers: AUTH, json: { urn: D } });
      expect(missing.status).toBe(400);
      expect(missing.body.message).toMatch(/action is required/);
      const unknown = await evaluate({ urn: D }, { action: 'run' });
      expect(unknown.status).toBe(400);
      expect(unknown.body.message).toMatch(/Unknown action "run"/);
    });

    test('batchEvaluate with an unknown entity is 404 naming it', async () => {
      const res = await evaluate({ urns: [D, ds('mtests.nowhere')] }, { action: 'batchEvaluate' });
      expect(res.status).toBe(404);
      expect(res.body.message).toContain(ds('mtests.nowhere'));
    });
  });

  describe('a pathological regex', () => {
    const D = ds('mtests.redos');

    beforeAll(async () => {
      await createDataset(D, { name: 'redos', description: `${'a'.repeat(40)}!` });
      await ok(writeTest('redos', { on: { types: ['dataset'] }, rules: [leaf('datasetProperties.description', 'regex_match', ['^(a+)+$'])] }));
      await ok(writeTest('redos-2', { on: { types: ['dataset'] }, rules: [leaf('datasetProperties.description', 'regex_match', ['(a|a)*'])] }));
    });

    test('does not stall the server: the request returns within a bound and the test fails', async () => {
      const started = Date.now();
      const res = await ok(evaluate({ urn: D, testUrns: [testUrn('redos'), testUrn('redos-2')] }));
      expect(Date.now() - started).toBeLessThan(5000);
      expect(res.body.value).toEqual({ passing: [], failing: [{ test: testUrn('redos'), type: 'FAILURE' }, { test: testUrn('redos-2'), type: 'FAILURE' }] });
      expect((await http(server.url, 'GET', '/health')).status).toBe(200);
    });
  });

  describe('authentication', () => {
    let secured: TestServer;
    const D = ds('mtests.auth');

    beforeAll(async () => {
      secured = await startTestServer({ backend, env: { AUTH_ENABLED: 'true', ROOT_TOKEN: 'root-secret' } });
      await ok(http(secured.url, 'POST', `${V3}/entity/dataset`, { json: [{ urn: D, status: { value: { removed: false } } }], headers: { authorization: 'Bearer root-secret' } }));
    });

    afterAll(async () => {
      await secured?.stop();
    });

    test.each<[string, Record<string, string>]>([
      ['no Authorization header', {}],
      ['a scheme other than Bearer', { authorization: 'Basic cm9vdDpzZWNyZXQ=' }],
      ['an empty bearer token', { authorization: 'Bearer ' }],
      ['a wrong token', { authorization: 'Bearer not-the-secret' }],
    ])('%s is 401', async (_name, headers) => {
      const res = await evaluate({ urn: D }, { url: secured.url, headers });
      expect(res.status).toBe(401);
      expect(res.body.error).toBe('Unauthorized');
    });

    test('the token is checked before the body', async () => {
      const res = await http(secured.url, 'POST', '/gms/test', { query: { action: 'evaluate' }, body: '{not json', contentType: 'application/json' });
      expect(res.status).toBe(401);
    });

    test('the right token is accepted', async () => {
      const res = await evaluate({ urn: D }, { url: secured.url, headers: { authorization: 'Bearer root-secret' } });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ value: { passing: [], failing: [] } });
    });
  });

  describe('TestService (what the GraphQL resolvers call)', () => {
    const caller = LOCAL_CALLER;
    const json = JSON.stringify({ on: { types: ['dataset'] }, rules: [leaf('datasetProperties.name', 'exists')] });

    test('createTest stores a test under the given id, or a generated one, and getTest reads it', async () => {
      const tests = server.services.tests;
      const { result: urn } = await tests.createTest(caller, { id: 'svc-created', name: 'Named', category: 'Quality', description: 'd', definition: { json } });
      expect(urn).toBe(testUrn('svc-created'));
      expect(await tests.getTest(caller, urn)).toEqual({
        urn,
        name: 'Named',
        category: 'Quality',
        description: 'd',
        definition: { type: 'JSON', json },
      });
      const { result: generated } = await tests.createTest(caller, { name: 'Generated', category: 'Quality', definition: { json } });
      expect(generated).toMatch(/^urn:li:test:[0-9a-f-]{36}$/);
    });

    test('createTest refuses an existing id and an invalid definition', async () => {
      const tests = server.services.tests;
      await tests.createTest(caller, { id: 'svc-dup', name: 'n', category: 'c', definition: { json } });
      await expect(tests.createTest(caller, { id: 'svc-dup', name: 'n', category: 'c', definition: { json } })).rejects.toThrow(/already exists/);
      await expect(tests.createTest(caller, { id: 'svc-bad', name: 'n', category: 'c', definition: { json: '{"on": {"types": []}, "rules": []}' } })).rejects.toThrow(
        /on\.types: must name at least one entity type/,
      );
      await expect(tests.createTest(caller, { id: 'has space', name: 'n', category: 'c', definition: { json } })).rejects.toThrow(/cannot be a test id/);
    });

    test('updateTest replaces the test; a missing test is not found', async () => {
      const tests = server.services.tests;
      const { result: urn } = await tests.createTest(caller, { id: 'svc-update', name: 'Before', category: 'c', description: 'old', definition: { json } });
      await tests.updateTest(caller, urn, { name: 'After', category: 'c2', definition: { json } });
      expect(await tests.getTest(caller, urn)).toEqual({ urn, name: 'After', category: 'c2', definition: { type: 'JSON', json } });
      await expect(tests.updateTest(caller, testUrn('svc-missing'), { name: 'x', category: 'c', definition: { json } })).rejects.toThrow(/does not exist/);
      expect(await tests.getTest(caller, testUrn('svc-missing'))).toBeNull();
    });

    test('deleteTest removes the test and says whether there was one', async () => {
      const tests = server.services.tests;
      const { result: urn } = await tests.createTest(caller, { id: 'svc-delete', name: 'n', category: 'c', definition: { json } });
      expect((await tests.deleteTest(caller, urn)).result).toBe(true);
      expect(await tests.getTest(caller, urn)).toBeNull();
      expect((await tests.deleteTest(caller, urn)).result).toBe(false);
    });

    test('listTests pages and filters by text', async () => {
      const tests = server.services.tests;
      for (const id of ['list-1', 'list-2', 'list-3']) {
        await tests.createTest(caller, { id: `svc-${id}`, name: `Listable ${id}`, category: 'Listing', definition: { json } });
      }
      const page = await tests.listTests(caller, { start: 1, count: 1, query: 'listable' });
      expect(page).toMatchObject({ start: 1, count: 1, total: 3 });
      expect(page.tests.map((t) => t.urn)).toEqual([testUrn('svc-list-2')]);
      const all = await tests.listTests(caller, { start: 0, count: 1000 });
      expect(all.total).toBeGreaterThanOrEqual(3);
      expect(all.tests.every((t) => t.urn.startsWith('urn:li:test:'))).toBe(true);
    });

    test('validateTest reports the reason without storing anything', () => {
      const tests = server.services.tests;
      expect(tests.validateTest(json)).toEqual({ valid: true });
      expect(tests.validateTest('{"on": {"types": ["dataset"]}, "rules": [{"property": "urn"}]}')).toEqual({
        valid: false,
        error: 'Invalid test definition: rules[0].operator: is required; one of equals, contains_any, contains_str, starts_with, regex_match, greater_than, less_than, exists, is_true, is_false',
      });
    });

    test('getTestResults reads what evaluate pushed', async () => {
      const tests = server.services.tests;
      const D = ds('mtests.service_push');
      await createDataset(D, { name: 'x' });
      const { result: urn } = await tests.createTest(caller, { id: 'svc-push', name: 'n', category: 'c', definition: { json } });
      expect(await tests.getTestResults(caller, D)).toBeNull();
      const unpushed = await tests.evaluate(caller, { urn: D, testUrns: [urn] });
      expect(unpushed.receipt.indexStatus).toBeNull();
      const { result: results, receipt } = await tests.evaluate(caller, { urn: D, push: true, testUrns: [urn] });
      expect(results).toEqual({ passing: [{ test: urn, type: 'SUCCESS' }], failing: [] });
      expect(receipt.indexStatus).not.toBeNull();
      expect(receipt.lastChange).toBeGreaterThan(0n);
      expect(await tests.getTestResults(caller, D)).toEqual({ passing: [{ test: urn, type: 'SUCCESS', lastComputed: { time: expect.any(Number), actor: caller.actor } }], failing: [] });
    });
  });
});
