/**
 * Issue #29, item 5: a definition change that drops stored values (a new version of a
 * property that has some; changing its valueType needs one) is as destructive as a hard
 * delete, so it needs an admin token. A write token gets a 403 naming how many values it
 * would drop, on every interface (REST v2 and v3, a v3 batch, GraphQL, Rest.li alone and
 * in a batch, the CLI), and nothing changes. Changes that drop nothing stay write's.
 */
import { rmSync } from 'node:fs';
import { databaseChecksum } from '../support/dbChecksum.js';
import { enc, http } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { ensureCliBuilt, runCli, tempDir, writeFile } from '../e2e/cliRunner.js';

const ROOT = 'drop-root-secret';
const admin = { authorization: `Bearer ${ROOT}` };
const QN = 'io.drop.tier';
const P = `urn:li:structuredProperty:${QN}`;
const dataset = (i: number) => `urn:li:dataset:(urn:li:dataPlatform:hive,drop.t${i},PROD)`;
const definition = (extra: Record<string, unknown> = {}) => ({
  qualifiedName: QN,
  valueType: 'urn:li:dataType:svc.string',
  entityTypes: ['urn:li:entityType:svc.dataset'],
  cardinality: 'MULTIPLE',
  version: '20260101000000',
  ...extra,
});
const retyped = definition({ valueType: 'urn:li:dataType:svc.number', version: '20260202000000' });
const SAYS = /^This definition of urn:li:structuredProperty:io\.drop\.tier starts a new version, which would drop its 6 stored values on 5 entities \(dataset: 5\); a change that drops stored values needs a token with admin scope$/;

let server: TestServer;
let writer: Record<string, string>;
let writerToken: string;

async function refused(send: () => Promise<{ status: number; body: any }>, status = 403): Promise<any> {
  const before = await databaseChecksum(server.database.sql);
  const res = await send();
  expect(res.status).toBe(status);
  expect(await databaseChecksum(server.database.sql)).toBe(before);
  return res.body;
}

beforeAll(async () => {
  await ensureCliBuilt();
  server = await startTestServer({ env: { AUTH_ENABLED: 'true', ROOT_TOKEN: ROOT } });
  writerToken = (await http(server.url, 'POST', '/openapi/v3/tokens', { json: { name: 'drop-writer', scope: 'write' }, headers: admin })).body.accessToken;
  writer = { authorization: `Bearer ${writerToken}` };
  expect((await http(server.url, 'POST', `/openapi/v3/entity/structuredProperty/${enc(P)}/propertyDefinition`, { json: { value: definition() }, headers: admin })).status).toBe(200);
  const values = (i: number) => (i === 0 ? [{ string: 'gold' }, { string: 'silver' }] : [{ string: 'gold' }]);
  const items = Array.from({ length: 5 }, (_, i) => ({ urn: dataset(i), status: { value: { removed: false } }, structuredProperties: { value: { properties: [{ propertyUrn: P, values: values(i) }] } } }));
  expect((await http(server.url, 'POST', '/openapi/v3/entity/dataset', { json: items, headers: writer })).status).toBe(200);
}, 120_000);
afterAll(async () => {
  await server?.stop();
});

