/**
 * Explaining a search (X-Propgraph-Explain): an admin gets the exact requests its
 * searches sent to Meilisearch, on GraphQL and REST; sent straight to the engine, such a
 * request finds the same entities. Other scopes get nothing.
 */
import { datasetUrn, propertyUrn, V3 } from '../support/catalog.js';
import { enc, http } from '../support/http.js';
import { searchAvailableForTests, sharedMeilisearch, startTestServer, type TestServer } from '../support/server.js';

const ROOT = 'explain-root-secret';
const admin = { authorization: `Bearer ${ROOT}` };

interface EngineRequest {
  path: string;
  body: { queries: Array<{ indexUid: string }> };
}

function engineRequests(headers: Headers): EngineRequest[] | null {
  const raw = headers.get('x-propgraph-engine-requests');
  return raw === null ? null : (JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as EngineRequest[]);
}

async function direct(request: EngineRequest): Promise<string[]> {
  const meili = sharedMeilisearch();
  const res = await fetch(`${meili.url}${request.path}`, { method: 'POST', headers: { authorization: `Bearer ${meili.key}`, 'content-type': 'application/json' }, body: JSON.stringify(request.body) });
  expect(res.status).toBe(200);
  const { results } = (await res.json()) as { results: Array<{ hits: Array<{ urn: string }> }> };
  return results.flatMap((r) => r.hits.map((h) => h.urn)).sort();
}

(searchAvailableForTests() ? describe : describe.skip)('search explanation', () => {
  let server: TestServer;
  let readToken: string;
  const urns = [datasetUrn('explain.a'), datasetUrn('explain.b'), datasetUrn('explain.c')];

  beforeAll(async () => {
    server = await startTestServer({ search: true, env: { AUTH_ENABLED: 'true', ROOT_TOKEN: ROOT } });
    const p = propertyUrn('explain.score');
    expect((await http(server.url, 'POST', `${V3}/entity/structuredProperty/${enc(p)}/propertyDefinition`, { headers: admin, json: { value: { qualifiedName: 'explain.score', valueType: 'urn:li:dataType:svc.number', entityTypes: ['urn:li:entityType:svc.dataset'] } } })).status).toBe(200);
    const batch = urns.map((urn, i) => ({ urn, status: { value: { removed: false } }, structuredProperties: { value: { properties: [{ propertyUrn: p, values: [{ double: i * 10 }] }] } } }));
    expect((await http(server.url, 'POST', `${V3}/entity/dataset`, { headers: admin, json: batch })).status).toBe(200);
    const token = await http(server.url, 'POST', `${V3}/tokens`, { headers: admin, json: { name: 'reader', scope: 'read' } });
    readToken = token.body.accessToken;
  });
  afterAll(() => server?.stop());

  const scroll = { query: '{ scrollAcrossEntities(input: {types: [DATASET], query: "*", count: 10, orFilters: [{and: [{field: "structuredProperties.explain.score", condition: GREATER_THAN, values: ["5.0"]}]}]}) { searchResults { entity { urn } } } }' };

  test('an admin asking on GraphQL gets the engine request, and sent directly it finds the same datasets', async () => {
    const res = await http(server.url, 'POST', '/api/graphql', { headers: { ...admin, 'x-propgraph-explain': 'true' }, json: scroll });
    expect(res.status).toBe(200);
    const found = (res.body.data.scrollAcrossEntities.searchResults as Array<{ entity: { urn: string } }>).map((r) => r.entity.urn).sort();
    expect(found).toEqual([urns[1], urns[2]].sort());
    const requests = engineRequests(res.headers);
    expect(requests).toHaveLength(1);
    expect(requests![0]!.path).toBe('/multi-search');
    expect(await direct(requests![0]!)).toEqual(found);
  });

  test('REST search explains itself the same way', async () => {
    const res = await http(server.url, 'GET', `${V3}/entity/dataset`, { headers: { ...admin, 'x-propgraph-explain': 'true' }, query: { query: 'structuredProperties.explain_score:>5' } });
    expect(res.status).toBe(200);
    const requests = engineRequests(res.headers);
    expect(requests!.length).toBeGreaterThan(0);
    expect(await direct(requests![0]!)).toEqual([urns[1], urns[2]].sort());
  });

  test('without the header, or without admin scope, nothing is explained', async () => {
    expect(engineRequests((await http(server.url, 'POST', '/api/graphql', { headers: admin, json: scroll })).headers)).toBeNull();
    const asReader = await http(server.url, 'POST', '/api/graphql', { headers: { authorization: `Bearer ${readToken}`, 'x-propgraph-explain': 'true' }, json: scroll });
    expect(asReader.status).toBe(200);
    expect(engineRequests(asReader.headers)).toBeNull();
  });
});
