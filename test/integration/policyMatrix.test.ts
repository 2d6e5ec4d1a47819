/**
 * The policy matrix (issue #40, docs/security.md "Policies"): every privilege, on every
 * interface that can ask for it (REST v2, REST v3, DataHub's Rest.li, GraphQL), allowed
 * and refused, for people signed in through the real OpenID provider (their groups from
 * its groups claim) and for machine tokens. The shipped defaults are replaced by a file
 * applied with prune, so only these policies are in force; every principal's token has
 * the scope the privilege needs, so a refusal is the policies', never the scope's. A
 * refusal is a 403 (GraphQL FORBIDDEN, reason MISSING_PRIVILEGE) naming the privilege,
 * never a 500, and changes nothing in the database. The CLI's cells are in
 * test/e2e/cliPolicies.test.ts, the console's in test/e2e/consolePolicies.test.ts.
 */
import { freePort } from '../../src/embedded/freePort.js';
import { ensureConsoleBuilt } from '../support/build.js';
import { databaseChecksum } from '../support/dbChecksum.js';
import { graphql } from '../support/graphql.js';
import { enc, http, type HttpResponse } from '../support/http.js';
import { propgraphClient, signInThroughConsoleRoutes, startOpenIdProvider, oidcEnv, type ProviderPerson, type RunningProvider } from '../support/openIdProvider.js';
import { startTestServer, type TestServer } from '../support/server.js';

const ROOT = `pgt_policy_matrix_${Math.random().toString(36).slice(2)}`;
const V3 = '/openapi/v3';
const V2 = '/openapi/v2';

/** The people of the matrix: their groups decide their scope (OIDC_GROUP_SCOPES) and, through the policies, what they may do. */
const PEOPLE = {
  ann: { login: 'ann', password: 'ann-pw', email: 'ann@example.com', name: 'Ann Finance', groups: ['stewards', 'finance'] },
  ben: { login: 'ben', password: 'ben-pw', email: 'ben@example.com', name: 'Ben Steward', groups: ['stewards'] },
  ada: { login: 'ada', password: 'ada-pw', email: 'ada@example.com', name: 'Ada Policies', groups: ['admins', 'policy-admins'] },
  amy: { login: 'amy', password: 'amy-pw', email: 'amy@example.com', name: 'Amy Admin', groups: ['admins'] },
} satisfies Record<string, ProviderPerson>;

type Who = keyof typeof PEOPLE | 'loader';
type Outcome = 'ok' | 'forbidden' | `other ${string}`;

const POLICIES = [
  { id: 'm-admins-read', displayName: 'Admins read everything', privileges: ['VIEW_ENTITY_PAGE'], actors: { groups: ['admins'] } },
  {
    id: 'm-finance',
    displayName: 'Finance edits finance datasets',
    privileges: ['VIEW_ENTITY_PAGE', 'EDIT_ENTITY', 'EDIT_ENTITY_PROPERTIES', 'SOFT_DELETE_ENTITY'],
    actors: { groups: ['finance'] },
    resources: { filter: { criteria: [{ field: 'TYPE', values: ['dataset'] }, { field: 'structuredProperties.acme.domain', values: ['finance'] }] } },
  },
  { id: 'm-finance-definitions', displayName: 'Finance defines acme.fintier', privileges: ['MANAGE_STRUCTURED_PROPERTIES'], actors: { groups: ['finance'] }, resources: { privilegeConstraints: { criteria: [{ field: 'PROPERTY', values: ['acme.fintier'] }] } } },
  { id: 'm-finance-bulk', displayName: 'Finance bulk edits', type: 'PLATFORM', privileges: ['BULK_EDIT'], actors: { groups: ['finance'] } },
  { id: 'm-loader-pii', displayName: 'The loader sets acme.pii', privileges: ['EDIT_ENTITY_PROPERTIES'], actors: { users: ['urn:li:corpuser:__service_loader'] }, resources: { privilegeConstraints: { criteria: [{ field: 'PROPERTY', values: ['acme.pii'] }] } } },
  { id: 'm-policy-admins', displayName: 'Policy admins delete and manage tests', privileges: ['DELETE_ENTITY', 'MANAGE_TESTS'], actors: { groups: ['policy-admins'] } },
  { id: 'm-policy-admins-platform', displayName: 'Policy admins manage tokens and policies', type: 'PLATFORM', privileges: ['MANAGE_ACCESS_TOKENS', 'MANAGE_POLICIES'], actors: { groups: ['policy-admins'] } },
];

