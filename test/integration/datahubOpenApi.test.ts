/**
 * Issue #13, the OpenAPI half: the OpenAPI v3 and trace steps of DataHub's client flows
 * (test/fixtures/datahub-client), replayed byte for byte with the client replay runner
 * on their own, so they are proved before the Rest.li steps around them (handshake,
 * hard delete) exist; and the error answers of these routes: a 400 naming the field
 * and the fix, never a 500.
 */
import { loadClientFixture, replayFlow, urnsOfFlow, type ClientFixture } from '../support/datahubReplay.js';
import { deleteUrns, startReplayServer, type ReplayServer } from '../support/replayServer.js';
import { http } from '../support/http.js';
import { startMeilisearch } from '../support/globalSetup.js';
import { searchAvailableForTests, startTestServer } from '../support/server.js';

let server: ReplayServer;
const auth = () => ({ authorization: `Bearer ${server.token}` });
const D = 'urn:li:dataset:(urn:li:dataPlatform:hive,logging_events,PROD)';

beforeAll(async () => {
  server = await startReplayServer(loadClientFixture('sdk-openapi-emit').server.env);
}, 120_000);

afterAll(async () => {
  await server?.stop();
});

/** The flow's steps on OpenAPI routes only, in order. */
function openApiSteps(name: string): ClientFixture {
  const fixture = loadClientFixture(name);
  return { ...fixture, steps: fixture.steps.filter((s) => s.request.path.startsWith('/openapi/')) };
}

describe.each([undefined, '/gms'])('DataHub client OpenAPI steps (prefix %s)', (prefix) => {
  test.each(['sdk-openapi-emit', 'sdk-async-wait', 'sdk-client-entities'])('%s: every OpenAPI step passes', async (name) => {
    const fixture = openApiSteps(name);
    expect(fixture.steps.length).toBeGreaterThan(0);
    if (name === 'sdk-client-entities') {
      // Its structuredProperties item names a property the flow defines over Rest.li.
      const def = loadClientFixture('sdk-openapi-emit').steps.find((s) => s.id === 'i02-s03-openapi-post-structuredProperty')!;
      expect((await http(server.url, 'POST', '/openapi/v3/entity/structuredProperty', { body: def.request.body!, contentType: 'application/json', headers: auth() })).status).toBe(200);
    }
    const outcome = await replayFlow(server.url, fixture, { token: server.token, ...(prefix ? { prefix } : {}) });
    await deleteUrns(server, urnsOfFlow(loadClientFixture(name)));
    expect(outcome.failures).toEqual([]);
  }, 120_000);
});

/** The flow's GraphQL steps only (the Rest.li steps around them are replayed by test/conformance/datahubClient.test.ts). */
function graphqlSteps(name: string, ids: readonly string[]): ClientFixture {
  const fixture = loadClientFixture(name);
  return { ...fixture, steps: fixture.steps.filter((s) => ids.includes(s.id)) };
}

