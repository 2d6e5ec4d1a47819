/**
 * The authorization matrix of the adapters (issues #5, #14): every route and operation,
 * REST, GraphQL and Rest.li, with the credentials that tell its wiring apart: no token
 * (401, or UNAUTHENTICATED: every route but the public ones needs one), a token one
 * scope below what the operation needs (403, or FORBIDDEN) and one of exactly that
 * scope (allowed). A refused request changes nothing in the database. Tokens that are
 * unusable (never issued, revoked, expired) meet the one authentication check every
 * route shares (src/rest/authentication.ts): they are tried on a route of each dialect.
 * Which scope each service method needs is the Authorized* policy table
 * (test/unit/authorizedServices.test.ts); what a token is, the token service's tests
 * (test/services/tokens.test.ts).
 */
import { scopeAllows, type TokenScope } from '../../src/domain/accessToken.js';
import { databaseChecksum } from '../support/dbChecksum.js';
import { enc, http, type HttpResponse } from '../support/http.js';
import { graphql } from '../support/graphql.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { waitFor } from '../support/waitFor.js';

const ROOT = 'root-secret-for-matrix';
const admin = { authorization: `Bearer ${ROOT}` };
const V3 = '/openapi/v3';

type Outcome = 'ok' | 'unauthenticated' | 'forbidden' | `other ${string}`;
type Credential = 'none' | 'bad' | 'revoked' | 'expired' | TokenScope;
const CREDENTIALS: Credential[] = ['none', 'bad', 'revoked', 'expired', 'read', 'write', 'admin'];

interface Operation {
  readonly name: string;
  /** Scope needed; 'public' needs no token at all. */
  readonly need: TokenScope | 'public';
  /** Arranges what the operation needs (with the admin token) and returns its argument. */
  readonly arrangeSubject?: () => Promise<string>;
  readonly act: (headers: Record<string, string>, arg: string) => Promise<Outcome>;
}

let server: TestServer;
let url: string;
const secrets: Partial<Record<Credential, string>> = {};
let n = 0;
const next = () => ++n;

function restOutcome(res: HttpResponse): Outcome {
  if (res.status === 401) return 'unauthenticated';
  if (res.status === 403) return 'forbidden';
  return res.status >= 200 && res.status < 300 ? 'ok' : `other ${res.status}: ${res.text.slice(0, 200)}`;
}

async function gql(headers: Record<string, string>, query: string, variables?: Record<string, unknown>, path = '/api/graphql'): Promise<Outcome> {
  return gqlOutcome(await graphql(url, query, variables, path, headers, { readYourWrites: false }));
}

function gqlOutcome(res: Awaited<ReturnType<typeof graphql>>): Outcome {
  if (res.status === 401) return res.errors?.[0]?.extensions?.code === 'UNAUTHENTICATED' ? 'unauthenticated' : 'other 401 without UNAUTHENTICATED';
  const code = res.errors?.[0]?.extensions?.code;
  if (code === 'FORBIDDEN') return 'forbidden';
  return res.status === 200 && !res.errors ? 'ok' : `other ${res.status}: ${JSON.stringify(res.errors).slice(0, 200)}`;
}

const P = 'urn:li:structuredProperty:io.matrix.size';
const dataset = (i: number) => `urn:li:dataset:(urn:li:dataPlatform:hive,matrix.t${i},PROD)`;

async function asAdmin(method: string, path: string, options: Parameters<typeof http>[3] = {}) {
  const res = await http(url, method, path, { ...options, headers: { ...admin, ...options.headers }, readYourWrites: false });
  if (res.status !== 200) throw new Error(`arrange ${method} ${path} failed: ${res.status} ${res.text}`);
  return res;
}

async function newDataset(): Promise<string> {
  const d = dataset(next());
  await asAdmin('POST', `${V3}/entity/dataset`, { json: [{ urn: d, status: { value: { removed: false } } }] });
  await asAdmin('POST', `${V3}/entity/dataset/${enc(d)}/structuredProperties`, { query: { createIfNotExists: 'false' }, json: { value: { properties: [{ propertyUrn: P, values: [{ double: 1 }] }] } } });
  return d;
}

/** A dataset whose schema field `id` carries a value too, so a hard delete has a field to remove. */
async function newDatasetWithField(): Promise<string> {
  const d = await newDataset();
  const field = `urn:li:schemaField:(${d},id)`;
  await asAdmin('POST', `${V3}/entity/schemaField/${enc(field)}/structuredProperties`, { query: { createIfNotExists: 'false' }, json: { value: { properties: [{ propertyUrn: P, values: [{ double: 1 }] }] } } });
  return d;
}

