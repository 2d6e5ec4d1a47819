/**
 * DataHub's Rest.li routes (src/restli/, issue #13) beyond what the client replay
 * covers: how they refuse bad input (a 4xx naming the field, with the `message`
 * DataHub's client shows, and nothing stored), what they answer about absent things,
 * and deleteReferences cleaning what names a tag. The replay itself is
 * test/conformance/datahubClient.test.ts.
 */
import { databaseChecksum } from '../support/dbChecksum.js';
import { enc, http } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';

const ROOT = 'restli-root-secret';
const auth = { authorization: `Bearer ${ROOT}` };
const P = 'urn:li:structuredProperty:io.restli.retention';
const D = 'urn:li:dataset:(urn:li:dataPlatform:hive,restli.orders,PROD)';
const TAG = 'urn:li:tag:restli-pii';

let server: TestServer;

const post = (path: string, json: unknown) => http(server.url, 'POST', path, { headers: auth, json });
const get = (path: string) => http(server.url, 'GET', path, { headers: auth });

function mcp(changeType: string, urn: string, aspectName: string, value: string, entityType = 'dataset', contentType = 'application/json') {
  return { entityType, entityUrn: urn, changeType, aspectName, aspect: { value, contentType } };
}
const ingest = (proposal: unknown) => post('/aspects?action=ingestProposal', { proposal, async: 'false' });

/** A refused request: this status, a `message` saying `says`, and the database as it was. */
async function refused(send: () => Promise<{ status: number; body: { message?: string } }>, status: number, says: RegExp) {
  const before = await databaseChecksum(server.database.sql);
  const res = await send();
  expect({ status: res.status, message: res.body.message }).toEqual({ status, message: expect.stringMatching(says) });
  expect(await databaseChecksum(server.database.sql)).toBe(before);
}

beforeAll(async () => {
  server = await startTestServer({ env: { AUTH_ENABLED: 'true', ROOT_TOKEN: ROOT } });
  const definition = { qualifiedName: 'io.restli.retention', valueType: 'urn:li:dataType:datahub.number', entityTypes: ['urn:li:entityType:datahub.dataset'] };
  expect((await ingest(mcp('UPSERT', P, 'propertyDefinition', JSON.stringify(definition), 'structuredProperty'))).status).toBe(200);
});
afterAll(async () => {
  await server?.stop();
});