let provider: RunningProvider;
let server: TestServer;
const tokens: Partial<Record<Who, string>> = {};
let n = 0;
const next = () => ++n;

const asRoot = async (method: string, path: string, options: Parameters<typeof http>[3] = {}): Promise<HttpResponse> => {
  const res = await http(server.url, method, path, { ...options, headers: { authorization: `Bearer ${ROOT}`, ...options.headers }, readYourWrites: false });
  if (res.status >= 300) throw new Error(`arrange ${method} ${path}: ${res.status} ${res.text}`);
  return res;
};

const dataset = (domain: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,matrix.${domain}.t${next()},PROD)`;
const property = (qn: string) => `urn:li:structuredProperty:${qn}`;
const testJson = JSON.stringify({ on: { types: ['dataset'] }, rules: [{ property: 'urn', operator: 'exists' }] });

async function newDataset(domain: 'finance' | 'marketing'): Promise<string> {
  const d = dataset(domain);
  await asRoot('POST', `${V3}/entity/dataset`, { json: [{ urn: d, status: { value: { removed: false } }, structuredProperties: { value: { properties: [{ propertyUrn: property('acme.domain'), values: [{ string: domain }] }] } } }] });
  return d;
}

async function newProperty(qn: string): Promise<string> {
  await asRoot('POST', `${V3}/entity/structuredProperty/${enc(property(qn))}/propertyDefinition`, { json: { value: { qualifiedName: qn, valueType: 'urn:li:dataType:svc.string', entityTypes: ['urn:li:entityType:svc.dataset'] } } });
  return property(qn);
}

function restOutcome(res: HttpResponse, privilege: string): Outcome {
  if (res.status === 403) return String(res.body?.message).includes(`the ${privilege} privilege`) ? 'forbidden' : `other 403 not naming ${privilege}: ${res.text.slice(0, 300)}`;
  return res.status >= 200 && res.status < 300 ? 'ok' : `other ${res.status}: ${res.text.slice(0, 300)}`;
}

const mcp = (entityType: string, urn: string, aspectName: string, aspect: unknown) => ({ entityType, entityUrn: urn, changeType: 'UPSERT', aspectName, aspect: { value: JSON.stringify(aspect), contentType: 'application/json' } });

interface Cell {
  readonly iface: 'REST v2' | 'REST v3' | 'Rest.li' | 'GraphQL';
  readonly act: (token: string, subject: string) => Promise<HttpResponse | Awaited<ReturnType<typeof graphql>>>;
}

interface Row {
  readonly privilege: string;
  /** What the row shows: a value filter, a property constraint, a group, a machine token. */
  readonly about: string;
  readonly allowed: Who;
  readonly refused: Who;
  /** The subject of each outcome (created by the root token). */
  readonly subject: (outcome: 'allowed' | 'refused') => Promise<string>;
  readonly cells: readonly Cell[];
}

const rest = (iface: 'REST v2' | 'REST v3' | 'Rest.li', method: string, path: (s: string) => string, options: (s: string) => Parameters<typeof http>[3] = () => ({})): Cell => ({
  iface,
  act: (token, s) => http(server.url, method, path(s), { ...options(s), headers: { authorization: `Bearer ${token}` }, readYourWrites: false }),
});
const gql = (query: string, variables: (s: string) => Record<string, unknown>): Cell => ({
  iface: 'GraphQL',
  act: (token, s) => graphql(server.url, query, variables(s), '/api/graphql', { authorization: `Bearer ${token}` }, { readYourWrites: false }),
});
const valuesOf = (p: string, v: string) => ({ properties: [{ propertyUrn: property(p), values: [{ string: v }] }] });

const byDomain = (allowed: 'finance' | 'marketing', refused: 'finance' | 'marketing') => (o: 'allowed' | 'refused') => newDataset(o === 'allowed' ? allowed : refused);

const ROWS: Row[] = [
  {
    privilege: 'VIEW_ENTITY_PAGE',
    about: 'a person of the finance group reads finance datasets; one in no reading group, nothing',
    allowed: 'ann',
    refused: 'ben',
    subject: () => newDataset('finance'),
    cells: [
      rest('REST v2', 'GET', (d) => `${V2}/entity/dataset/${enc(d)}`),
      rest('REST v3', 'GET', (d) => `${V3}/entity/dataset/${enc(d)}`),
      rest('Rest.li', 'GET', (d) => `/entitiesV2/${enc(d)}`),
      gql('query q($u: String!) { dataset(urn: $u) { urn } }', (d) => ({ u: d })),
    ],
  },
  {
    privilege: 'EDIT_ENTITY',
    about: 'by a structured property value: finance datasets yes, marketing ones no',
    allowed: 'ann',
    refused: 'ann',
    subject: byDomain('finance', 'marketing'),
    cells: [
      rest('REST v2', 'POST', (d) => `${V2}/entity/dataset/${enc(d)}/globalTags`, () => ({ query: { createIfNotExists: 'false' }, json: { tags: [{ tag: 'urn:li:tag:reviewed' }] } })),
      rest('REST v3', 'POST', (d) => `${V3}/entity/dataset/${enc(d)}/globalTags`, () => ({ query: { createIfNotExists: 'false' }, json: { value: { tags: [{ tag: 'urn:li:tag:reviewed' }] } } })),
      rest('Rest.li', 'POST', () => '/aspects', (d) => ({ query: { action: 'ingestProposal' }, json: { proposal: mcp('dataset', d, 'globalTags', { tags: [{ tag: 'urn:li:tag:reviewed' }] }) } })),
    ],
  },
  {
    privilege: 'EDIT_ENTITY_PROPERTIES',
    about: 'by a structured property value: finance datasets yes, marketing ones no',
    allowed: 'ann',
    refused: 'ann',
    subject: byDomain('finance', 'marketing'),
    cells: [
      rest('REST v2', 'POST', (d) => `${V2}/entity/dataset/${enc(d)}/structuredProperties`, () => ({ query: { createIfNotExists: 'false' }, json: valuesOf('acme.domain', 'finance') })),
      rest('REST v3', 'POST', (d) => `${V3}/entity/dataset/${enc(d)}/structuredProperties`, () => ({ query: { createIfNotExists: 'false' }, json: { value: { properties: [...valuesOf('acme.domain', 'finance').properties, ...valuesOf('acme.tier', 'gold').properties] } } })),
      rest('Rest.li', 'POST', () => '/aspects', (d) => ({ query: { action: 'ingestProposal' }, json: { proposal: mcp('dataset', d, 'structuredProperties', { properties: [...valuesOf('acme.domain', 'finance').properties, ...valuesOf('acme.tier', 'gold').properties] }) } })),
      gql(`mutation m($a: String!) { upsertStructuredProperties(input: {assetUrn: $a, structuredPropertyInputParams: [{structuredPropertyUrn: "${property('acme.tier')}", values: [{stringValue: "gold"}]}]}) { properties { associatedUrn } } }`, (d) => ({ a: d })),
    ],
  },
  {
    privilege: 'EDIT_ENTITY_PROPERTIES',
    about: 'limited to a named property, for a machine token: acme.pii yes, acme.tier no',
    allowed: 'loader',
    refused: 'loader',
    subject: (o) => newDataset('marketing').then((d) => `${d}|${o === 'allowed' ? 'acme.pii' : 'acme.tier'}`),
    cells: [
      rest('REST v2', 'POST', (s) => `${V2}/entity/dataset/${enc(s.split('|')[0]!)}/structuredProperties`, (s) => ({ query: { createIfNotExists: 'false' }, json: { properties: [...valuesOf('acme.domain', 'marketing').properties, ...valuesOf(s.split('|')[1]!, 'x').properties] } })),
      rest('REST v3', 'POST', (s) => `${V3}/entity/dataset/${enc(s.split('|')[0]!)}/structuredProperties`, (s) => ({ query: { createIfNotExists: 'false' }, json: { value: { properties: [...valuesOf('acme.domain', 'marketing').properties, ...valuesOf(s.split('|')[1]!, 'x').properties] } } })),
      rest('Rest.li', 'POST', () => '/aspects', (s) => ({ query: { action: 'ingestProposal' }, json: { proposal: mcp('dataset', s.split('|')[0]!, 'structuredProperties', { properties: [...valuesOf('acme.domain', 'marketing').properties, ...valuesOf(s.split('|')[1]!, 'x').properties] }) } })),
      gql('mutation m($a: String!, $p: String!) { upsertStructuredProperties(input: {assetUrn: $a, structuredPropertyInputParams: [{structuredPropertyUrn: $p, values: [{stringValue: "x"}]}]}) { properties { associatedUrn } } }', (s) => ({ a: s.split('|')[0], p: property(s.split('|')[1]!) })),
    ],
  },
  {
    privilege: 'SOFT_DELETE_ENTITY',
    about: 'by a structured property value',
    allowed: 'ann',
    refused: 'ann',
    subject: byDomain('finance', 'marketing'),
    cells: [
      rest('REST v2', 'POST', (d) => `${V2}/entity/dataset/${enc(d)}/status`, () => ({ query: { createIfNotExists: 'false' }, json: { removed: true } })),
      rest('REST v3', 'POST', (d) => `${V3}/entity/dataset/${enc(d)}/status`, () => ({ query: { createIfNotExists: 'false' }, json: { value: { removed: true } } })),
      rest('Rest.li', 'POST', () => '/aspects', (d) => ({ query: { action: 'ingestProposal' }, json: { proposal: mcp('dataset', d, 'status', { removed: true }) } })),
    ],
  },
  {
    privilege: 'MANAGE_STRUCTURED_PROPERTIES',
    about: 'limited to a named property: acme.fintier yes, another no',
    allowed: 'ann',
    refused: 'ann',
    subject: async (o) => (o === 'allowed' ? property('acme.fintier') : newProperty(`acme.other${next()}`)),
    cells: [
      rest('REST v2', 'POST', (p) => `${V2}/entity/structuredProperty/${enc(p)}/propertyDefinition`, (p) => ({ query: { createIfNotExists: 'false' }, json: { qualifiedName: p.split(':').at(-1), valueType: 'urn:li:dataType:svc.string', entityTypes: ['urn:li:entityType:svc.dataset'], description: 'v2' } })),
      rest('REST v3', 'POST', (p) => `${V3}/entity/structuredProperty/${enc(p)}/propertyDefinition`, (p) => ({ query: { createIfNotExists: 'false' }, json: { value: { qualifiedName: p.split(':').at(-1), valueType: 'urn:li:dataType:svc.string', entityTypes: ['urn:li:entityType:svc.dataset'], description: 'v3' } } })),
      rest('Rest.li', 'POST', () => '/aspects', (p) => ({ query: { action: 'ingestProposal' }, json: { proposal: mcp('structuredProperty', p, 'propertyDefinition', { qualifiedName: p.split(':').at(-1), valueType: 'urn:li:dataType:datahub.string', entityTypes: ['urn:li:entityType:datahub.dataset'], description: 'restli' }) } })),
      gql('mutation m($u: String!) { updateStructuredProperty(input: {urn: $u, description: "graphql"}) { urn } }', (p) => ({ u: p })),
    ],
  },
  {
    privilege: 'DELETE_ENTITY',
    about: 'for a group, not for every admin',
    allowed: 'ada',
    refused: 'amy',
    subject: () => newDataset('marketing'),
    cells: [
      rest('REST v2', 'DELETE', (d) => `${V2}/entity/dataset/${enc(d)}/datasetKey`),
      rest('REST v3', 'DELETE', (d) => `${V3}/entity/dataset/${enc(d)}`),
      rest('Rest.li', 'POST', () => '/entities', (d) => ({ query: { action: 'delete' }, json: { urn: d } })),
    ],
  },
  {
    privilege: 'DELETE_ENTITY',
    about: 'a definition, over GraphQL',
    allowed: 'ada',
    refused: 'amy',
    subject: () => newProperty(`acme.gone${next()}`),
    cells: [gql('mutation m($u: String!) { deleteStructuredProperty(input: {urn: $u}) }', (p) => ({ u: p }))],
  },
  {
    privilege: 'MANAGE_TESTS',
    about: 'for a group, not for every admin',
    allowed: 'ada',
    refused: 'amy',
    subject: async () => `urn:li:test:matrix-${next()}`,
    cells: [
      rest('REST v2', 'POST', (t) => `${V2}/entity/test/${enc(t)}/testInfo`, () => ({ json: { name: 'n', category: 'c', definition: { type: 'JSON', json: testJson } } })),
      rest('REST v3', 'POST', (t) => `${V3}/entity/test/${enc(t)}/testInfo`, () => ({ json: { value: { name: 'n', category: 'c', definition: { type: 'JSON', json: testJson } } } })),
      rest('Rest.li', 'POST', () => '/aspects', (t) => ({ query: { action: 'ingestProposal' }, json: { proposal: mcp('test', t, 'testInfo', { name: 'n', category: 'c', definition: { type: 'JSON', json: testJson } }) } })),
      gql('mutation m($j: String) { createTest(input: {name: "n", category: "c", definition: {json: $j}}) }', () => ({ j: testJson })),
    ],
  },
  {
    privilege: 'BULK_EDIT',
    about: 'a platform privilege of one group',
    allowed: 'ann',
    refused: 'ben',
    subject: () => newDataset('finance'),
    cells: [
      rest('REST v3', 'POST', () => `${V3}/values/bulk`, (d) => ({ json: { urns: [d], property: 'acme.tier', operation: 'set', values: ['gold'], dryRun: true } })),
      gql(`mutation m($u: String!) { bulkEditStructuredProperties(input: {urns: [$u], structuredPropertyUrn: "${property('acme.tier')}", operation: SET, values: [{stringValue: "gold"}], dryRun: true}) { entities } }`, (d) => ({ u: d })),
    ],
  },
  {
    privilege: 'MANAGE_ACCESS_TOKENS',
    about: 'for a group, not for every admin',
    allowed: 'ada',
    refused: 'amy',
    subject: async () => `matrix-machine-${next()}`,
    cells: [
      rest('REST v3', 'POST', () => `${V3}/tokens`, (name) => ({ json: { name, scope: 'read', type: 'machine' } })),
      gql('mutation m($n: String!) { createAccessToken(input: {name: $n, scope: READ, type: MACHINE}) { metadata { id } } }', (name) => ({ n: name })),
    ],
  },
  {
    privilege: 'MANAGE_POLICIES',
    about: 'for a group, not for every admin; DataHub clients writing the aspect are judged the same',
    allowed: 'ada',
    refused: 'amy',
    subject: async () => `matrix-policy-${next()}`,
    cells: [
      rest('REST v2', 'POST', (id) => `${V2}/entity/dataHubPolicy/${enc(`urn:li:dataHubPolicy:${id}`)}/dataHubPolicyInfo`, () => ({ json: { displayName: 'p', privileges: ['VIEW_ENTITY_PAGE'], actors: { groups: ['matrix-nobody'] } } })),
      rest('REST v3', 'POST', () => `${V3}/policies`, (id) => ({ json: { id, displayName: 'p', privileges: ['VIEW_ENTITY_PAGE'], actors: { groups: ['matrix-nobody'] } } })),
      rest('Rest.li', 'POST', () => '/aspects', (id) => ({ query: { action: 'ingestProposal' }, json: { proposal: mcp('dataHubPolicy', `urn:li:dataHubPolicy:${id}`, 'dataHubPolicyInfo', { displayName: 'p', type: 'METADATA', state: 'ACTIVE', privileges: ['VIEW_ENTITY_PAGE'], actors: { groups: ['matrix-nobody'] } }) } })),
      gql('mutation m($i: String!) { createPolicy(input: {id: $i, type: METADATA, name: "p", state: ACTIVE, privileges: ["VIEW_ENTITY_PAGE"], actors: {groups: ["matrix-nobody"], allUsers: false, resourceOwners: false, allGroups: false}}) }', (id) => ({ i: id })),
    ],
  },
];

function outcomeOf(res: HttpResponse | Awaited<ReturnType<typeof graphql>>, iface: Cell['iface'], privilege: string): Outcome {
  if (iface !== 'GraphQL') return restOutcome(res as HttpResponse, privilege);
  const g = res as Awaited<ReturnType<typeof graphql>>;
  const error = g.errors?.[0];
  if (error?.extensions?.code === 'FORBIDDEN') return (error.extensions as { reason?: string }).reason === 'MISSING_PRIVILEGE' && String(error.message).includes(`the ${privilege} privilege`) ? 'forbidden' : `other FORBIDDEN: ${JSON.stringify(error).slice(0, 300)}`;
  return g.status === 200 && !g.errors ? 'ok' : `other ${g.status}: ${JSON.stringify(g.errors).slice(0, 300)}`;
}

beforeAll(async () => {
  await ensureConsoleBuilt();
  const port = await freePort();
  provider = await startOpenIdProvider({ clients: [propgraphClient(`http://127.0.0.1:${port}/auth/callback`)], people: Object.values(PEOPLE) });
  server = await startTestServer({
    search: true,
    env: { AUTH_ENABLED: 'true', ROOT_TOKEN: ROOT, PORT: String(port), RATE_LIMIT_PER_MINUTE: '1000000', WRITE_WAIT_FOR_INDEX: 'false', TEST_EVALUATION: 'false', ...oidcEnv(provider.issuer) },
  });
  for (const qn of ['acme.domain', 'acme.tier', 'acme.pii', 'acme.fintier']) await newProperty(qn);
  for (const [who, person] of Object.entries(PEOPLE)) {
    const { token, landing } = await signInThroughConsoleRoutes(server.url, person);
    if (!token) throw new Error(`${who} was not signed in: landed on ${landing.href}`);
    tokens[who as Who] = token;
  }
  tokens.loader = (await asRoot('POST', `${V3}/tokens`, { json: { name: 'loader', scope: 'write' } })).body.accessToken;
  // Only these policies from here on: the shipped defaults are turned off.
  const applied = await asRoot('POST', `${V3}/policies/apply`, { query: { prune: 'true' }, json: { policies: POLICIES } });
  expect(applied.body.changes.filter((c: { change: string }) => c.change === 'deactivate').map((c: { urn: string }) => c.urn).sort()).toEqual([
    'urn:li:dataHubPolicy:propgraph-default-admin',
    'urn:li:dataHubPolicy:propgraph-default-platform',
    'urn:li:dataHubPolicy:propgraph-default-read',
    'urn:li:dataHubPolicy:propgraph-default-write',
  ]);
}, 180_000);