describe.each([undefined, '/gms'])('DataHub client GraphQL steps (prefix %s)', (prefix) => {
  const TEAM = 'urn:li:structuredProperty:io.acryl.dataManagement.team';
  const RETENTION = 'urn:li:structuredProperty:io.acryl.privacy.retentionTime';
  beforeAll(async () => {
    const definitions = [
      { urn: RETENTION, propertyDefinition: { value: { qualifiedName: 'io.acryl.privacy.retentionTime', valueType: 'urn:li:dataType:datahub.number', entityTypes: ['urn:li:entityType:datahub.dataset'], cardinality: 'MULTIPLE' } } },
      { urn: TEAM, propertyDefinition: { value: { qualifiedName: 'io.acryl.dataManagement.team', valueType: 'urn:li:dataType:datahub.string', entityTypes: ['urn:li:entityType:datahub.dataset'] } } },
    ];
    expect((await http(server.url, 'POST', '/openapi/v3/entity/structuredProperty', { json: definitions, headers: auth() })).status).toBe(200);
    expect((await http(server.url, 'POST', '/openapi/v3/entity/dataset', { json: [{ urn: D, datasetProperties: { value: { name: 'logging_events' } } }], headers: auth() })).status).toBe(200);
  });
  afterAll(async () => {
    await deleteUrns(server, [D, TEAM, RETENTION]);
  });

  test.each([
    ['cli-properties-list', ['i02-s08-graphql', 'i03-s14-graphql']],
    ['sdk-graph-search', ['i02-s02-graphql', 'i03-s03-graphql']],
    ['sdk-client-entities', ['i04-s06-graphql']],
  ])('%s: the scroll with the SDK\'s default removed filter, sortInput and extraProperties finds what it must', async (name, ids) => {
    const outcome = await replayFlow(server.url, graphqlSteps(name, ids), { token: server.token, ...(prefix ? { prefix } : {}) });
    expect(outcome.failures).toEqual([]);
    expect(outcome.steps).toHaveLength(ids.length);
  });

  test('the default removed filter leaves a soft-deleted property out, and includeSoftDeleted with no filter brings it back', async () => {
    const scroll = loadClientFixture('cli-properties-list').steps.find((s) => s.id === 'i02-s08-graphql')!;
    const send = async (variables: Record<string, unknown>) => {
      const body = JSON.parse(scroll.request.body!) as { query: string; variables: Record<string, unknown> };
      const res = await http(server.url, 'POST', `${prefix ?? ''}/api/graphql`, { json: { query: body.query, variables: { ...body.variables, ...variables } }, headers: auth() });
      expect(res.body.errors).toBeUndefined();
      return res.body.data.scrollAcrossEntities.searchResults.map((r: { entity: { urn: string } }) => r.entity.urn);
    };
    expect((await http(server.url, 'POST', `/openapi/v3/entity/structuredProperty/${encodeURIComponent(TEAM)}/status`, { query: { createIfNotExists: 'false' }, json: { value: { removed: true } }, headers: auth() })).status).toBe(200);
    try {
      expect(await send({})).not.toContain(TEAM);
      expect(await send({ orFilters: null, includeSoftDeleted: true })).toContain(TEAM);
    } finally {
      await http(server.url, 'POST', `/openapi/v3/entity/structuredProperty/${encodeURIComponent(TEAM)}/status`, { query: { createIfNotExists: 'false' }, json: { value: { removed: false } }, headers: auth() });
    }
  });

  test('sortInput orders by urn or by name; another field is a GraphQL error naming the field and the fix', async () => {
    const query = 'query q($s: SearchSortInput) { scrollAcrossEntities(input: {types: [STRUCTURED_PROPERTY], query: "*", count: 100, sortInput: $s}) { searchResults { entity { urn } extraProperties { name value } } } }';
    const desc = await http(server.url, 'POST', `${prefix ?? ''}/api/graphql`, { json: { query, variables: { s: { sortCriteria: [{ field: 'urn', sortOrder: 'DESCENDING' }] } } }, headers: auth() });
    const urns = desc.body.data.scrollAcrossEntities.searchResults.map((r: { entity: { urn: string } }) => r.entity.urn);
    expect(urns.indexOf(RETENTION)).toBeLessThan(urns.indexOf(TEAM));
    expect(desc.body.data.scrollAcrossEntities.searchResults[0].extraProperties).toEqual([]);
    // By name: io.acryl.dataManagement.team before io.acryl.privacy.retentionTime, whatever their URNs.
    const byName = await http(server.url, 'POST', `${prefix ?? ''}/api/graphql`, { json: { query, variables: { s: { sortCriteria: [{ field: '_entityName', sortOrder: 'ASCENDING' }] } } }, headers: auth() });
    const named = byName.body.data.scrollAcrossEntities.searchResults.map((r: { entity: { urn: string } }) => r.entity.urn);
    expect(named.indexOf(TEAM)).toBeGreaterThanOrEqual(0);
    expect(named.indexOf(TEAM)).toBeLessThan(named.indexOf(RETENTION));
    const other = await http(server.url, 'POST', `${prefix ?? ''}/api/graphql`, { json: { query, variables: { s: { sortCriteria: [{ field: 'colour', sortOrder: 'ASCENDING' }] } } }, headers: auth() });
    expect(other.body.errors[0].message).toMatch(/^sortInput.sortCriteria\[0\].field cannot sort on "colour"; sort on one of urn, createdTime, .*_entityName/);
  });
});

