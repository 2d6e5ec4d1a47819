/**
 * Metadata tests over GraphQL (docs/contract.md §7, §8): create, read, list, update, validate and
 * delete tests, Dataset.testResults after an evaluation with push, and Test as a
 * federation entity.
 */
import { http } from '../support/http.js';
import { graphql } from '../support/graphql.js';
import { createDatasets, datasetUrnOf, defineProperty, setProperties } from '../support/fixtures.js';
import { startTestServer, type TestServer } from '../support/server.js';

let server: TestServer;
let url: string;
let retention: string;

beforeAll(async () => {
  // What push stores, alone: the continuous evaluator would add every test's results (test/services/testEvaluation.test.ts).
  server = await startTestServer({ env: { TEST_EVALUATION: 'false' } });
  url = server.url;
  retention = await defineProperty(url, 'io.gqltests.retention', { valueType: 'urn:li:dataType:svc.number' });
});
afterAll(async () => {
  await server.stop();
});

const definition = (min: number) =>
  JSON.stringify({
    on: { types: ['dataset'] },
    rules: [{ property: `structuredProperties.${'urn:li:structuredProperty:io.gqltests.retention'}`, operator: 'greater_than', values: [String(min)] }],
  });

const CREATE = `mutation c($input: CreateTestInput!) { createTest(input: $input) }`;
const GET = `query t($urn: String!) { test(urn: $urn) { urn type name category description definition { json } } }`;

test('createTest returns the urn, and test(urn) reads it back', async () => {
  const res = await graphql(url, CREATE, { input: { id: 'retention-30', name: 'Retention >= 30', category: 'Governance', description: 'd', definition: { json: definition(29) } } });
  expect(res.errors).toBeUndefined();
  expect(res.data.createTest).toBe('urn:li:test:retention-30');
  const read = await graphql(url, GET, { urn: 'urn:li:test:retention-30' });
  expect(read.data.test).toEqual({ urn: 'urn:li:test:retention-30', type: 'TEST', name: 'Retention >= 30', category: 'Governance', description: 'd', definition: { json: definition(29) } });
});

test('createTest without an id generates one; an invalid definition is BAD_USER_INPUT naming the problem', async () => {
  const res = await graphql(url, CREATE, { input: { name: 'Generated', category: 'Quality', definition: { json: definition(1) } } });
  expect(res.data.createTest).toMatch(/^urn:li:test:[0-9a-f-]{36}$/);
  const bad = await graphql(url, CREATE, { input: { name: 'Bad', category: 'Quality', definition: { json: '{"on": {"types": ["dataset"]}, "rules": [{"property": "urn", "operator": "sounds_like"}]}' } } });
  expect(bad.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  expect(bad.errors?.[0]?.message).toMatch(/operator/);
});

test('validateTest checks a definition without storing it', async () => {
  const ok = await graphql(url, 'query v($j: String) { validateTest(input: {json: $j}) { valid error } }', { j: definition(5) });
  expect(ok.data.validateTest).toEqual({ valid: true, error: null });
  const bad = await graphql(url, 'query v($j: String) { validateTest(input: {json: $j}) { valid error } }', { j: '{"rules": []}' });
  expect(bad.data.validateTest.valid).toBe(false);
  expect(bad.data.validateTest.error).toMatch(/on/);
});

test('listTests pages through tests and filters by query', async () => {
  await graphql(url, CREATE, { input: { id: 'list-a', name: 'Alpha check', category: 'Lists', definition: { json: definition(1) } } });
  await graphql(url, CREATE, { input: { id: 'list-b', name: 'Beta check', category: 'Lists', definition: { json: definition(1) } } });
  const res = await graphql(url, 'query l($i: ListTestsInput!) { listTests(input: $i) { start count total tests { urn name } } }', { i: { start: 0, count: 1, query: 'check' } });
  expect(res.errors).toBeUndefined();
  expect(res.data.listTests).toMatchObject({ start: 0, count: 1, total: 2 });
  expect(res.data.listTests.tests).toEqual([{ urn: 'urn:li:test:list-a', name: 'Alpha check' }]);
});

test('updateTest replaces the test; deleteTest removes it', async () => {
  await graphql(url, CREATE, { input: { id: 'to-change', name: 'Old', category: 'C', definition: { json: definition(1) } } });
  const upd = await graphql(url, 'mutation u($urn: String!, $i: UpdateTestInput!) { updateTest(urn: $urn, input: $i) }', {
    urn: 'urn:li:test:to-change',
    i: { name: 'New', category: 'C2', definition: { json: definition(2) } },
  });
  expect(upd.data.updateTest).toBe('urn:li:test:to-change');
  expect((await graphql(url, GET, { urn: 'urn:li:test:to-change' })).data.test).toMatchObject({ name: 'New', category: 'C2', description: null });
  const del = await graphql(url, 'mutation d($urn: String!) { deleteTest(urn: $urn) }', { urn: 'urn:li:test:to-change' });
  expect(del.data.deleteTest).toBe(true);
  expect((await graphql(url, GET, { urn: 'urn:li:test:to-change' })).data.test).toBeNull();
});

test('Dataset.testResults shows the results pushed by an evaluation', async () => {
  await graphql(url, CREATE, { input: { id: 'results-60', name: 'Retention >= 60', category: 'Governance', definition: { json: definition(59) } } });
  const dataset = datasetUrnOf('gqltests.orders');
  await createDatasets(url, [dataset]);
  await setProperties(url, dataset, [{ propertyUrn: retention, values: [{ double: 45 }] }]);
  const evaluated = await http(url, 'POST', '/gms/test', {
    query: { action: 'evaluate' },
    json: { urn: dataset, push: true, testUrns: ['urn:li:test:retention-30', 'urn:li:test:results-60'] },
    headers: { authorization: 'Bearer any' },
  });
  expect(evaluated.status).toBe(200);
  const res = await graphql(url, 'query d($urn: String!) { dataset(urn: $urn) { testResults { passing { test { urn name } type lastComputed { time actor } } failing { test { urn } type } } } }', { urn: dataset });
  expect(res.errors).toBeUndefined();
  expect(res.data.dataset.testResults).toEqual({
    passing: [{ test: { urn: 'urn:li:test:retention-30', name: 'Retention >= 30' }, type: 'SUCCESS', lastComputed: { time: expect.any(Number), actor: expect.stringMatching(/^urn:li:corpuser:/) } }],
    failing: [{ test: { urn: 'urn:li:test:results-60' }, type: 'FAILURE' }],
  });
});

test('_entities resolves a Test reference by urn', async () => {
  const res = await graphql(url, 'query e($r: [_Any!]!) { _entities(representations: $r) { ... on Test { urn name } } }', {
    r: [{ __typename: 'Test', urn: 'urn:li:test:retention-30' }, { __typename: 'Test', urn: 'urn:li:test:nope' }],
  });
  expect(res.errors).toBeUndefined();
  expect(res.data._entities).toEqual([{ urn: 'urn:li:test:retention-30', name: 'Retention >= 30' }, null]);
});
