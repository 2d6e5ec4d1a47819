/**
 * Policies under hostile and random input (issue #40): generated broken policies sent
 * over REST, GraphQL, DataHub's Rest.li (the dataHubPolicyInfo aspect) and the apply
 * route are refused with a 4xx and change nothing; generated writes and reads by people
 * whose policies allow only some of them are answered 2xx or 403, never 5xx, and a 403
 * changes nothing; generated questions to explain and who-could are answered or refused
 * with a 400. No refusal is a 500.
 */
import fc from 'fast-check';
import { databaseChecksum } from '../support/dbChecksum.js';
import { graphql } from '../support/graphql.js';
import { enc, http } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';

const ROOT = 'policy-fuzz-root';
const V3 = '/openapi/v3';
const TIER = 'urn:li:structuredProperty:fz.tier';
const DOMAIN = 'urn:li:structuredProperty:fz.domain';
const DATASETS = Array.from({ length: 12 }, (_, i) => `urn:li:dataset:(urn:li:dataPlatform:hive,fz.t${i},PROD)`);

let server: TestServer;
const serverErrors: string[] = [];
const sent: Record<string, number> = {};
let steward = '';

const VALID = { displayName: 'p', type: 'METADATA', state: 'ACTIVE', privileges: ['EDIT_ENTITY_PROPERTIES'], actors: { groups: ['g'] }, resources: { filter: { criteria: [{ field: 'TYPE', values: ['dataset'] }] } } };

async function send(category: string, method: string, path: string, json?: unknown, token = ROOT, query?: Record<string, string>): Promise<number> {
  sent[category] = (sent[category] ?? 0) + 1;
  const res = await http(server.url, method, path, { ...(json !== undefined ? { json } : {}), ...(query ? { query } : {}), headers: { authorization: `Bearer ${token}` }, readYourWrites: false });
  if (res.status >= 500) serverErrors.push(`${category}: ${method} ${path} ${JSON.stringify(json).slice(0, 200)} -> ${res.status} ${res.text.slice(0, 200)}`);
  return res.status;
}

/** A valid policy broken in one place: a wrong type, an unknown name, an empty or oversized list, a NOT_EQUALS. */
const brokenPolicy: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>(null, 42, 'policy', [], [VALID]),
  fc.record({ privileges: fc.oneof(fc.constant([]), fc.array(fc.string({ maxLength: 20 }), { minLength: 1, maxLength: 3 }).filter((ps) => ps.some((p) => !['VIEW_ENTITY_PAGE', 'EDIT_ENTITY', 'EDIT_ENTITY_PROPERTIES'].includes(p))), fc.constant('EDIT_ENTITY'), fc.constant([1])) }).map((o) => ({ ...VALID, ...o })),
  fc.record({ actors: fc.constantFrom<unknown>({}, { users: 'ann' }, { users: [''] }, { users: ['ann smith'] }, { groups: [null] }, { allUsers: 'yes' }, null, []) }).map((o) => ({ ...VALID, ...o })),
  fc.record({ type: fc.string({ maxLength: 10 }).filter((t) => !['METADATA', 'PLATFORM', 'metadata', 'platform'].includes(t.trim())) }).map((o) => ({ ...VALID, ...o })),
  fc.record({ state: fc.constantFrom<unknown>('ON', 1, true, 'DRAFT') }).map((o) => ({ ...VALID, ...o })),
  fc.record({ displayName: fc.constantFrom<unknown>('', '   ', 7, null, 'x'.repeat(600)) }).map((o) => ({ ...VALID, ...o })),
  fc
    .record({
      field: fc.oneof(fc.constantFrom('COLOUR', '', 'structuredProperties.', 'TYPE', 'URN', 'DOMAIN'), fc.string({ maxLength: 30 })),
      values: fc.oneof(fc.constant([]), fc.constant('dataset'), fc.array(fc.oneof(fc.constant('spreadsheet'), fc.constant('not-a-urn'), fc.integer()), { minLength: 1, maxLength: 3 })),
      condition: fc.constantFrom('EQUALS', 'STARTS_WITH', 'NOT_EQUALS', 'LIKE'),
    })
    .filter((c) => !(c.field === 'URN' && c.condition === 'STARTS_WITH' && Array.isArray(c.values) && c.values.length > 0 && c.values.every((v) => typeof v === 'string')))
    .map((c) => ({ ...VALID, resources: { filter: { criteria: [c] } } })),
  fc.constantFrom<unknown>(
    { ...VALID, type: 'PLATFORM', privileges: ['BULK_EDIT'] },
    { ...VALID, privileges: ['MANAGE_POLICIES'] },
    { ...VALID, resources: { allResources: true, filter: { criteria: [{ field: 'TYPE', values: ['dataset'] }] } } },
    { ...VALID, resources: { privilegeConstraints: { criteria: [{ field: 'TAG', values: ['x'] }] } } },
    { ...VALID, resources: { filter: { criteria: Array.from({ length: 21 }, () => ({ field: 'TYPE', values: ['dataset'] })) } } },
    { ...VALID, actors: { users: Array.from({ length: 1001 }, (_, i) => `u${i}`) } },
  ),
);