async function newProperty(): Promise<string> {
  const qn = `io.matrix.p${next()}`;
  const urn = `urn:li:structuredProperty:${qn}`;
  await asAdmin('POST', `${V3}/entity/structuredProperty/${enc(urn)}/propertyDefinition`, {
    json: { value: { qualifiedName: qn, valueType: 'urn:li:dataType:svc.number', entityTypes: ['urn:li:entityType:svc.dataset'] } },
  });
  return urn;
}

/** A Rest.li proposal as DataHub's client sends it: the aspect as JSON text. */
const mcp = (changeType: string, urn: string, aspectName: string, aspect: unknown) => ({
  entityType: 'dataset',
  entityUrn: urn,
  changeType,
  aspectName,
  aspect: { value: JSON.stringify(aspect), contentType: changeType === 'PATCH' ? 'application/json-patch+json' : 'application/json' },
});

const testJson = JSON.stringify({ on: { types: ['dataset'] }, rules: [{ property: 'urn', operator: 'exists' }] });

async function runFinished(jobId: string): Promise<void> {
  await waitFor(`job ${jobId} to finish`, 60_000, async () => ((await asAdmin('GET', `${V3}/jobs/${jobId}`)).body.status === 'done' ? true : undefined));
}

async function newTest(): Promise<string> {
  const urn = `urn:li:test:matrix-${next()}`;
  await asAdmin('POST', `${V3}/entity/test/${enc(urn)}/testInfo`, { query: { createIfNotExists: 'false' }, json: { value: { name: 'm', category: 'c', definition: { type: 'JSON', json: testJson } } } });
  return urn;
}

async function newToken(): Promise<string> {
  const res = await asAdmin('POST', `${V3}/tokens`, { json: { name: `victim-${next()}`, scope: 'read' } });
  return res.body.metadata.id;
}

const rest = (method: string, path: (arg: string) => string, options: (arg: string) => Parameters<typeof http>[3] = () => ({})) =>
  async (headers: Record<string, string>, arg: string) => {
    const o = options(arg) ?? {};
    return restOutcome(await http(url, method, path(arg), { ...o, headers: { ...o.headers, ...headers }, readYourWrites: false }));
  };