describe('a write token is refused, naming what would be dropped', () => {
  test('REST v3: the propertyDefinition aspect', async () => {
    const body = await refused(() => http(server.url, 'POST', `/openapi/v3/entity/structuredProperty/${enc(P)}/propertyDefinition`, { query: { createIfNotExists: 'false' }, json: { value: retyped }, headers: writer }));
    expect(body).toEqual({ error: 'Forbidden', message: expect.stringMatching(SAYS) });
  });

  test('REST v2, under /gms too', async () => {
    for (const prefix of ['/openapi', '/gms/openapi']) {
      const body = await refused(() => http(server.url, 'POST', `${prefix}/v2/entity/structuredProperty/${enc(P)}/propertyDefinition`, { query: { createIfNotExists: 'false' }, json: retyped, headers: writer }));
      expect(body.message).toMatch(SAYS);
    }
  });

  test('REST v3: a batch', async () => {
    const body = await refused(() => http(server.url, 'POST', '/openapi/v3/entity/structuredProperty', { json: [{ urn: P, propertyDefinition: { value: retyped } }], headers: writer }));
    expect(body.message).toMatch(SAYS);
  });

  test('a new version that changes nothing else drops the values too, and is refused the same way', async () => {
    const body = await refused(() => http(server.url, 'POST', `/openapi/v3/entity/structuredProperty/${enc(P)}/propertyDefinition`, { query: { createIfNotExists: 'false' }, json: { value: definition({ version: '20260303000000' }) }, headers: writer }));
    expect(body.message).toMatch(SAYS);
  });

  test('GraphQL: replaceStructuredPropertyDefinition is FORBIDDEN with the same message', async () => {
    const query = 'mutation m($input: ReplaceStructuredPropertyDefinitionInput!) { replaceStructuredPropertyDefinition(input: $input) { urn } }';
    const input = { urn: P, valueType: 'urn:li:dataType:svc.number', entityTypes: ['urn:li:entityType:svc.dataset'], cardinality: 'MULTIPLE', version: '20260202000000' };
    const body = await refused(() => http(server.url, 'POST', '/api/graphql', { json: { query, variables: { input } }, headers: writer }), 200);
    expect(body.errors[0]).toMatchObject({ message: expect.stringMatching(SAYS), extensions: { code: 'FORBIDDEN' } });
  });

  test('Rest.li: a proposal, and a batch whose earlier proposal is permitted (nothing of it is written)', async () => {
    const proposal = { entityType: 'structuredProperty', entityUrn: P, changeType: 'UPSERT', aspectName: 'propertyDefinition', aspect: { value: JSON.stringify(retyped), contentType: 'application/json' } };
    const one = await refused(() => http(server.url, 'POST', '/aspects?action=ingestProposal', { json: { proposal }, headers: writer }));
    expect(one.message).toMatch(SAYS);
    const first = { entityType: 'dataset', entityUrn: dataset(99), changeType: 'UPSERT', aspectName: 'status', aspect: { value: '{"removed": false}', contentType: 'application/json' } };
    const batch = await refused(() => http(server.url, 'POST', '/aspects?action=ingestProposalBatch', { json: { proposals: [first, proposal] }, headers: writer }));
    expect(batch.message).toMatch(/^proposals\[1\] \(UPSERT propertyDefinition of urn:li:structuredProperty:io\.drop\.tier\): This definition of .* would drop its 6 stored values on 5 entities/);
  });

  test('the CLI: properties upsert exits non-zero with the message, and nothing is written', async () => {
    const home = tempDir();
    try {
      const file = writeFile(home, 'retype.yaml', `- id: ${QN}\n  type: number\n  cardinality: MULTIPLE\n  entity_types: [dataset]\n  version: 20260202000000\n`);
      const before = await databaseChecksum(server.database.sql);
      const result = await runCli(['properties', 'upsert', '-f', file], { home, server: server.url, token: writerToken });
      expect(result.code).not.toBe(0);
      expect(result.stderr).toMatch(/would drop its 6 stored values on 5 entities \(dataset: 5\); a change that drops stored values needs a token with admin scope/);
      expect(await databaseChecksum(server.database.sql)).toBe(before);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});

describe('what stays a write', () => {
  test('a change that keeps the version (no values dropped) is a write token\'s', async () => {
    const res = await http(server.url, 'POST', `/openapi/v3/entity/structuredProperty/${enc(P)}/propertyDefinition`, { query: { createIfNotExists: 'false' }, json: { value: definition({ description: 'kept' }) }, headers: writer });
    expect(res.status).toBe(200);
  });

  test('a new version of a property with no values is a write token\'s', async () => {
    const empty = 'urn:li:structuredProperty:io.drop.empty';
    const def = (extra: Record<string, unknown>) => ({ value: { qualifiedName: 'io.drop.empty', valueType: 'urn:li:dataType:svc.string', entityTypes: ['urn:li:entityType:svc.dataset'], ...extra } });
    expect((await http(server.url, 'POST', `/openapi/v3/entity/structuredProperty/${enc(empty)}/propertyDefinition`, { json: def({}), headers: writer })).status).toBe(200);
    const res = await http(server.url, 'POST', `/openapi/v3/entity/structuredProperty/${enc(empty)}/propertyDefinition`, { query: { createIfNotExists: 'false' }, json: def({ valueType: 'urn:li:dataType:svc.number', version: '20260202000000' }), headers: writer });
    expect(res.status).toBe(200);
  });
});

test('an admin token applies the change, and the values are gone', async () => {
  const res = await http(server.url, 'POST', `/openapi/v3/entity/structuredProperty/${enc(P)}/propertyDefinition`, { query: { createIfNotExists: 'false' }, json: { value: retyped }, headers: admin });
  expect(res.status).toBe(200);
  const read = await http(server.url, 'GET', `/openapi/v3/entity/dataset/${enc(dataset(0))}/structuredProperties`, { headers: admin });
  expect(read.body.value?.properties ?? []).toEqual([]);
});