beforeAll(async () => {
  server = await startTestServer({ search: true, env: { AUTH_ENABLED: 'true', ROOT_TOKEN: ROOT, RATE_LIMIT_PER_MINUTE: '1000000', TEST_EVALUATION: 'false' } });
  for (const [urn, qn] of [[TIER, 'fz.tier'], [DOMAIN, 'fz.domain']]) {
    const res = await http(server.url, 'POST', `${V3}/entity/structuredProperty/${enc(urn!)}/propertyDefinition`, { json: { value: { qualifiedName: qn, valueType: 'urn:li:dataType:svc.string', entityTypes: ['urn:li:entityType:svc.dataset'] } }, headers: { authorization: `Bearer ${ROOT}` } });
    expect(res.status).toBe(200);
  }
  const made = await http(server.url, 'POST', `${V3}/entity/dataset`, {
    json: DATASETS.map((urn, i) => ({ urn, status: { value: { removed: false } }, structuredProperties: { value: { properties: [{ propertyUrn: DOMAIN, values: [{ string: i % 2 === 0 ? 'finance' : 'marketing' }] }] } } })),
    headers: { authorization: `Bearer ${ROOT}` },
  });
  expect(made.status).toBe(200);
  steward = (await http(server.url, 'POST', `${V3}/tokens`, { json: { name: 'steward', scope: 'write' }, headers: { authorization: `Bearer ${ROOT}` } })).body.accessToken;
  const applied = await http(server.url, 'POST', `${V3}/policies/apply`, {
    query: { prune: 'true' },
    json: {
      policies: [
        { id: 'fz-read', displayName: 'read', privileges: ['VIEW_ENTITY_PAGE'], actors: { allUsers: true }, resources: { filter: { criteria: [{ field: 'structuredProperties.fz.domain', values: ['finance'] }] } } },
        { id: 'fz-steward', displayName: 'steward', privileges: ['EDIT_ENTITY_PROPERTIES'], actors: { users: ['urn:li:corpuser:__service_steward'] }, resources: { filter: { criteria: [{ field: 'structuredProperties.fz.domain', values: ['finance'] }] }, privilegeConstraints: { criteria: [{ field: 'PROPERTY', values: ['fz.tier'] }] } } },
      ],
    },
    headers: { authorization: `Bearer ${ROOT}` },
  });
  expect(applied.status).toBe(200);
}, 180_000);

afterAll(async () => {
  await server?.stop();
});