const OPERATIONS: Operation[] = [
  { name: 'GET /health', need: 'public', act: rest('GET', () => '/health') },
  { name: 'GET v3 entity', need: 'read', arrangeSubject: newDataset, act: rest('GET', (d) => `${V3}/entity/dataset/${enc(d)}`) },
  { name: 'GET v2 aspect', need: 'read', arrangeSubject: newDataset, act: rest('GET', (d) => `/openapi/v2/entity/dataset/${enc(d)}/structuredProperties`) },
  { name: 'GET /gms v3 definition', need: 'read', act: rest('GET', () => `/gms${V3}/entity/structuredProperty/${enc(P)}/propertyDefinition`) },
  { name: 'GET list of entities', need: 'read', act: rest('GET', () => `${V3}/entity/structuredProperty`) },
  { name: 'GET jobs', need: 'read', act: rest('GET', () => `${V3}/jobs`) },
  { name: 'GET search', need: 'read', act: rest('GET', () => `${V3}/entity/dataset`, () => ({ query: { query: 'structuredProperties.io_matrix_size:>0', count: '5' } })) },
  { name: 'POST system/update', need: 'admin', act: rest('POST', () => `${V3}/system/update`) },
  { name: 'GET system/backup', need: 'admin', act: rest('GET', () => `${V3}/system/backup`) },
  { name: 'GraphQL scrollAcrossEntities', need: 'read', act: (h) => gql(h, '{ scrollAcrossEntities(input: {types: [DATASET], query: "*", count: 5}) { total } }') },
  { name: 'GraphQL scrollAcrossEntities at /gms/api/graphql', need: 'read', act: (h) => gql(h, '{ scrollAcrossEntities(input: {types: [STRUCTURED_PROPERTY], query: "*", count: 5, sortInput: null}) { nextScrollId searchResults { entity { urn } extraProperties { name value } } } }', undefined, '/gms/api/graphql') },
  { name: 'GraphQL aggregateAcrossEntities', need: 'read', act: (h) => gql(h, '{ aggregateAcrossEntities(input: {query: "*", facets: ["structuredProperties.io.matrix.size"]}) { facets { field } } }') },
  { name: 'POST evaluate', need: 'read', arrangeSubject: newDataset, act: rest('POST', () => '/gms/test', (d) => ({ query: { action: 'evaluate' }, json: { urn: d } })) },
  { name: 'POST evaluate with push', need: 'write', arrangeSubject: newDataset, act: rest('POST', () => '/test', (d) => ({ query: { action: 'evaluate' }, json: { urn: d, push: true } })) },
  { name: 'GET tests report', need: 'read', act: rest('GET', () => `${V3}/tests/report`) },
  {
    name: 'POST tests run',
    need: 'write',
    act: async (h) => {
      const res = await http(url, 'POST', `${V3}/tests/run`, { json: {}, headers: h });
      // A run writes results: the checks after it start once it is done.
      if (res.status === 202) await runFinished(res.body.jobId);
      return restOutcome(res);
    },
  },
  { name: 'GraphQL testReport', need: 'read', act: (h) => gql(h, '{ testReport { tests { passing } } }') },
  {
    name: 'GraphQL runTests',
    need: 'write',
    act: async (h) => {
      const res = await graphql(url, 'mutation { runTests { id } }', undefined, '/api/graphql', h, { readYourWrites: false });
      if (res.data?.runTests) await runFinished(res.data.runTests.id);
      return gqlOutcome(res);
    },
  },
  { name: 'POST batch create', need: 'write', act: rest('POST', () => `${V3}/entity/dataset`, () => ({ json: [{ urn: dataset(next()), status: { value: { removed: false } } }] })) },
  {
    name: 'POST batch create, one urn in several items (DataHub client)',
    need: 'write',
    act: rest('POST', () => `/gms${V3}/entity/dataset`, () => { const d = dataset(next()); return { query: { async: 'false' }, json: [{ urn: d, status: { value: { removed: false } } }, { urn: d, subTypes: { value: { typeNames: ['Table'] } } }] }; }),
  },
  { name: 'POST batch create of tests', need: 'admin', act: rest('POST', () => `${V3}/entity/test`, () => ({ json: [{ urn: `urn:li:test:batch-${next()}`, testInfo: { value: { name: 'n', category: 'c', definition: { type: 'JSON', json: testJson } } } }] })) },
  { name: 'PATCH entities (DataHub client)', need: 'write', arrangeSubject: newDataset, act: rest('PATCH', () => `${V3}/entity/dataset`, (d) => ({ query: { async: 'true' }, json: [{ urn: d, datasetProperties: { value: { patch: [{ op: 'add', path: '/description', value: 'd' }] } } }] })) },
  { name: 'PATCH entities of tests', need: 'admin', arrangeSubject: newTest, act: rest('PATCH', () => `/gms${V3}/entity/test`, (t) => ({ json: [{ urn: t, testInfo: { value: { patch: [{ op: 'add', path: '/description', value: 'd' }] } } }] })) },
  { name: 'POST batchGet (DataHub client)', need: 'read', arrangeSubject: newDataset, act: rest('POST', () => `${V3}/entity/dataset/batchGet`, (d) => ({ query: { systemMetadata: 'true' }, json: [{ urn: d, structuredProperties: {} }] })) },
  { name: 'POST trace/write (DataHub client)', need: 'read', arrangeSubject: newDataset, act: rest('POST', () => `/openapi/v1/trace/write/${'0'.repeat(31)}1`, (d) => ({ query: { onlyIncludeErrors: 'false', detailed: 'true' }, json: { [d]: ['structuredProperties'] } })) },
  { name: 'POST /gms trace/write', need: 'read', arrangeSubject: newDataset, act: rest('POST', () => `/gms/openapi/v1/trace/write/${'0'.repeat(32)}`, (d) => ({ json: { [d]: ['status'] } })) },
  {
    name: 'POST propertyDefinition',
    need: 'write',
    arrangeSubject: async () => `io.matrix.new${next()}`,
    act: rest('POST', (qn) => `${V3}/entity/structuredProperty/${enc(`urn:li:structuredProperty:${qn}`)}/propertyDefinition`, (qn) => ({
      json: { value: { qualifiedName: qn, valueType: 'urn:li:dataType:svc.string', entityTypes: ['urn:li:entityType:svc.dataset'] } },
    })),
  },
  { name: 'POST structuredProperties', need: 'write', arrangeSubject: newDataset, act: rest('POST', (d) => `${V3}/entity/dataset/${enc(d)}/structuredProperties`, () => ({ query: { createIfNotExists: 'false' }, json: { value: { properties: [{ propertyUrn: P, values: [{ double: 2 }] }] } } })) },
  {
    name: 'PATCH structuredProperties',
    need: 'write',
    arrangeSubject: newDataset,
    act: rest('PATCH', (d) => `/openapi/v2/entity/dataset/${enc(d)}/structuredProperties`, () => ({ json: { patch: [{ op: 'add', path: `/properties/${P}`, value: { propertyUrn: P, values: [{ double: 3 }] } }], arrayPrimaryKeys: { properties: ['propertyUrn'] } }, contentType: 'application/json-patch+json' })),
  },
  { name: 'POST status (soft delete)', need: 'write', arrangeSubject: newProperty, act: rest('POST', (p) => `${V3}/entity/structuredProperty/${enc(p)}/status`, () => ({ query: { createIfNotExists: 'false' }, json: { value: { removed: true } } })) },
  { name: 'DELETE status aspect (restore)', need: 'write', arrangeSubject: async () => { const p = await newProperty(); await asAdmin('POST', `${V3}/entity/structuredProperty/${enc(p)}/status`, { query: { createIfNotExists: 'false' }, json: { value: { removed: true } } }); return p; }, act: rest('DELETE', (p) => `${V3}/entity/structuredProperty/${enc(p)}/status`) },
  { name: 'DELETE entity (hard delete)', need: 'admin', arrangeSubject: newProperty, act: rest('DELETE', (p) => `${V3}/entity/structuredProperty/${enc(p)}`) },
  // Deleting a key aspect deletes the entity, and deleting a definition aspect the definition: admin on every route.
  { name: 'DELETE v3 structuredPropertyKey (hard delete)', need: 'admin', arrangeSubject: newProperty, act: rest('DELETE', (p) => `${V3}/entity/structuredProperty/${enc(p)}/structuredPropertyKey`) },
  { name: 'DELETE v2 datasetKey (hard delete with fields)', need: 'admin', arrangeSubject: newDatasetWithField, act: rest('DELETE', (d) => `/openapi/v2/entity/dataset/${enc(d)}/datasetKey`) },
  { name: 'DELETE /gms v3 datasetKey', need: 'admin', arrangeSubject: newDataset, act: rest('DELETE', (d) => `/gms${V3}/entity/dataset/${enc(d)}/datasetKey`) },
  { name: 'DELETE /gms v2 structuredPropertyKey', need: 'admin', arrangeSubject: newProperty, act: rest('DELETE', (p) => `/gms/openapi/v2/entity/structuredProperty/${enc(p)}/structuredPropertyKey`) },
  { name: 'DELETE v3 propertyDefinition aspect', need: 'admin', arrangeSubject: newProperty, act: rest('DELETE', (p) => `${V3}/entity/structuredProperty/${enc(p)}/propertyDefinition`) },
  { name: 'DELETE /gms v2 propertyDefinition aspect', need: 'admin', arrangeSubject: newProperty, act: rest('DELETE', (p) => `/gms/openapi/v2/entity/structuredProperty/${enc(p)}/propertyDefinition`) },
  { name: 'DELETE v3 schemaFieldKey', need: 'admin', arrangeSubject: async () => `urn:li:schemaField:(${await newDatasetWithField()},id)`, act: rest('DELETE', (f) => `${V3}/entity/schemaField/${enc(f)}/schemaFieldKey`) },
  { name: 'DELETE v3 testInfo aspect', need: 'admin', arrangeSubject: newTest, act: rest('DELETE', (t) => `${V3}/entity/test/${enc(t)}/testInfo`) },
  { name: 'DELETE v3 structuredProperties aspect (values only)', need: 'write', arrangeSubject: newDataset, act: rest('DELETE', (d) => `${V3}/entity/dataset/${enc(d)}/structuredProperties`) },
  { name: 'POST testInfo', need: 'admin', act: rest('POST', () => `${V3}/entity/test/${enc(`urn:li:test:new-${next()}`)}/testInfo`, () => ({ query: { createIfNotExists: 'false' }, json: { value: { name: 'n', category: 'c', definition: { type: 'JSON', json: testJson } } } })) },
  { name: 'POST tokens', need: 'admin', act: rest('POST', () => `${V3}/tokens`, () => ({ json: { name: `t${next()}`, scope: 'read' } })) },
  { name: 'GET tokens', need: 'admin', act: rest('GET', () => `${V3}/tokens`) },
  { name: 'DELETE tokens/{id}', need: 'admin', arrangeSubject: newToken, act: rest('DELETE', (id) => `${V3}/tokens/${id}`) },
  { name: 'GraphQL dataset', need: 'read', arrangeSubject: newDataset, act: (h, d) => gql(h, 'query q($u: String!) { dataset(urn: $u) { urn structuredProperties { properties { values { ... on NumberValue { numberValue } } } } } }', { u: d }) },
  { name: 'GraphQL listTests', need: 'read', act: (h) => gql(h, '{ listTests(input: {start: 0, count: 5}) { total } }') },
  { name: 'GraphQL createStructuredProperty', need: 'write', act: (h) => gql(h, 'mutation m($i: String!) { createStructuredProperty(input: {id: $i, valueType: "urn:li:dataType:number", entityTypes: ["urn:li:entityType:dataset"]}) { urn } }', { i: `io.matrix.g${next()}` }) },
  { name: 'GraphQL updateStructuredProperty', need: 'write', arrangeSubject: newProperty, act: (h, p) => gql(h, 'mutation m($u: String!) { updateStructuredProperty(input: {urn: $u, description: "d"}) { urn } }', { u: p }) },
  { name: 'GraphQL upsertStructuredProperties', need: 'write', arrangeSubject: newDataset, act: (h, d) => gql(h, `mutation m($a: String!) { upsertStructuredProperties(input: {assetUrn: $a, structuredPropertyInputParams: [{structuredPropertyUrn: "${P}", values: [{numberValue: 5}]}]}) { properties { associatedUrn } } }`, { a: d }) },
  { name: 'GraphQL removeStructuredProperties', need: 'write', arrangeSubject: newDataset, act: (h, d) => gql(h, `mutation m($a: String!) { removeStructuredProperties(input: {assetUrn: $a, structuredPropertyUrns: ["${P}"]}) { properties { associatedUrn } } }`, { a: d }) },
  { name: 'GraphQL deleteStructuredProperty', need: 'admin', arrangeSubject: newProperty, act: (h, p) => gql(h, 'mutation m($u: String!) { deleteStructuredProperty(input: {urn: $u}) }', { u: p }) },
  { name: 'GraphQL createTest', need: 'admin', act: (h) => gql(h, 'mutation m($j: String) { createTest(input: {name: "n", category: "c", definition: {json: $j}}) }', { j: testJson }) },
  { name: 'GraphQL deleteTest', need: 'admin', arrangeSubject: newTest, act: (h, t) => gql(h, 'mutation m($u: String!) { deleteTest(urn: $u) }', { u: t }) },
  { name: 'GraphQL createAccessToken', need: 'admin', act: (h) => gql(h, 'mutation m($n: String!) { createAccessToken(input: {name: $n, scope: READ}) { metadata { id } } }', { n: `g${next()}` }) },
  { name: 'GraphQL listAccessTokens', need: 'admin', act: (h) => gql(h, '{ listAccessTokens { total } }') },
  { name: 'GraphQL revokeAccessToken', need: 'admin', arrangeSubject: newToken, act: (h, id) => gql(h, 'mutation m($i: String!) { revokeAccessToken(tokenId: $i) }', { i: id }) },
  { name: 'GraphQL me', need: 'read', act: (h) => gql(h, '{ me { scope platformPrivileges { manageStructuredProperties } } }') },
  { name: 'GraphQL listJobs', need: 'read', act: (h) => gql(h, '{ listJobs(input: {count: 5}) { count jobs { id percentDone } } }') },
  { name: 'GraphQL job', need: 'read', act: (h) => gql(h, '{ job(id: "1") { id } }') },
  { name: 'GraphQL definitionHistory', need: 'read', arrangeSubject: newProperty, act: (h, p) => gql(h, 'query q($u: String!) { structuredProperty(urn: $u) { definitionHistory { revision } settings { showInSearchFilters } status { removed } } }', { u: p }) },
  { name: 'GraphQL replaceStructuredPropertyDefinition', need: 'write', arrangeSubject: newProperty, act: (h, p) => gql(h, 'mutation m($u: String!) { replaceStructuredPropertyDefinition(input: {urn: $u, valueType: "urn:li:dataType:number", entityTypes: ["urn:li:entityType:dataset", "urn:li:entityType:chart"]}) { urn } }', { u: p }) },
  { name: 'GraphQL softDeleteStructuredProperty', need: 'write', arrangeSubject: newProperty, act: (h, p) => gql(h, 'mutation m($u: String!) { softDeleteStructuredProperty(input: {urn: $u}) { urn } }', { u: p }) },
  {
    name: 'GraphQL restoreStructuredProperty',
    need: 'write',
    arrangeSubject: async () => { const p = await newProperty(); await asAdmin('POST', `${V3}/entity/structuredProperty/${enc(p)}/status`, { query: { createIfNotExists: 'false' }, json: { value: { removed: true } } }); return p; },
    act: (h, p) => gql(h, 'mutation m($u: String!) { restoreStructuredProperty(input: {urn: $u}) { urn } }', { u: p }),
  },
  { name: 'GraphQL evaluateTests', need: 'read', arrangeSubject: newDataset, act: (h, d) => gql(h, 'mutation m($u: String!) { evaluateTests(input: {urn: $u}) { passing { type } } }', { u: d }) },
  { name: 'GraphQL evaluateTests with push', need: 'write', arrangeSubject: newDataset, act: (h, d) => gql(h, 'mutation m($u: String!) { evaluateTests(input: {urn: $u, push: true}) { passing { type } } }', { u: d }) },
  { name: 'GET / (web console)', need: 'public', act: rest('GET', () => '/') },
  // DataHub's Rest.li routes (src/restli/): the same scopes as the REST v3 route doing the same thing.
  { name: 'GET Rest.li /config', need: 'read', act: rest('GET', () => '/config') },
  { name: 'GET Rest.li /gms/config', need: 'read', act: rest('GET', () => '/gms/config') },
  { name: 'GET Rest.li aspect', need: 'read', arrangeSubject: newDataset, act: rest('GET', (d) => `/aspects/${enc(d)}`, () => ({ query: { aspect: 'structuredProperties', version: '0' } })) },
  { name: 'GET Rest.li /gms key aspect', need: 'read', arrangeSubject: newDataset, act: rest('GET', (d) => `/gms/aspects/${enc(d)}`, () => ({ query: { aspect: 'datasetKey', version: '0' } })) },
  { name: 'GET Rest.li entitiesV2', need: 'read', arrangeSubject: newDataset, act: rest('GET', (d) => `/entitiesV2/${enc(d)}`) },
  { name: 'POST Rest.li ingestProposal UPSERT values', need: 'write', arrangeSubject: newDataset, act: rest('POST', () => '/aspects', (d) => ({ query: { action: 'ingestProposal' }, json: { proposal: mcp('UPSERT', d, 'structuredProperties', { properties: [{ propertyUrn: P, values: [{ double: 4 }] }] }), async: 'false' } })) },
  { name: 'POST Rest.li ingestProposal PATCH', need: 'write', arrangeSubject: newDataset, act: rest('POST', () => '/aspects', (d) => ({ query: { action: 'ingestProposal' }, json: { proposal: mcp('PATCH', d, 'datasetProperties', [{ op: 'add', path: '/name', value: 'n' }]) } })) },
  { name: 'POST Rest.li /gms ingestProposalBatch', need: 'write', act: rest('POST', () => '/gms/aspects', () => ({ query: { action: 'ingestProposalBatch' }, json: { proposals: [mcp('UPSERT', dataset(next()), 'status', { removed: false })], async: 'false' } })) },
  { name: 'POST Rest.li ingestProposal UPSERT testInfo', need: 'admin', act: rest('POST', () => '/aspects', () => ({ query: { action: 'ingestProposal' }, json: { proposal: { ...mcp('UPSERT', `urn:li:test:rl-${next()}`, 'testInfo', { name: 'n', category: 'c', definition: { type: 'JSON', json: testJson } }), entityType: 'test' } } })) },
  { name: 'POST Rest.li ingestProposal DELETE propertyDefinition', need: 'admin', arrangeSubject: newProperty, act: rest('POST', () => '/aspects', (p) => ({ query: { action: 'ingestProposal' }, json: { proposal: { entityType: 'structuredProperty', entityUrn: p, changeType: 'DELETE', aspectName: 'propertyDefinition' } } })) },
  { name: 'POST Rest.li ingestProposal DELETE datasetKey', need: 'admin', arrangeSubject: newDataset, act: rest('POST', () => '/aspects', (d) => ({ query: { action: 'ingestProposal' }, json: { proposal: { entityType: 'dataset', entityUrn: d, changeType: 'DELETE', aspectName: 'datasetKey' } } })) },
  { name: 'POST Rest.li entities delete (hard delete)', need: 'admin', arrangeSubject: newProperty, act: rest('POST', () => '/entities', (p) => ({ query: { action: 'delete' }, json: { urn: p } })) },
  { name: 'POST Rest.li entities deleteReferences dry run', need: 'read', act: rest('POST', () => '/entities', () => ({ query: { action: 'deleteReferences' }, json: { urn: 'urn:li:tag:matrix', dryRun: true } })) },
  { name: 'POST Rest.li /gms entities deleteReferences', need: 'write', act: rest('POST', () => '/gms/entities', () => ({ query: { action: 'deleteReferences' }, json: { urn: 'urn:li:tag:matrix', dryRun: false } })) },
  // Policies (issue #40): reading them and asking why is reading; every change is policy management, admin on every route.
  { name: 'GET policies', need: 'read', act: rest('GET', () => `${V3}/policies`) },
  { name: 'GET policies/{id}', need: 'read', act: rest('GET', () => `${V3}/policies/propgraph-default-read`) },
  { name: 'POST policies', need: 'admin', act: rest('POST', () => `${V3}/policies`, () => ({ json: { id: `matrix-${next()}`, ...POLICY } })) },
  { name: 'PUT policies/{id}', need: 'admin', arrangeSubject: newPolicy, act: rest('PUT', (id) => `${V3}/policies/${id}`, () => ({ json: { ...POLICY, description: 'changed' } })) },
  { name: 'DELETE policies/{id}', need: 'admin', arrangeSubject: newPolicy, act: rest('DELETE', (id) => `${V3}/policies/${id}`) },
  { name: 'POST policies/apply', need: 'admin', act: rest('POST', () => `/gms${V3}/policies/apply`, () => ({ json: { policies: [{ id: `matrix-${next()}`, ...POLICY }] } })) },
  { name: 'POST policies/apply dry run', need: 'admin', act: rest('POST', () => `${V3}/policies/apply`, () => ({ query: { dryRun: 'true' }, json: { policies: [{ id: `matrix-${next()}`, ...POLICY }] } })) },
  { name: 'POST v3 dataHubPolicyInfo aspect', need: 'admin', act: rest('POST', () => `${V3}/entity/dataHubPolicy/${enc(`urn:li:dataHubPolicy:matrix-${next()}`)}/dataHubPolicyInfo`, () => ({ json: { value: POLICY } })) },
  { name: 'GET access/explain', need: 'read', arrangeSubject: newDataset, act: rest('GET', () => `${V3}/access/explain`, (d) => ({ query: { privilege: 'EDIT_ENTITY_PROPERTIES', urn: d, property: 'io.matrix.size' } })) },
  { name: 'GET access/who', need: 'read', arrangeSubject: newDataset, act: rest('GET', () => `${V3}/access/who`, (d) => ({ query: { privilege: 'EDIT_ENTITY_PROPERTIES', urn: d } })) },
  { name: 'GraphQL listPolicies', need: 'read', act: (h) => gql(h, '{ listPolicies(input: {start: 0, count: 5}) { total policies { urn origin } } }') },
  { name: 'GraphQL createPolicy', need: 'admin', act: (h) => gql(h, 'mutation m($i: String!) { createPolicy(input: {id: $i, type: METADATA, name: "m", state: ACTIVE, privileges: ["VIEW_ENTITY_PAGE"], actors: {allUsers: true, resourceOwners: false, allGroups: false}}) }', { i: `matrix-${next()}` }) },
  { name: 'GraphQL deletePolicy', need: 'admin', arrangeSubject: newPolicy, act: (h, id) => gql(h, 'mutation m($u: String!) { deletePolicy(urn: $u) }', { u: id }) },
  { name: 'GraphQL explainAccess', need: 'read', arrangeSubject: newDataset, act: (h, d) => gql(h, 'query q($u: String) { explainAccess(input: {privilege: "EDIT_ENTITY", urn: $u}) { allowed summary } }', { u: d }) },
  { name: 'GraphQL entityAccess', need: 'read', arrangeSubject: newDataset, act: (h, d) => gql(h, 'query q($u: String!) { entityAccess(urn: $u) { canEdit editableProperties } }', { u: d }) },
  { name: 'POST Rest.li ingestProposal UPSERT dataHubPolicyInfo', need: 'admin', act: rest('POST', () => '/aspects', () => ({ query: { action: 'ingestProposal' }, json: { proposal: { ...mcp('UPSERT', `urn:li:dataHubPolicy:rl-${next()}`, 'dataHubPolicyInfo', POLICY), entityType: 'dataHubPolicy' } } })) },
];