afterAll(async () => {
  await server?.stop();
  await provider?.stop();
});

test('the people acted as the provider said: their groups came from its groups claim', async () => {
  const me = await graphql(server.url, '{ me { corpUser { urn } scope platformPrivileges { managePolicies manageTokens } } }', undefined, '/api/graphql', { authorization: `Bearer ${tokens.ada}` });
  expect(me.data.me).toEqual({ corpUser: { urn: 'urn:li:corpuser:ada@example.com' }, scope: 'ADMIN', platformPrivileges: { managePolicies: true, manageTokens: true } });
  const amy = await graphql(server.url, '{ me { scope platformPrivileges { managePolicies manageTokens } } }', undefined, '/api/graphql', { authorization: `Bearer ${tokens.amy}` });
  expect(amy.data.me).toEqual({ scope: 'ADMIN', platformPrivileges: { managePolicies: false, manageTokens: false } });
  const bulk = async (who: Who) => (await graphql(server.url, '{ me { platformPrivileges { bulkEditStructuredPropertyValues } } }', undefined, '/api/graphql', { authorization: `Bearer ${tokens[who]}` })).data.me.platformPrivileges;
  expect([await bulk('ann'), await bulk('ben')]).toEqual([{ bulkEditStructuredPropertyValues: true }, { bulkEditStructuredPropertyValues: false }]);
});