test('broken policies are refused with a 4xx on every route that takes one, and change nothing', async () => {
  const before = await databaseChecksum(server.database.sql);
  let n = 0;
  await fc.assert(
    fc.asyncProperty(brokenPolicy, async (policy) => {
      const id = `fz-bad-${++n}`;
      const statuses = [
        await send('REST create', 'POST', `${V3}/policies`, typeof policy === 'object' && policy !== null && !Array.isArray(policy) ? { id, ...policy } : policy),
        await send('REST replace', 'PUT', `${V3}/policies/fz-read`, policy),
        await send('REST apply', 'POST', `${V3}/policies/apply`, { policies: [typeof policy === 'object' && policy !== null && !Array.isArray(policy) ? { id, ...policy } : policy] }),
        await send('Rest.li aspect', 'POST', '/aspects', { proposal: { entityType: 'dataHubPolicy', entityUrn: `urn:li:dataHubPolicy:${id}`, changeType: 'UPSERT', aspectName: 'dataHubPolicyInfo', aspect: { value: JSON.stringify(policy), contentType: 'application/json' } } }, ROOT, { action: 'ingestProposal' }),
      ];
      for (const s of statuses) expect([s, s >= 400 && s < 500]).toEqual([s, true]);
    }),
    { numRuns: 120, seed: 40 },
  );
  // GraphQL validates its input types first; what passes them is read by the same parser.
  const gql = await graphql(server.url, 'mutation { createPolicy(input: {type: METADATA, name: "x", state: ACTIVE, privileges: ["NOPE"], actors: {allUsers: true, resourceOwners: false, allGroups: false}}) }', undefined, '/api/graphql', { authorization: `Bearer ${ROOT}` });
  expect(gql.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  expect(await databaseChecksum(server.database.sql)).toBe(before);
  expect(serverErrors).toEqual([]);
});

test('random writes by a token the policies allow only some of are 2xx or 403, and a 403 changes nothing', async () => {
  await fc.assert(
    fc.asyncProperty(fc.integer({ min: 0, max: DATASETS.length - 1 }), fc.constantFrom(TIER, DOMAIN), fc.constantFrom('gold', 'silver', 'finance', 'marketing'), async (i, property, value) => {
      const urn = DATASETS[i]!;
      const before = await databaseChecksum(server.database.sql);
      const domain = i % 2 === 0 ? 'finance' : 'marketing';
      // The whole aspect is written: the domain kept as it is, unless the write is about the domain.
      const properties = property === DOMAIN ? [{ propertyUrn: DOMAIN, values: [{ string: value }] }] : [{ propertyUrn: DOMAIN, values: [{ string: domain }] }, { propertyUrn: TIER, values: [{ string: value }] }];
      const status = await send('values', 'POST', `${V3}/entity/dataset/${enc(urn)}/structuredProperties`, { value: { properties } }, steward, { createIfNotExists: 'false' });
      // The steward may change fz.tier on finance datasets; a write that changes no value needs nothing.
      const allowed = (property === TIER && domain === 'finance') || (property === DOMAIN && value === domain);
      expect([urn, property, value, status]).toEqual([urn, property, value, allowed ? 200 : 403]);
      if (!allowed) expect(await databaseChecksum(server.database.sql)).toBe(before);
    }),
    { numRuns: 60, seed: 40 },
  );
  expect(serverErrors).toEqual([]);
});

test('generated questions to explain and who-could are answered or refused with a 400, never a 5xx', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.oneof(fc.constantFrom('EDIT_ENTITY_PROPERTIES', 'VIEW_ENTITY_PAGE', 'MANAGE_POLICIES', 'BULK_EDIT'), fc.string({ maxLength: 30 })),
      fc.oneof(fc.constantFrom(...DATASETS, 'urn:li:dataset:(broken', '', 'urn:li:test:x'), fc.string({ maxLength: 40 })),
      fc.oneof(fc.constantFrom('fz.tier', 'urn:li:structuredProperty:fz.domain', ''), fc.string({ maxLength: 20 })),
      fc.constantFrom(steward, ROOT),
      async (privilege, urn, property, token) => {
        const query = { privilege, ...(urn ? { urn } : {}), ...(property ? { property } : {}) };
        for (const route of ['/access/explain', '/access/who']) {
          const status = await send(route, 'GET', `${V3}${route}`, undefined, token, query);
          expect(status === 200 || (status >= 400 && status < 500)).toBe(true);
        }
      },
    ),
    { numRuns: 80, seed: 40 },
  );
  expect(serverErrors).toEqual([]);
  expect(Object.values(sent).reduce((a, b) => a + b, 0)).toBeGreaterThan(600);
});