describe('refusals', () => {
  test('aspect text that is not JSON is a 400 naming proposal.aspect.value', async () => {
    await refused(() => ingest(mcp('UPSERT', D, 'status', '{"removed": tru')), 400, /^proposal\.aspect\.value is not valid JSON \(.+\); send the status aspect as JSON text$/);
  });

  test('an aspect the entity type does not have is a 400 naming proposal.aspectName and the known aspects', async () => {
    await refused(() => ingest(mcp('UPSERT', D, 'nope', '{}')), 400, /^proposal\.aspectName: Unknown aspect nope for entity type dataset; known aspects: datasetKey, status, /);
  });

  test('reading an aspect the entity type does not have is a 400 naming it', async () => {
    const res = await get(`/aspects/${enc(D)}?aspect=nope&version=0`);
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/^Unknown aspect nope for entity type dataset/);
  });

  test('an aspect value breaking its rules is refused with the rule, as on REST v3', async () => {
    const bad = JSON.stringify({ qualifiedName: 'io.restli.other', valueType: 'urn:li:dataType:datahub.numbr', entityTypes: ['urn:li:entityType:datahub.dataset'] });
    await refused(() => ingest(mcp('UPSERT', 'urn:li:structuredProperty:io.restli.other', 'propertyDefinition', bad, 'structuredProperty')), 400, /valueType .*is not a data type.*did you mean urn:li:dataType:svc\.number/);
  });

  test('the decoded aspect is held to the input limits, with the path inside it', async () => {
    await refused(() => ingest(mcp('UPSERT', D, 'datasetProperties', '{"name": "a\\u0000b"}')), 400, /^proposal\.aspect\.value\.name contains the character U\+0000/);
  });

  test('a patch that is not a JSON patch is a 400 naming proposal.aspect.value', async () => {
    await refused(() => ingest(mcp('PATCH', D, 'datasetProperties', '{"op": "add"}', 'dataset', 'application/json-patch+json')), 400, /^proposal\.aspect\.value: /);
  });

  test('an entityType that is not the urn\'s is a 400 naming proposal.entityType', async () => {
    await refused(() => ingest(mcp('UPSERT', D, 'status', '{"removed": false}', 'chart')), 400, /^proposal\.entityType is "chart", but entityUrn is a dataset urn; send entityType "dataset"$/);
  });

  test('a batch with one bad proposal writes none of them, and says which one', async () => {
    const other = 'urn:li:dataset:(urn:li:dataPlatform:hive,restli.batch,PROD)';
    await refused(
      () => post('/aspects?action=ingestProposalBatch', { proposals: [mcp('UPSERT', other, 'status', '{"removed": false}'), mcp('UPSERT', other, 'status', 'x')], async: 'false' }),
      400,
      /^proposals\[1\]\.aspect\.value is not valid JSON/,
    );
    expect((await get(`/aspects/${enc(other)}?aspect=datasetKey&version=0`)).status).toBe(404);
  });

  test('a value of a property that does not exist is refused and stores nothing', async () => {
    const value = JSON.stringify({ properties: [{ propertyUrn: 'urn:li:structuredProperty:io.restli.nope', values: [{ double: 1 }] }] });
    const before = await databaseChecksum(server.database.sql);
    const res = await ingest(mcp('UPSERT', D, 'structuredProperties', value));
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(res.body.message).toMatch(/io\.restli\.nope/);
    expect(await databaseChecksum(server.database.sql)).toBe(before);
  });

  test('a missing or unknown action is a 400 naming the actions', async () => {
    await refused(() => post('/aspects', { proposal: {} }), 400, /^Query parameter action is required: ingestProposal or ingestProposalBatch$/);
    await refused(() => post('/entities?action=purge', { urn: D }), 400, /^Unknown action "purge": delete or deleteReferences$/);
  });

  test('without a token every Rest.li route is 401 with a message, /config included', async () => {
    for (const [method, path] of [['GET', '/config'], ['GET', '/gms/config'], ['GET', `/aspects/${enc(D)}?aspect=status`], ['POST', '/aspects?action=ingestProposal'], ['GET', `/entitiesV2/${enc(D)}`], ['POST', '/entities?action=delete']] as const) {
      const res = await http(server.url, method, path, method === 'POST' ? { json: { urn: D } } : {});
      expect({ path, status: res.status, body: res.body }).toEqual({ path, status: 401, body: { error: 'Unauthorized', message: 'Missing access token: send Authorization: Bearer <token>' } });
    }
  });

  test('an unknown path is a JSON 404 whose message names the route', async () => {
    const res = await get('/gms/entitiesV3/x');
    expect(res.status).toBe(404);
    expect(res.body.message).toMatch(/^No route matches GET \/gms\/entitiesV3\/x\./);
  });
});