test("DataHub's app is told what the policies allow on each entity: getGrantedPrivileges on a resource, an entity's privileges", async () => {
  const [fin, mkt] = [await newDataset('finance'), await newDataset('marketing')];
  const granted = async (who: Who, urn: string) => {
    const answer = await graphql(server.url, 'query q($i: GetGrantedPrivilegesInput!) { getGrantedPrivileges(input: $i) { privileges } }', { i: { actorUrn: `urn:li:corpuser:${who}@example.com`, resourceSpec: { resourceType: 'DATASET', resourceUrn: urn } } }, '/api/v2/graphql', { authorization: `Bearer ${tokens[who]}` });
    return answer.data.getGrantedPrivileges.privileges;
  };
  expect([await granted('ann', fin), await granted('ann', mkt), await granted('ben', fin)]).toEqual([['VIEW_ENTITY_PAGE', 'EDIT_ENTITY_PROPERTIES'], [], []]);
  const privileges = await graphql(server.url, 'query q($u: String!) { dataset(urn: $u) { privileges { canEditProperties } } }', { u: fin }, '/api/v2/graphql', { authorization: `Bearer ${tokens.ann}` });
  expect(privileges.data.dataset.privileges).toEqual({ canEditProperties: true });
  const admin = await graphql(server.url, 'query q($u: String!) { dataset(urn: $u) { privileges { canEditProperties } } }', { u: fin }, '/api/v2/graphql', { authorization: `Bearer ${tokens.amy}` });
  expect(admin.data.dataset.privileges).toEqual({ canEditProperties: false });
});

