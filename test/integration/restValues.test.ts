/**
 * Structured property values over REST v2 and v3 (docs/contract.md §3, §4): the adapter's
 * contract (the POST and PATCH routes, their v2/v3 shapes and content types, patch
 * documents, error mapping, the input limits REST applies to the body). The value
 * rules (types, allowed values, cardinality, immutability, patch semantics, schema
 * fields, concurrent writers) are tested at the service, in
 * test/services/values.test.ts; this suite runs on one backend.
 */
import { enc, http } from '../support/http.js';
import { createDatasets, datasetUrnOf, defineProperty, getProperties, setProperties, V3 } from '../support/fixtures.js';
import { startTestServer, type TestServer } from '../support/server.js';

const V2 = '/openapi/v2';
const keyed = { arrayPrimaryKeys: { properties: ['propertyUrn'] } };

describe('values over REST', () => {
  let server: TestServer;
  let url: string;
  let seq = 0;
  const name = (prefix = 'io.rest.val') => `${prefix}.p${++seq}`;

  let retention: string; // number, MULTIPLE, allowed 30/60/365
  let tier: string; // string, SINGLE, allowed gold/silver
  let owner: string; // string, SINGLE, any value

  beforeAll(async () => {
    server = await startTestServer();
    url = server.url;
    retention = await defineProperty(url, 'io.val.retention', {
      valueType: 'urn:li:dataType:svc.number',
      cardinality: 'MULTIPLE',
      entityTypes: ['urn:li:entityType:svc.dataset', 'urn:li:entityType:svc.schemaField'],
      allowedValues: [{ value: { double: 30 } }, { value: { double: 60 } }, { value: { double: 365 } }],
    });
    tier = await defineProperty(url, 'io.val.tier', { valueType: 'urn:li:dataType:svc.string', allowedValues: [{ value: { string: 'gold' } }, { value: { string: 'silver' } }] });
    owner = await defineProperty(url, 'io.val.owner', { valueType: 'urn:li:dataType:svc.string' });
  });
  afterAll(async () => {
    await server.stop();
  });

  async function dataset(): Promise<string> {
    const urn = datasetUrnOf(name('db.values'));
    await createDatasets(url, [urn]);
    return urn;
  }

  const props = async (d: string) => (await getProperties(url, d)).body.structuredProperties.value.properties;

  test('POST replaces all structured properties on the dataset (v3 shapes)', async () => {
    const d = await dataset();
    await setProperties(url, d, [{ propertyUrn: retention, values: [{ double: 30 }] }, { propertyUrn: owner, values: [{ string: 'a' }] }]);
    const res = await setProperties(url, d, [{ propertyUrn: tier, values: [{ string: 'gold' }] }]);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ urn: d, structuredProperties: { value: { properties: [{ propertyUrn: tier, values: [{ string: 'gold' }] }] } } });
    expect(await props(d)).toEqual([{ propertyUrn: tier, values: [{ string: 'gold' }] }]);
  });

  test('v2 POST takes the aspect unwrapped and answers with aspects nesting', async () => {
    const d = await dataset();
    const res = await http(url, 'POST', `${V2}/entity/dataset/${enc(d)}/structuredProperties`, {
      query: { createIfNotExists: 'false' },
      json: { properties: [{ propertyUrn: retention, values: [{ double: 60.0 }] }] },
    });
    expect(res.status).toBe(200);
    expect(res.text).toBe(JSON.stringify({ urn: d, aspects: { structuredProperties: { value: { properties: [{ propertyUrn: retention, values: [{ double: 60 }] }] } } } }).replace('"double":60}', '"double":60.0}'));
  });

  test('a write breaking a value rule is a 400 Validation Error naming the property and value, and leaves the stored values unchanged', async () => {
    const d = await dataset();
    await setProperties(url, d, [{ propertyUrn: owner, values: [{ string: 'kept' }] }]);
    const res = await setProperties(url, d, [{ propertyUrn: tier, values: [{ string: 'bronze' }] }]);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'Validation Error', message: `Property: ${tier}, value: {string=bronze} should be one of [{string=gold}, {string=silver}]` });
    expect(await props(d)).toEqual([{ propertyUrn: owner, values: [{ string: 'kept' }] }]);
  });

  test('setting values requires the dataset to exist (404) and a valid dataset urn (400 Invalid urn)', async () => {
    const missing = datasetUrnOf(name('db.never'));
    const res = await setProperties(url, missing, [{ propertyUrn: owner, values: [{ string: 'x' }] }]);
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('Not Found');
    const bad = 'urn:li:dataset:(urn:li:dataPlatform:hive,x,NOPE)';
    const invalid = await setProperties(url, bad, [{ propertyUrn: owner, values: [{ string: 'x' }] }]);
    expect(invalid.status).toBe(400);
    expect(invalid.body.error).toBe(`Invalid urn!: ${bad}`);
  });

  test('a U+0000 character anywhere in the values is a 400 naming where, and nothing changes (PostgreSQL cannot store it)', async () => {
    const d = await dataset();
    await setProperties(url, d, [{ propertyUrn: owner, values: [{ string: 'kept' }] }]);
    const inValue = await setProperties(url, d, [{ propertyUrn: owner, values: [{ string: 'a\u0000b' }] }]);
    expect(inValue.status).toBe(400);
    expect(inValue.body.message).toBe('value.properties[0].values[0].string contains the character U+0000 (at character 2), which cannot be stored; remove it');
    const inUrn = await setProperties(url, d, [{ propertyUrn: '\u0000', values: [] }]);
    expect(inUrn.status).toBe(400);
    expect(inUrn.body.message).toMatch(/properties\[0\]\.propertyUrn/);
    expect(await props(d)).toEqual([{ propertyUrn: owner, values: [{ string: 'kept' }] }]);
  });

  describe('PATCH with arrayPrimaryKeys (docs/contract.md §3)', () => {
    const patch = (version: string, d: string, ops: unknown[], contentType = 'application/json-patch+json') =>
      http(url, 'PATCH', `${version}/entity/dataset/${enc(d)}/structuredProperties`, { json: { patch: ops, ...keyed }, contentType });

    test('add of an absent property adds it and leaves the others; v2 nests the answer under aspects', async () => {
      const d = await dataset();
      await setProperties(url, d, [{ propertyUrn: retention, values: [{ double: 60 }] }]);
      const res = await patch(V2, d, [{ op: 'add', path: `/properties/${tier}`, value: { propertyUrn: tier, values: [{ string: 'gold' }] } }]);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        urn: d,
        aspects: { structuredProperties: { value: { properties: [{ propertyUrn: retention, values: [{ double: 60 }] }, { propertyUrn: tier, values: [{ string: 'gold' }] }] } } },
      });
    });

    test('remove deletes the named property; v3 answers the aspect under its name', async () => {
      const d = await dataset();
      await setProperties(url, d, [{ propertyUrn: retention, values: [{ double: 60 }] }, { propertyUrn: tier, values: [{ string: 'gold' }] }]);
      const res = await patch(V3, d, [{ op: 'remove', path: `/properties/${tier}`, value: { propertyUrn: tier } }]);
      expect(res.body).toEqual({ urn: d, structuredProperties: { value: { properties: [{ propertyUrn: retention, values: [{ double: 60 }] }] } } });
    });

    test('PATCH is accepted with application/json too, and on a dataset without the aspect yet', async () => {
      const d = await dataset();
      const res = await patch(V3, d, [{ op: 'add', path: `/properties/${owner}`, value: { propertyUrn: owner, values: [{ string: 'o' }] } }], 'application/json');
      expect(res.status).toBe(200);
      expect(await props(d)).toEqual([{ propertyUrn: owner, values: [{ string: 'o' }] }]);
    });

    test('a malformed patch document is a 400 naming the operation', async () => {
      const d = await dataset();
      const res = await patch(V3, d, [{ op: 'move', path: '/properties/x', from: '/a' }]);
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(/patch\[0\]\.op must be one of add, remove, replace, test/);
    });
  });

  describe('schema fields', () => {
    test('values on a schema field of an existing dataset are stored and read back', async () => {
      const d = await dataset();
      const field = `urn:li:schemaField:(${d},user.email)`;
      const res = await http(url, 'POST', `${V3}/entity/schemaField/${enc(field)}/structuredProperties`, {
        query: { createIfNotExists: 'false' },
        json: { value: { properties: [{ propertyUrn: retention, values: [{ double: 30 }] }] } },
      });
      expect(res.status).toBe(200);
      const read = await http(url, 'GET', `${V3}/entity/schemaField/${enc(field)}/structuredProperties`);
      expect(read.body.structuredProperties.value.properties).toEqual([{ propertyUrn: retention, values: [{ double: 30 }] }]);
    });
  });
});