describe('OpenAPI v3 batches as DataHub sends them', () => {
  afterEach(async () => {
    await deleteUrns(server, [D]);
  });

  test('one URN in several items: applied in order, the same aspect twice keeps the later value, one answer item per entity', async () => {
    const res = await http(server.url, 'POST', '/openapi/v3/entity/dataset', {
      json: [
        { urn: D, status: { value: { removed: false } } },
        { urn: 'urn:li:dataset:(urn:li:dataPlatform:hive,other,PROD)', status: { value: { removed: false } } },
        { urn: D, datasetProperties: { value: { name: 'first' } } },
        { urn: D, datasetProperties: { value: { name: 'second' } } },
      ],
      headers: auth(),
    });
    expect(res.status).toBe(200);
    expect(res.body.map((e: { urn: string }) => e.urn)).toEqual([D, 'urn:li:dataset:(urn:li:dataPlatform:hive,other,PROD)']);
    expect(Object.keys(res.body[0]).sort()).toEqual(['datasetProperties', 'status', 'urn']);
    const read = await http(server.url, 'POST', '/openapi/v3/entity/dataset/batchGet', { json: [{ urn: D, datasetProperties: {} }], headers: auth() });
    expect(read.body).toEqual([{ urn: D, datasetProperties: { value: { name: 'second' } } }]);
    await deleteUrns(server, ['urn:li:dataset:(urn:li:dataPlatform:hive,other,PROD)']);
  });

  test('entity-level PATCH creates a missing aspect and entity, and patches of one aspect apply in order', async () => {
    const res = await http(server.url, 'PATCH', '/openapi/v3/entity/dataset', {
      json: [
        { urn: D, datasetProperties: { value: { patch: [{ op: 'add', path: '/customProperties', value: { a: '1' } }] } } },
        { urn: D, datasetProperties: { value: [{ op: 'add', path: '/customProperties/b', value: '2' }] } },
      ],
      headers: auth(),
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([{ urn: D, datasetProperties: { value: { customProperties: { a: '1', b: '2' } } } }]);
  });

  test('batchGet leaves out entities that do not exist and reads every aspect when none is named', async () => {
    await http(server.url, 'POST', '/openapi/v3/entity/dataset', { json: [{ urn: D, status: { value: { removed: false } } }], headers: auth() });
    const res = await http(server.url, 'POST', '/openapi/v3/entity/dataset/batchGet', {
      json: [{ urn: D }, { urn: 'urn:li:dataset:(urn:li:dataPlatform:hive,missing,PROD)', status: {} }],
      headers: auth(),
    });
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(1);
    expect(Object.keys(res.body[0]).sort()).toEqual(['datasetKey', 'status', 'urn']);
  });

  test('an async write is traced: ACTIVE_STATE once indexed, an aspect never written UNKNOWN, exactly the aspects asked about', async () => {
    const write = await http(server.url, 'POST', '/openapi/v3/entity/dataset', { query: { async: 'true' }, json: [{ urn: D, status: { value: { removed: false } } }], headers: auth() });
    const traceId = /^00-([0-9a-f]{32})-[0-9a-f]{16}-01$/.exec(write.headers.get('traceparent') ?? '')?.[1];
    expect(traceId).toBeDefined();
    const trace = async () => (await http(server.url, 'POST', `/openapi/v1/trace/write/${traceId}`, { query: { onlyIncludeErrors: 'false', detailed: 'true' }, json: { [D]: ['status', 'datasetProperties'] }, headers: auth() })).body;
    let answer = await trace();
    expect(Object.keys(answer)).toEqual([D]);
    expect(Object.keys(answer[D]).sort()).toEqual(['datasetProperties', 'status']);
    expect(answer[D].status.primaryStorage.writeStatus).toBe('ACTIVE_STATE');
    // The aspect never written is not stored: UNKNOWN on both sides, not a failure.
    expect(answer[D].datasetProperties).toEqual({ success: true, primaryStorage: { writeStatus: 'UNKNOWN' }, searchStorage: { writeStatus: expect.stringMatching(/^(UNKNOWN|PENDING)$/) } });
    while (answer[D].status.searchStorage.writeStatus === 'PENDING') answer = await trace();
    expect(answer[D].status).toEqual({ success: true, primaryStorage: { writeStatus: 'ACTIVE_STATE' }, searchStorage: { writeStatus: 'ACTIVE_STATE' } });
    // DataHub's default lists failed writes only: none here.
    const errorsOnly = await http(server.url, 'POST', `/openapi/v1/trace/write/${traceId}`, { json: { [D]: ['status'] }, headers: auth() });
    expect({ status: errorsOnly.status, body: errorsOnly.body }).toEqual({ status: 200, body: {} });
  });
});

test('without search, an async write\'s trace says NO_OP for the search side at once (no index will ever take it)', async () => {
  const bare = await startTestServer({ search: false });
  try {
    const write = await http(bare.url, 'POST', '/openapi/v3/entity/dataset', { query: { async: 'true' }, json: [{ urn: D, status: { value: { removed: false } } }] });
    const traceId = /^00-([0-9a-f]{32})-/.exec(write.headers.get('traceparent') ?? '')?.[1];
    const trace = await http(bare.url, 'POST', `/openapi/v1/trace/write/${traceId}`, { query: { onlyIncludeErrors: 'false' }, json: { [D]: ['status'] } });
    expect(trace.body).toEqual({ [D]: { status: { success: true, primaryStorage: { writeStatus: 'ACTIVE_STATE' }, searchStorage: { writeStatus: 'NO_OP' } } } });
  } finally {
    await bare.stop();
  }
}, 120_000);

(searchAvailableForTests() ? test : test.skip)('with Meilisearch down, the trace says PENDING on the search side, and ACTIVE_STATE once the index has caught up', async () => {
  let meili = await startMeilisearch();
  const own = await startTestServer({ search: { url: meili.url, key: meili.masterKey } });
  try {
    await meili.stop();
    const write = await http(own.url, 'POST', '/openapi/v3/entity/dataset', { query: { async: 'true' }, json: [{ urn: D, status: { value: { removed: false } } }, { urn: D, subTypes: { value: { typeNames: ['Table'] } } }] });
    expect(write.status).toBe(200);
    const traceId = /^00-([0-9a-f]{32})-/.exec(write.headers.get('traceparent') ?? '')?.[1];
    const trace = async () => (await http(own.url, 'POST', `/openapi/v1/trace/write/${traceId}`, { query: { onlyIncludeErrors: 'false', detailed: 'true' }, json: { [D]: ['status', 'subTypes'] } })).body;
    const down = await trace();
    expect(down[D].status).toEqual({ success: true, primaryStorage: { writeStatus: 'ACTIVE_STATE' }, searchStorage: { writeStatus: 'PENDING' } });
    expect(down[D].subTypes.searchStorage.writeStatus).toBe('PENDING');
    meili = await startMeilisearch({ dataDir: meili.dataDir, port: meili.port, masterKey: meili.masterKey });
    let answer = await trace();
    // As the client does: ask again while anything is PENDING (the indexer retries with back-off).
    while (answer[D].status.searchStorage.writeStatus === 'PENDING') {
      await new Promise((r) => setTimeout(r, 200));
      answer = await trace();
    }
    expect(answer[D]).toEqual({
      status: { success: true, primaryStorage: { writeStatus: 'ACTIVE_STATE' }, searchStorage: { writeStatus: 'ACTIVE_STATE' } },
      subTypes: { success: true, primaryStorage: { writeStatus: 'ACTIVE_STATE' }, searchStorage: { writeStatus: 'ACTIVE_STATE' } },
    });
  } finally {
    await own.stop();
    await meili.destroy();
  }
}, 180_000);

test('DELETE /openapi/v3/entity/{type}/{urn} with the urn not percent-encoded, as the client sends a DELETE MCP', async () => {
  await http(server.url, 'POST', '/openapi/v3/entity/dataset', { json: [{ urn: D, status: { value: { removed: false } } }], headers: auth() });
  const res = await http(server.url, 'DELETE', `/openapi/v3/entity/dataset/${D}`, { headers: auth() });
  expect(res.status).toBe(200);
  expect((await http(server.url, 'POST', '/openapi/v3/entity/dataset/batchGet', { json: [{ urn: D }], headers: auth() })).body).toEqual([]);
});

describe("DataHub's StructuredPropertyDefinition fields", () => {
  const P = 'urn:li:structuredProperty:io.acryl.full.definition';
  const FULL = {
    qualifiedName: 'io.acryl.full.definition',
    displayName: 'Full',
    valueType: 'urn:li:dataType:datahub.string',
    cardinality: 'SINGLE',
    entityTypes: ['urn:li:entityType:datahub.dataset'],
    description: 'every field DataHub has',
    searchConfiguration: { fieldName: 'full', fieldType: 'KEYWORD', queryByDefault: false, enableAutocomplete: false, addToFilters: true, addHasValuesToFilters: true, boostScore: 1.0 },
    immutable: false,
    version: '20240614080000',
    created: { time: 1784822400000, actor: 'urn:li:corpuser:datahub' },
    lastModified: { time: 1784822400001, actor: 'urn:li:corpuser:datahub' },
    filterStatus: 'ENABLED',
  };
  afterAll(async () => {
    await deleteUrns(server, [P]);
  });

  test('are accepted by the batch write, the entity PATCH and v2, returned by batchGet and v2, and GraphQL shows the given stamps', async () => {
    expect((await http(server.url, 'POST', '/openapi/v3/entity/structuredProperty', { json: [{ urn: P, propertyDefinition: { value: FULL } }], headers: auth() })).status).toBe(200);
    const read = await http(server.url, 'POST', '/openapi/v3/entity/structuredProperty/batchGet', { json: [{ urn: P, propertyDefinition: {} }], headers: auth() });
    expect(read.body[0].propertyDefinition.value).toMatchObject({ searchConfiguration: FULL.searchConfiguration, created: FULL.created, lastModified: FULL.lastModified, filterStatus: 'ENABLED' });
    const patched = await http(server.url, 'PATCH', '/openapi/v3/entity/structuredProperty', {
      json: [{ urn: P, propertyDefinition: { value: { patch: [{ op: 'add', path: '/lastModified', value: { time: 1784822400002, actor: 'urn:li:corpuser:other' } }] } } }],
      headers: auth(),
    });
    expect(patched.status).toBe(200);
    const v2 = await http(server.url, 'GET', `/openapi/v2/entity/structuredProperty/${encodeURIComponent(P)}/propertyDefinition`, { headers: auth() });
    expect(v2.body.value).toMatchObject({ created: FULL.created, lastModified: { time: 1784822400002, actor: 'urn:li:corpuser:other' }, filterStatus: 'ENABLED' });
    const gql = await http(server.url, 'POST', '/gms/api/graphql', { json: { query: 'query q($u: String!) { structuredProperty(urn: $u) { definition { created { time actor { urn } } lastModified { time } } } }', variables: { u: P } }, headers: auth() });
    expect(gql.body.data.structuredProperty.definition).toEqual({ created: { time: FULL.created.time, actor: { urn: 'urn:li:corpuser:datahub' } }, lastModified: { time: 1784822400002 } });
  });

  test('without stamps, GraphQL shows the server\'s record of the first and latest write', async () => {
    const { created: _c, lastModified: _l, ...bare } = FULL;
    const before = Date.now();
    expect((await http(server.url, 'POST', '/openapi/v3/entity/structuredProperty', { json: [{ urn: P, propertyDefinition: { value: { ...bare, version: '20240614080001' } } }], headers: auth() })).status).toBe(200);
    const gql = await http(server.url, 'POST', '/api/graphql', { json: { query: 'query q($u: String!) { structuredProperty(urn: $u) { definition { created { time } lastModified { time actor { urn } } } } }', variables: { u: P } }, headers: auth() });
    const def = gql.body.data.structuredProperty.definition;
    expect(def.lastModified.time).toBeGreaterThanOrEqual(before - 1000);
    expect(def.lastModified.actor.urn).toMatch(/^urn:li:corpuser:/);
    expect(def.created.time).toBeLessThanOrEqual(def.lastModified.time);
  });
});

describe('error answers name the field and the fix', () => {
  test.each([
    ['PATCH', '/openapi/v3/entity/dataset', [{ urn: D, datasetProperties: { value: { patch: [{ op: 'move', path: '/x' }] } } }], /^request body\[0\]\.datasetProperties\.value: patch\[0\]\.op must be one of add, remove, replace, test/],
    ['PATCH', '/openapi/v3/entity/dataset', { urn: D }, /must be a JSON list of entities/],
    ['PATCH', '/openapi/v3/entity/dataset', [{ urn: D, datasetProperties: { patch: [] } }], /value.*is required/],
    ['PATCH', '/openapi/v3/entity/dataset', [{ urn: D, fooAspect: { value: { patch: [] } } }], /Unknown aspect fooAspect.*known aspects/],
    ['POST', '/openapi/v3/entity/dataset/batchGet', [{ urn: D, datasetProperties: 5 }], /datasetProperties.*must be an object/],
    ['POST', '/openapi/v3/entity/dataset/batchGet', [{ urn: 'urn:li:chart:(a,b)' }], /urn/i],
    ['POST', '/openapi/v3/entity/dataset/batchGet', [{ urn: D, fooAspect: {} }], /Unknown aspect fooAspect/],
    ['POST', '/openapi/v1/trace/write/0123456789abcdef0123456789abcdef', [D], /from entity URN to aspect names/],
    ['POST', '/openapi/v1/trace/write/0123456789abcdef0123456789abcdef', { [D]: 'status' }, /list of aspect names/],
    ['POST', '/openapi/v1/trace/write/0123456789abcdef0123456789abcdef', { 'not-a-urn': ['status'] }, /urn/i],
    ['POST', '/openapi/v1/trace/write/xyz', { [D]: ['status'] }, /traceId "xyz" is not a trace id: send the 32 hex digits/],
  ])('%s %s with %j is a 400 saying %s', async (method, path, json, message) => {
    const res = await http(server.url, method, path, { json, headers: auth() });
    expect({ status: res.status, message: res.body?.message }).toEqual({ status: 400, message: expect.stringMatching(message) });
  });
});
