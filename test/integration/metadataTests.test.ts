/**
 * Metadata tests over HTTP (docs/contract.md §7): tests written as REST v3 `testInfo`
 * aspects, evaluated with `POST /gms/test?action=evaluate`, results read back as the
 * entity's `testResults` aspect: the routes, their bodies and answers, and the token
 * check. What evaluation decides (scope, conditions, operators, values as readers see
 * them, push merging, bounded regexes) is tested at the service, in
 * test/services/tests.test.ts; this suite runs on one backend.
 */
import { enc, http, type HttpResponse } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';

const V3 = '/openapi/v3';
const AUTH = { authorization: 'Bearer test-token' };
const ds = (name: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,${name},PROD)`;
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

async function createDataset(urn: string, datasetProperties?: Record<string, unknown>): Promise<void> {
  await ok(http(server.url, 'POST', `${V3}/entity/dataset`, { json: [{ urn, status: { value: { removed: false } } }] }));
  if (datasetProperties) {
    await ok(
      http(server.url, 'POST', `${V3}/entity/dataset/${enc(urn)}/datasetProperties`, { query: { createIfNotExists: 'false' }, json: { value: datasetProperties } }),
    );
  }
}

function evaluate(body: unknown, options: { action?: string; path?: string; headers?: Record<string, string>; url?: string } = {}): Promise<HttpResponse> {
  return http(options.url ?? server.url, 'POST', options.path ?? '/gms/test', {
    query: { action: options.action ?? 'evaluate' },
    headers: options.headers ?? AUTH,
    json: body,
  });
}

/** What push stamps on each result it stores: when, and who evaluated. */
const STAMP = { time: expect.any(Number), actor: expect.stringMatching(/^urn:li:corpuser:/) };

describe('metadata tests over HTTP', () => {
  beforeAll(async () => {
    // The evaluate endpoint alone: the continuous evaluator would store results without push (test/services/testEvaluation.test.ts).
    server = await startTestServer({ env: { TEST_EVALUATION: 'false' } });
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

    test('a missing or unknown action is 400', async () => {
      const missing = await http(server.url, 'POST', '/gms/test', { headers: AUTH, json: { urn: D } });
      expect(missing.status).toBe(400);
      expect(missing.body.message).toMatch(/action is required/);
      const unknown = await evaluate({ urn: D }, { action: 'run' });
      expect(unknown.status).toBe(400);
      expect(unknown.body.message).toMatch(/Unknown action "run"/);
    });
  });

  describe('authentication', () => {
    let secured: TestServer;
    const D = ds('mtests.auth');

    beforeAll(async () => {
      secured = await startTestServer({ env: { AUTH_ENABLED: 'true', ROOT_TOKEN: 'root-secret' } });
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
});