describe('reads', () => {
  test('/config says noCode "true" and the DataHub version whose contract is followed, at / and /gms', async () => {
    for (const path of ['/config', '/gms/config']) {
      const res = await get(path);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.body).toMatchObject({ noCode: 'true', datahub: { serverEnv: 'core' }, versions: { 'acryldata/datahub': { version: expect.stringMatching(/^v\d+\.\d+\.\d+$/) } } });
    }
  });

  test('an absent aspect, an absent entity and an entity type this server lacks are all 404', async () => {
    expect((await get(`/aspects/${enc('urn:li:dataset:(urn:li:dataPlatform:hive,restli.none,PROD)')}?aspect=datasetKey&version=0`)).status).toBe(404);
    expect((await get('/aspects/urn%3Ali%3Atelemetry%3AclientId?aspect=telemetryClientId&version=0')).status).toBe(404);
    expect((await get(`/aspects/${enc(P)}?aspect=status&version=0`)).status).toBe(404);
  });

  test('a version not stored is 404; a version that is no number is 400 (earlier versions: test/integration/historyAndImpact.test.ts)', async () => {
    const res = await get(`/aspects/${enc(P)}?aspect=propertyDefinition&version=3`);
    expect(res.status).toBe(404);
    expect(res.body.message).toBe(`Version 3 of aspect propertyDefinition of ${P} does not exist`);
    const bad = await get(`/aspects/${enc(P)}?aspect=propertyDefinition&version=latest`);
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/^Query parameter version must be a whole number >= 0/);
  });

  test('a definition written with datahub type urns reads back in the canonical svc namespace, under its record class', async () => {
    const res = await get(`/aspects/${enc(P)}?aspect=propertyDefinition&version=0`);
    expect(res.body).toEqual({
      aspect: { 'com.linkedin.structured.StructuredPropertyDefinition': { qualifiedName: 'io.restli.retention', valueType: 'urn:li:dataType:svc.number', entityTypes: ['urn:li:entityType:svc.dataset'] } },
      version: 0,
    });
  });

  test('entitiesV2 of a missing entity answers its key aspect alone', async () => {
    const missing = 'urn:li:dataset:(urn:li:dataPlatform:hive,restli.missing,PROD)';
    const res = await get(`/entitiesV2/${enc(missing)}?aspects=List(status)`);
    expect(res.body).toEqual({
      entityName: 'dataset',
      urn: missing,
      aspects: { datasetKey: { name: 'datasetKey', type: 'VERSIONED', version: 0, value: { platform: 'urn:li:dataPlatform:hive', name: 'restli.missing', origin: 'PROD' } } },
    });
  });
});

describe('proposals', () => {
  const values = (n: number) => ({ properties: [{ propertyUrn: P, values: [{ double: n }] }] });

  test('an UPSERT of values brings a dataset nothing created yet into being, as DataHub ingestion does', async () => {
    const fresh = 'urn:li:dataset:(urn:li:dataPlatform:hive,restli.fresh,PROD)';
    expect((await ingest(mcp('UPSERT', fresh, 'structuredProperties', JSON.stringify(values(7))))).status).toBe(200);
    const res = await get(`/aspects/${enc(fresh)}?aspect=structuredProperties&version=0`);
    expect(res.body).toEqual({ aspect: { 'com.linkedin.structured.StructuredProperties': values(7) }, version: 0 });
  });

  test('a PATCH of values does too, applied to an empty aspect', async () => {
    const fresh = 'urn:li:dataset:(urn:li:dataPlatform:hive,restli.patched,PROD)';
    const patch = { arrayPrimaryKeys: { properties: ['propertyUrn'] }, patch: [{ op: 'add', path: `/properties/${P}`, value: values(8).properties[0] }] };
    expect((await ingest(mcp('PATCH', fresh, 'structuredProperties', JSON.stringify(patch), 'dataset', 'application/json-patch+json'))).status).toBe(200);
    expect((await get(`/entitiesV2/${enc(fresh)}?aspects=List(structuredProperties)`)).body.aspects.structuredProperties.value).toEqual(values(8));
  });

  test('CREATE refuses an aspect that exists; DELETE removes one', async () => {
    const urn = 'urn:li:dataset:(urn:li:dataPlatform:hive,restli.created,PROD)';
    expect((await ingest(mcp('CREATE', urn, 'status', '{"removed": false}'))).status).toBe(200);
    await refused(() => ingest(mcp('CREATE', urn, 'status', '{"removed": true}')), 400, /already exists/);
    expect((await ingest({ entityType: 'dataset', entityUrn: urn, changeType: 'DELETE', aspectName: 'status' })).status).toBe(200);
    expect((await get(`/aspects/${enc(urn)}?aspect=status&version=0`)).status).toBe(404);
  });
});

