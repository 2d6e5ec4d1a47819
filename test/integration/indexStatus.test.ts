/**
 * Read-your-writes is explicit (docs/contract.md §12): with WRITE_WAIT_FOR_INDEX=true a write says
 * whether its changes were in the search index when it answered: `X-Index-Status:
 * indexed`, or `pending` when it answered first (the INDEX_WAIT_MS bound ran out, or
 * async=true); GraphQL mutations say it in `extensions.indexStatus` as well. Reads
 * carry no such header.
 */
import { graphql } from '../support/graphql.js';
import { createDatasets, datasetUrnOf, defineProperty, setProperties, V3 } from '../support/fixtures.js';
import { enc, http } from '../support/http.js';
import { searchAvailableForTests, startTestServer, type TestServer } from '../support/server.js';

const CREATE = `mutation c($input: CreateStructuredPropertyInput!) { createStructuredProperty(input: $input) { urn } }`;

(searchAvailableForTests() ? describe : describe.skip)('X-Index-Status (docs/contract.md §12)', () => {
  let waiting: TestServer;
  let impatient: TestServer;

  beforeAll(async () => {
    // A generous bound: on a loaded machine the index may lag seconds behind.
    waiting = await startTestServer({ search: true, env: { INDEX_WAIT_MS: '120000' } });
    // A bound of 0: every write answers before the index can have caught up.
    impatient = await startTestServer({ search: true, env: { INDEX_WAIT_MS: '0' } });
  });
  afterAll(async () => {
    await waiting?.stop();
    await impatient?.stop();
  });

  test('a write that waited for the index says indexed, and a search right after it sees the write', async () => {
    const urn = datasetUrnOf('status.indexed');
    const res = await http(waiting.url, 'POST', `${V3}/entity/dataset`, { json: [{ urn, status: { value: { removed: false } } }] });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-index-status')).toBe('indexed');
    const found = await http(waiting.url, 'GET', `${V3}/entity/dataset`, { query: { query: `urn:"${urn}"` } });
    expect(found.body.entities.map((e: { urn: string }) => e.urn)).toEqual([urn]);
    expect(found.headers.get('x-index-status')).toBeNull();
  });

  test('writes waiting together (one check per batch answers them all) each say indexed and each is found', async () => {
    const urns = Array.from({ length: 24 }, (_, i) => datasetUrnOf(`status.together${i}`));
    const answers = await Promise.all(urns.map((urn) => http(waiting.url, 'POST', `${V3}/entity/dataset`, { json: [{ urn, status: { value: { removed: false } } }] })));
    expect(answers.map((r) => [r.status, r.headers.get('x-index-status')])).toEqual(urns.map(() => [200, 'indexed']));
    for (const urn of urns) {
      const found = await http(waiting.url, 'GET', `${V3}/entity/dataset`, { query: { query: `urn:"${urn}"` } });
      expect(found.body.entities.map((e: { urn: string }) => e.urn)).toEqual([urn]);
    }
  });

  test('a write that answered before the index caught up says pending', async () => {
    const res = await http(impatient.url, 'POST', `${V3}/entity/dataset`, { json: [{ urn: datasetUrnOf('status.pending'), status: { value: { removed: false } } }] });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-index-status')).toBe('pending');
  });

  test('async=true returns at commit: pending', async () => {
    const res = await http(waiting.url, 'POST', `${V3}/entity/dataset`, {
      query: { async: 'true' },
      json: [{ urn: datasetUrnOf('status.async'), status: { value: { removed: false } } }],
    });
    expect(res.headers.get('x-index-status')).toBe('pending');
  });

  test('value writes and deletes say it too', async () => {
    const property = await defineProperty(waiting.url, 'status.tier', { valueType: 'urn:li:dataType:svc.string' });
    const urn = datasetUrnOf('status.values');
    await createDatasets(waiting.url, [urn]);
    const set = await setProperties(waiting.url, urn, [{ propertyUrn: property, values: [{ string: 'gold' }] }]);
    expect(set.headers.get('x-index-status')).toBe('indexed');
    const deleted = await http(waiting.url, 'DELETE', `${V3}/entity/dataset/${enc(urn)}`);
    expect(deleted.headers.get('x-index-status')).toBe('indexed');
  });

  test('a GraphQL mutation says it in the header and in extensions.indexStatus', async () => {
    const input = { id: 'status.gql', qualifiedName: 'status.gql', valueType: 'urn:li:dataType:svc.string', entityTypes: ['urn:li:entityType:svc.dataset'] };
    const done = await graphql(waiting.url, CREATE, { input });
    expect(done.errors).toBeUndefined();
    expect(done.response.headers.get('x-index-status')).toBe('indexed');
    expect(done.response.body.extensions.indexStatus).toBe('indexed');
    const early = await graphql(impatient.url, CREATE, { input });
    expect(early.response.headers.get('x-index-status')).toBe('pending');
    expect(early.response.body.extensions.indexStatus).toBe('pending');
  });

  test('a GraphQL query carries no index status', async () => {
    const res = await graphql(waiting.url, '{ listTests(input: {}) { total } }');
    expect(res.response.headers.get('x-index-status')).toBeNull();
    expect(res.response.body.extensions?.indexStatus).toBeUndefined();
  });
});
