/**
 * Structured property values over REST v2 and v3 (docs/contract.md §3):
 * replace, JSON patch with arrayPrimaryKeys, every validation rule, schema fields,
 * and concurrent writers, on the embedded and an external PostgreSQL.
 */
import { enc, http } from '../support/http.js';
import { backends, createDatasets, datasetUrnOf, defineProperty, getProperties, propertyUrn, setProperties, V3 } from '../support/fixtures.js';
import { startTestServer, type TestServer } from '../support/server.js';

const V2 = '/openapi/v2';
const keyed = { arrayPrimaryKeys: { properties: ['propertyUrn'] } };

describe.each(backends())('values over REST on %s', (backend) => {
  let server: TestServer;
  let url: string;
  let seq = 0;
  const name = (prefix = 'io.rest.val') => `${prefix}.p${++seq}`;

  let retention: string; // number, MULTIPLE, allowed 30/60/365
  let tier: string; // string, SINGLE, allowed gold/silver
  let owner: string; // string, SINGLE, any value
  let flowOnly: string; // number, dataFlow only
  let dateProp: string;
  let urnProp: string; // urn values restricted to corpuser
  let frozen: string; // immutable string

  beforeAll(async () => {
    server = await startTestServer({ backend });
    url = server.url;
    retention = await defineProperty(url, 'io.val.retention', {
      valueType: 'urn:li:dataType:svc.number',
      cardinality: 'MULTIPLE',
      entityTypes: ['urn:li:entityType:svc.dataset', 'urn:li:entityType:svc.schemaField'],
      allowedValues: [{ value: { double: 30 } }, { value: { double: 60 } }, { value: { double: 365 } }],
    });
    tier = await defineProperty(url, 'io.val.tier', { valueType: 'urn:li:dataType:svc.string', allowedValues: [{ value: { string: 'gold' } }, { value: { string: 'silver' } }] });
    owner = await defineProperty(url, 'io.val.owner', { valueType: 'urn:li:dataType:svc.string' });
    flowOnly = await defineProperty(url, 'io.val.flowOnly', { valueType: 'urn:li:dataType:svc.number', entityTypes: ['urn:li:entityType:svc.dataFlow'] });
    dateProp = await defineProperty(url, 'io.val.reviewed', { valueType: 'urn:li:dataType:svc.date' });
    urnProp = await defineProperty(url, 'io.val.steward', { valueType: 'urn:li:dataType:svc.urn', typeQualifier: { allowedTypes: ['urn:li:entityType:svc.corpuser'] } });
    frozen = await defineProperty(url, 'io.val.frozen', { valueType: 'urn:li:dataType:svc.string', immutable: true });
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

  test('a numeric string is accepted for a number property and stored as a double', async () => {
    const d = await dataset();
    const res = await setProperties(url, d, [{ propertyUrn: retention, values: [{ string: '365' }] }]);
    expect(res.status).toBe(200);
    expect(res.text).toContain('{"double":365.0}');
  });

  test('date and urn values are checked against their type and qualifier', async () => {
    const d = await dataset();
    expect((await setProperties(url, d, [{ propertyUrn: dateProp, values: [{ string: '2024-02-29' }] }])).status).toBe(200);
    const badDate = await setProperties(url, d, [{ propertyUrn: dateProp, values: [{ string: '2023-02-29' }] }]);
    expect(badDate.status).toBe(400);
    expect(badDate.body.message).toMatch(/\{string=2023-02-29\} is not a date: 2023-02 has 28 days$/);
    expect((await setProperties(url, d, [{ propertyUrn: urnProp, values: [{ string: 'urn:li:corpuser:jdoe' }] }])).status).toBe(200);
    const wrongType = await setProperties(url, d, [{ propertyUrn: urnProp, values: [{ string: 'urn:li:tag:pii' }] }]);
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.message).toMatch(/should be an urn of type corpuser/);
  });

  test.each([
    ['a value of the wrong type', () => [{ propertyUrn: retention, values: [{ string: 'thirty' }] }], /value: \{string=thirty\} should be a number/],
    ['a string for a number allowed-values miss', () => [{ propertyUrn: tier, values: [{ string: 'bronze' }] }], /value: \{string=bronze\} should be one of \[\{string=gold\}, \{string=silver\}\]/],
    ['two values for a SINGLE property', () => [{ propertyUrn: tier, values: [{ string: 'gold' }, { string: 'silver' }] }], /cardinality SINGLE, but 2 values were given/],
    ['a property that does not exist', () => [{ propertyUrn: propertyUrn('io.val.nothing'), values: [{ string: 'x' }] }], /does not exist/],
    ['a property not allowed on datasets', () => [{ propertyUrn: flowOnly, values: [{ double: 1 }] }], /cannot be applied to entity type dataset/],
    ['the same property twice', () => [{ propertyUrn: owner, values: [{ string: 'a' }] }, { propertyUrn: owner, values: [{ string: 'b' }] }], /^properties\[1\]\.propertyUrn lists urn:\S+ more than once; give each property once per source, with all its values$/],
    ['a value object with two keys', () => [{ propertyUrn: owner, values: [{ string: 'a', double: 1 }] }], /^properties\[0\]\.values\[0\] must have exactly one of "string" or "double"/],
    ['a malformed property urn', () => [{ propertyUrn: 'urn:li:structuredProperty:has space', values: [{ string: 'a' }] }], /not a structured property urn/],
    ['more than 1000 values', () => [{ propertyUrn: retention, values: Array.from({ length: 1001 }, () => ({ double: 30 })) }], /^properties\[0\]\.values has more than the limit of 1000 entries$/],
  ])('a write with %s is a 400 naming the property and value, and leaves the stored values unchanged', async (_label, properties, message) => {
    const d = await dataset();
    await setProperties(url, d, [{ propertyUrn: owner, values: [{ string: 'kept' }] }]);
    const res = await setProperties(url, d, properties());
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('Validation Error');
    expect(res.body.message).toMatch(message);
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

  test('an immutable value can be set once but not changed or removed', async () => {
    const d = await dataset();
    expect((await setProperties(url, d, [{ propertyUrn: frozen, values: [{ string: 'v1' }] }])).status).toBe(200);
    expect((await setProperties(url, d, [{ propertyUrn: frozen, values: [{ string: 'v1' }] }])).status).toBe(200);
    const change = await setProperties(url, d, [{ propertyUrn: frozen, values: [{ string: 'v2' }] }]);
    expect(change.status).toBe(400);
    expect(change.body.message).toMatch(/immutable/);
    const removal = await setProperties(url, d, [{ propertyUrn: owner, values: [{ string: 'x' }] }]);
    expect(removal.status).toBe(400);
    expect(await props(d)).toEqual([{ propertyUrn: frozen, values: [{ string: 'v1' }] }]);
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

    test('add of a present property replaces its values in place', async () => {
      const d = await dataset();
      await setProperties(url, d, [{ propertyUrn: retention, values: [{ double: 60 }] }, { propertyUrn: tier, values: [{ string: 'gold' }] }]);
      const res = await patch(V3, d, [{ op: 'add', path: `/properties/${retention}`, value: { propertyUrn: retention, values: [{ double: 365 }, { double: 30 }] } }]);
      expect(res.status).toBe(200);
      expect(res.body.structuredProperties.value.properties).toEqual([
        { propertyUrn: retention, values: [{ double: 365 }, { double: 30 }] },
        { propertyUrn: tier, values: [{ string: 'gold' }] },
      ]);
    });

    test('remove deletes the named property and leaves the others in place', async () => {
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

    test('a patched result that breaks a rule is rejected and nothing changes', async () => {
      const d = await dataset();
      await setProperties(url, d, [{ propertyUrn: tier, values: [{ string: 'gold' }] }]);
      const res = await patch(V3, d, [
        { op: 'add', path: `/properties/${owner}`, value: { propertyUrn: owner, values: [{ string: 'x' }] } },
        { op: 'add', path: `/properties/${tier}`, value: { propertyUrn: tier, values: [{ string: 'bronze' }] } },
      ]);
      expect(res.status).toBe(400);
      expect(await props(d)).toEqual([{ propertyUrn: tier, values: [{ string: 'gold' }] }]);
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

    test('a schema field of a dataset that does not exist is 404; a property not allowed on fields is 400', async () => {
      const orphan = `urn:li:schemaField:(${datasetUrnOf(name('db.none'))},a)`;
      const res = await http(url, 'POST', `${V3}/entity/schemaField/${enc(orphan)}/structuredProperties`, {
        query: { createIfNotExists: 'false' },
        json: { value: { properties: [{ propertyUrn: retention, values: [{ double: 30 }] }] } },
      });
      expect(res.status).toBe(404);
      const d = await dataset();
      const field = `urn:li:schemaField:(${d},a)`;
      const notAllowed = await http(url, 'POST', `${V3}/entity/schemaField/${enc(field)}/structuredProperties`, {
        query: { createIfNotExists: 'false' },
        json: { value: { properties: [{ propertyUrn: tier, values: [{ string: 'gold' }] }] } },
      });
      expect(notAllowed.status).toBe(400);
      expect(notAllowed.body.message).toMatch(/cannot be applied to entity type schemaField/);
    });

    test('hard-deleting the dataset removes its schema fields and their values', async () => {
      const d = await dataset();
      const field = `urn:li:schemaField:(${d},col)`;
      await http(url, 'POST', `${V3}/entity/schemaField/${enc(field)}/structuredProperties`, {
        query: { createIfNotExists: 'false' },
        json: { value: { properties: [{ propertyUrn: retention, values: [{ double: 30 }] }] } },
      });
      expect((await http(url, 'DELETE', `${V3}/entity/dataset/${enc(d)}`)).status).toBe(200);
      expect((await http(url, 'GET', `${V3}/entity/schemaField/${enc(field)}`)).status).toBe(404);
    });
  });

  test('50 concurrent PATCHes adding different properties to one dataset end with all 50 present', async () => {
    const d = await dataset();
    const names = Array.from({ length: 50 }, (_, i) => `io.val.concurrent.p${i}`);
    const urns: string[] = [];
    for (const qn of names) urns.push(await defineProperty(url, qn, { valueType: 'urn:li:dataType:svc.number' }));
    const results = await Promise.all(
      urns.map((p, i) =>
        http(url, 'PATCH', `${V3}/entity/dataset/${enc(d)}/structuredProperties`, {
          json: { patch: [{ op: 'add', path: `/properties/${p}`, value: { propertyUrn: p, values: [{ double: i }] } }], ...keyed },
          contentType: 'application/json-patch+json',
        }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(50).fill(200));
    const stored = await props(d);
    expect(stored).toHaveLength(50);
    expect(new Set(stored.map((p: any) => p.propertyUrn))).toEqual(new Set(urns));
    for (const [i, p] of urns.entries()) expect(stored.find((s: any) => s.propertyUrn === p).values).toEqual([{ double: i }]);
  });
});