describe('deleteReferences', () => {
  const tagged = 'urn:li:dataset:(urn:li:dataPlatform:hive,restli.tagged,PROD)';
  const tags = (urn: string) => ({ tags: [{ tag: urn }, { tag: 'urn:li:tag:keep' }] });

  beforeAll(async () => {
    const schema = { schemaName: 't', platform: 'urn:li:dataPlatform:hive', version: 0, hash: '', platformSchema: { 'com.linkedin.schema.OtherSchema': { rawSchema: '' } }, fields: [{ fieldPath: 'ip', nativeDataType: 'string', type: { type: { 'com.linkedin.schema.StringType': {} } }, globalTags: tags(TAG) }] };
    const res = await post('/aspects?action=ingestProposalBatch', {
      proposals: [mcp('UPSERT', tagged, 'globalTags', JSON.stringify(tags(TAG))), mcp('UPSERT', tagged, 'schemaMetadata', JSON.stringify(schema))],
      async: 'false',
    });
    expect(res.status).toBe(200);
  });

  test('a dry run counts the aspects naming the tag and changes nothing', async () => {
    const before = await databaseChecksum(server.database.sql);
    const res = await post('/entities?action=deleteReferences', { urn: TAG, dryRun: true });
    expect(res.body).toEqual({
      value: {
        total: 2,
        relatedAspects: [
          { entity: tagged, aspect: 'globalTags', relationship: 'TaggedWith' },
          { entity: tagged, aspect: 'schemaMetadata', relationship: 'SchemaFieldTaggedWith' },
        ],
      },
    });
    expect(await databaseChecksum(server.database.sql)).toBe(before);
  });

  test('for real it takes the tag out of globalTags and out of the schema field, and keeps the other tag', async () => {
    expect((await post('/entities?action=deleteReferences', { urn: TAG, dryRun: false })).body.value.total).toBe(2);
    const entity = await get(`/entitiesV2/${enc(tagged)}?aspects=List(globalTags,schemaMetadata)`);
    expect(entity.body.aspects.globalTags.value).toEqual({ tags: [{ tag: 'urn:li:tag:keep' }] });
    expect(entity.body.aspects.schemaMetadata.value.fields[0].globalTags).toEqual({ tags: [{ tag: 'urn:li:tag:keep' }] });
    expect((await post('/entities?action=deleteReferences', { urn: TAG, dryRun: true })).body.value).toEqual({ total: 0, relatedAspects: [] });
  });
});

describe('hard delete', () => {
  test('answers the rows it removed, and the entity is gone', async () => {
    const doomed = 'urn:li:dataset:(urn:li:dataPlatform:hive,restli.doomed,PROD)';
    expect((await ingest(mcp('UPSERT', doomed, 'status', '{"removed": false}'))).status).toBe(200);
    const res = await post('/entities?action=delete', { urn: doomed });
    expect(res.body).toEqual({ value: { urn: doomed, rows: 2, timeseriesRows: 0 } });
    expect((await get(`/aspects/${enc(doomed)}?aspect=datasetKey&version=0`)).status).toBe(404);
    expect((await post('/entities?action=delete', { urn: doomed })).body).toEqual({ value: { urn: doomed, rows: 0, timeseriesRows: 0 } });
  });
});