describe.each(ROWS.map((row) => [`${row.privilege}: ${row.about}`, row] as const))('%s', (_title, row) => {
  describe.each(row.cells.map((cell) => [cell.iface, cell] as const))('over %s', (_iface, cell) => {
    test(`allowed for ${row.allowed}`, async () => {
      const subject = await row.subject('allowed');
      expect(outcomeOf(await cell.act(tokens[row.allowed]!, subject), cell.iface, row.privilege)).toBe('ok');
    });
    test(`refused for ${row.refused}, naming the privilege, changing nothing`, async () => {
      const subject = await row.subject('refused');
      const before = await databaseChecksum(server.database.sql);
      expect(outcomeOf(await cell.act(tokens[row.refused]!, subject), cell.iface, row.privilege)).toBe('forbidden');
      expect(await databaseChecksum(server.database.sql)).toBe(before);
    });
  });
});

test('a refusal says where to look: explain names the policy that would grant it and why it does not', async () => {
  const d = await newDataset('marketing');
  const res = await http(server.url, 'GET', `${V3}/access/explain`, { query: { principal: 'ann@example.com', privilege: 'EDIT_ENTITY_PROPERTIES', urn: d, property: 'acme.tier' }, headers: { authorization: `Bearer ${tokens.ada}` } });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ principal: 'urn:li:corpuser:ann@example.com', groups: ['stewards', 'finance'], basis: 'tokens', scope: 'write', allowed: false });
  // Asking about an entity one may not read is refused: the answer would tell what the entity holds.
  const hidden = await http(server.url, 'GET', `${V3}/access/explain`, { query: { privilege: 'EDIT_ENTITY_PROPERTIES', urn: d }, headers: { authorization: `Bearer ${tokens.ann}` } });
  expect([hidden.status, hidden.body.message]).toEqual([403, expect.stringMatching(/^Asking about .* needs the VIEW_ENTITY_PAGE privilege/)]);
  expect(res.body.notGranting.find((r: { urn: string }) => r.urn === 'urn:li:dataHubPolicy:m-finance').refusal).toMatch(/does not match its resources \(structuredProperties.acme.domain in finance\)/);
});