const POLICY = { displayName: 'matrix', type: 'METADATA', state: 'ACTIVE', privileges: ['VIEW_ENTITY_PAGE'], actors: { allUsers: true } };

async function newPolicy(): Promise<string> {
  const id = `matrix-${next()}`;
  await asAdmin('POST', `${V3}/policies`, { json: { id, ...POLICY } });
  return id;
}

beforeAll(async () => {
  // Writes answer at commit: the matrix reads no search result of what it wrote, so neither the server nor the client waits for the index.
  // Refusals change nothing: checked on a database that no background test evaluation writes to.
  server = await startTestServer({ search: true, env: { AUTH_ENABLED: 'true', ROOT_TOKEN: ROOT, RATE_LIMIT_PER_MINUTE: '1000000', WRITE_WAIT_FOR_INDEX: 'false', AUTH_FAILURES_PER_MINUTE: '1000000', TEST_EVALUATION: 'false' } });
  url = server.url;
  await asAdmin('POST', `${V3}/entity/structuredProperty/${enc(P)}/propertyDefinition`, {
    json: { value: { qualifiedName: 'io.matrix.size', valueType: 'urn:li:dataType:svc.number', entityTypes: ['urn:li:entityType:svc.dataset', 'urn:li:entityType:svc.schemaField'] } },
  });
  for (const scope of ['read', 'write', 'admin'] as const) {
    secrets[scope] = (await asAdmin('POST', `${V3}/tokens`, { json: { name: `matrix-${scope}`, scope } })).body.accessToken;
  }
  const revoked = await asAdmin('POST', `${V3}/tokens`, { json: { name: 'matrix-revoked', scope: 'admin' } });
  await asAdmin('DELETE', `${V3}/tokens/${revoked.body.metadata.id}`);
  secrets.revoked = revoked.body.accessToken;
  const expired = await asAdmin('POST', `${V3}/tokens`, { json: { name: 'matrix-expired', scope: 'admin', expiresAt: Date.now() + 1000 } });
  secrets.expired = expired.body.accessToken;
  secrets.bad = 'pgt_this-token-was-never-issued-by-the-server-xxxxxxx';
  await new Promise((r) => setTimeout(r, 1200));
});