describe('issue #29, item 10: reserved prototype keys inside a decoded aspect', () => {
  test.each([
    ['at the top of the aspect', '{"__proto__": {"polluted": true}, "name": "x"}', /^proposal\.aspect\.value\.__proto__ is the reserved key "__proto__"/],
    ['inside it', '{"customProperties": {"__proto__": "x"}}', /^proposal\.aspect\.value\.customProperties\.__proto__ is the reserved key "__proto__"/],
    ['a constructor holding prototype', '{"customProperties": {"constructor": {"prototype": {}}}}', /^proposal\.aspect\.value\.customProperties\.constructor is a "constructor" key holding "prototype"/],
  ])('%s: a 400 naming the path, as a REST body with it is refused; nothing stored', async (_where, value, says) => {
    await refused(() => ingest(mcp('UPSERT', D, 'datasetProperties', value)), 400, says);
    const rest = await http(server.url, 'POST', `/openapi/v3/entity/dataset/${enc(D)}/datasetProperties`, { headers: auth, query: { createIfNotExists: 'false' }, body: `{"value": ${value}}`, contentType: 'application/json' });
    expect(rest.status).toBe(400);
  });

  test('in a batch, and in system metadata sent as JSON text, too', async () => {
    await refused(() => post('/aspects?action=ingestProposalBatch', { proposals: [mcp('UPSERT', D, 'status', '{"removed": false}'), mcp('UPSERT', D, 'datasetProperties', '{"__proto__": {}}')] }), 400, /^proposals\[1\]\.aspect\.value\.__proto__ is the reserved key/);
    await refused(() => ingest({ ...mcp('UPSERT', D, 'status', '{"removed": false}'), systemMetadata: '{"properties": {"__proto__": {}}}' }), 400, /^proposal\.systemMetadata\.properties\.__proto__ is the reserved key/);
  });

  test('nesting inside the aspect text is measured before it is parsed, with the path', async () => {
    const deep = `{"customProperties": {"k": ${'['.repeat(200_000)}${']'.repeat(200_000)}}}`;
    await refused(() => ingest(mcp('UPSERT', D, 'datasetProperties', deep)), 400, /^proposal\.aspect\.value\.customProperties\.k(\[0\]){62} is nested deeper than the limit of 64 levels/);
  });
});

describe('issue #29, item 8: a proposal batch is authorized whole before its first write', () => {
  let writer: Record<string, string>;
  beforeAll(async () => {
    const created = await post('/openapi/v3/tokens', { name: 'restli-writer', scope: 'write' });
    writer = { authorization: `Bearer ${created.body.accessToken}` };
  });
  const batchAs = (headers: Record<string, string>, proposals: unknown[]) => http(server.url, 'POST', '/aspects?action=ingestProposalBatch', { headers, json: { proposals, async: 'false' } });
  const permitted = (name: string) => mcp('UPSERT', `urn:li:dataset:(urn:li:dataPlatform:hive,restli.${name},PROD)`, 'status', '{"removed": false}');

  test.each([
    ['a metadata test written', mcp('UPSERT', 'urn:li:test:restli-batch', 'testInfo', JSON.stringify({ name: 'n', category: 'c', definition: { type: 'JSON', json: '{"on": {"types": ["dataset"]}, "rules": []}' } }), 'test')],
    ['a definition deleted', { entityType: 'structuredProperty', entityUrn: P, changeType: 'DELETE', aspectName: 'propertyDefinition' }],
    ['an entity deleted through its key aspect', { entityType: 'dataset', entityUrn: D, changeType: 'DELETE', aspectName: 'datasetKey' }],
  ])('a write token sending a permitted proposal, then one that needs admin (%s), gets a 403 naming the second, and nothing is written', async (_what, adminOnly) => {
    await refused(() => batchAs(writer, [permitted('first'), adminOnly]), 403, /^proposals\[1\] \(.*\): .*needs a token with admin scope; this token has write scope$/);
    expect((await get(`/aspects/${enc('urn:li:dataset:(urn:li:dataPlatform:hive,restli.first,PROD)')}?aspect=status&version=0`)).status).toBe(404);
  });

  test('the same batch with an admin token is written whole', async () => {
    const res = await batchAs(auth, [permitted('second'), mcp('UPSERT', 'urn:li:test:restli-batch-ok', 'testInfo', JSON.stringify({ name: 'n', category: 'c', definition: { type: 'JSON', json: '{"on": {"types": ["dataset"]}, "rules": []}' } }), 'test')]);
    expect(res.status).toBe(200);
    expect((await get(`/aspects/${enc('urn:li:dataset:(urn:li:dataPlatform:hive,restli.second,PROD)')}?aspect=status&version=0`)).status).toBe(200);
  });
});