afterAll(async () => {
  await server.stop();
});

function expected(op: Operation, credential: Credential): Outcome {
  if (op.need === 'public') return 'ok';
  if (credential === 'none' || credential === 'bad' || credential === 'revoked' || credential === 'expired') return 'unauthenticated';
  return scopeAllows(credential, op.need) ? 'ok' : 'forbidden';
}

/** Operations on which the unusable tokens are tried: a read and a write of REST, GraphQL, Rest.li and the evaluate route. */
const AUTHENTICATION_SAMPLES = new Set(['GET v3 entity', 'POST structuredProperties', 'GraphQL dataset', 'GraphQL upsertStructuredProperties', 'GET Rest.li aspect', 'POST Rest.li ingestProposal UPSERT values', 'POST evaluate', 'GET tokens']);

/** The credentials that tell an operation's wiring apart (see the head of this file). */
function credentialsFor(op: Operation): Credential[] {
  if (op.need === 'public') return ['none'];
  const below: Credential[] = op.need === 'admin' ? ['write'] : op.need === 'write' ? ['read'] : [];
  const unusable: Credential[] = AUTHENTICATION_SAMPLES.has(op.name) ? ['bad', 'revoked', 'expired'] : [];
  return ['none', ...unusable, ...below, op.need];
}

test('every credential kind is tried, and every authentication sample names an operation', () => {
  const tried = new Set(OPERATIONS.flatMap(credentialsFor));
  expect(CREDENTIALS.filter((c) => !tried.has(c))).toEqual([]);
  expect([...AUTHENTICATION_SAMPLES].filter((name) => !OPERATIONS.some((op) => op.name === name))).toEqual([]);
});

describe.each(OPERATIONS.map((op) => [op.name, op] as const))('%s', (_name, op) => {
  test.each(credentialsFor(op))('with credential %s', async (credential) => {
    const arg = op.arrangeSubject ? await op.arrangeSubject() : '';
    const headers: Record<string, string> = credential === 'none' ? {} : { authorization: `Bearer ${secrets[credential]}` };
    const before = await databaseChecksum(server.database.sql);
    const outcome = await op.act(headers, arg);
    const want = expected(op, credential);
    expect(outcome).toBe(want);
    if (want !== 'ok') expect(await databaseChecksum(server.database.sql)).toBe(before);
  });
});

test('a malformed Authorization header is 401 with a WWW-Authenticate challenge', async () => {
  const res = await http(url, 'GET', `${V3}/jobs`, { headers: { authorization: 'Basic dXNlcjpwYXNz' } });
  expect(res.status).toBe(401);
  expect(res.headers.get('www-authenticate')).toBe('Bearer');
  expect(res.body).toEqual({ error: 'Unauthorized', message: 'Invalid Authorization header: expected Bearer <token>' });
});
