/**
 * Generic entity routes and bad input over REST (docs/contract.md §1, §4): batch create, entity and
 * aspect reads, deletes, error bodies and codes; every rejected request leaves the
 * stored state unchanged. What the entity service decides (batches all or nothing,
 * key aspects, create-only, If-Version-Match) is tested at the service, in
 * test/services/entities.test.ts; this suite is the adapter's contract, on one backend.
 */
import { enc, http } from '../support/http.js';
import { createDatasets, datasetUrnOf, defineProperty, getProperties, setProperties, V3 } from '../support/fixtures.js';
import { startTestServer, type TestServer } from '../support/server.js';

const V2 = '/openapi/v2';

describe('entities and bad input over REST', () => {
  let server: TestServer;
  let url: string;
  let seq = 0;
  const name = () => `db.entities.t${++seq}`;
  let owner: string;

  beforeAll(async () => {
    server = await startTestServer({ env: { BODY_LIMIT_BYTES: '65536' } });
    url = server.url;
    owner = await defineProperty(url, 'io.ent.owner', { valueType: 'urn:li:dataType:svc.string' });
  });
  afterAll(async () => {
    await server.stop();
  });

  describe('batch create', () => {
    test('v3 creates several entities and echoes the written aspects', async () => {
      const [a, b] = [datasetUrnOf(name()), datasetUrnOf(name())];
      const res = await http(url, 'POST', `${V3}/entity/dataset`, {
        json: [
          { urn: a, status: { value: { removed: false } }, datasetProperties: { value: { description: 'orders' } } },
          { urn: b, datasetKey: { value: { platform: 'urn:li:dataPlatform:hive', name: b.split(',')[1], origin: 'PROD' } } },
        ],
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual([
        { urn: a, status: { value: { removed: false } }, datasetProperties: { value: { description: 'orders' } } },
        { urn: b, datasetKey: { value: { platform: 'urn:li:dataPlatform:hive', name: b.split(',')[1], origin: 'PROD' } } },
      ]);
      expect((await http(url, 'GET', `${V3}/entity/dataset/${enc(b)}`)).status).toBe(200);
    });

    test('v2 takes aspects nested and answers with the urns', async () => {
      const a = datasetUrnOf(name());
      const res = await http(url, 'POST', `${V2}/entity/dataset`, { json: [{ urn: a, aspects: { status: { value: { removed: false } } } }] });
      expect(res.status).toBe(200);
      expect(res.body).toEqual([{ urn: a }]);
    });

    test('createEntityIfNotExists=true refuses an existing entity', async () => {
      const a = datasetUrnOf(name());
      await createDatasets(url, [a]);
      const res = await http(url, 'POST', `${V3}/entity/dataset`, { query: { createEntityIfNotExists: 'true' }, json: [{ urn: a, status: { value: { removed: false } } }] });
      expect(res.status).toBe(400);
      expect(res.body.message).toBe('Cannot perform CREATE since the entity already exists.');
    });

  });

  describe('reads', () => {
    test('GET of an entity returns its key aspect and aspects; aspects= selects; systemMetadata=true adds it', async () => {
      const a = datasetUrnOf(name());
      await createDatasets(url, [a]);
      await setProperties(url, a, [{ propertyUrn: owner, values: [{ string: 'team' }] }]);
      const all = await http(url, 'GET', `${V3}/entity/dataset/${enc(a)}`);
      expect(all.body).toEqual({
        urn: a,
        datasetKey: { value: { platform: 'urn:li:dataPlatform:hive', name: a.split(',')[1], origin: 'PROD' } },
        status: { value: { removed: false } },
        structuredProperties: { value: { properties: [{ propertyUrn: owner, values: [{ string: 'team' }] }] } },
      });
      const some = await http(url, 'GET', `${V3}/entity/dataset/${enc(a)}`, { query: { aspects: ['status'] } });
      expect(Object.keys(some.body)).toEqual(['urn', 'status']);
      const withMeta = await http(url, 'GET', `${V3}/entity/dataset/${enc(a)}/status`, { query: { systemMetadata: 'true' } });
      expect(withMeta.body.status.systemMetadata).toMatchObject({ runId: 'no-run-id-provided', version: '1' });
      const v2 = await http(url, 'GET', `${V2}/entity/dataset/${enc(a)}`);
      expect(v2.body.aspects.status).toEqual({ value: { removed: false } });
    });

    test('GET of a missing entity or a missing aspect is 404 Not Found', async () => {
      const a = datasetUrnOf(name());
      expect((await http(url, 'GET', `${V3}/entity/dataset/${enc(a)}`)).body).toMatchObject({ error: 'Not Found' });
      await createDatasets(url, [a]);
      const res = await http(url, 'GET', `${V3}/entity/dataset/${enc(a)}/datasetProperties`);
      expect(res.status).toBe(404);
    });

    test('GET /entity/{type} lists entities with a scroll id that reaches every one', async () => {
      const seen = new Set<string>();
      let scrollId: string | undefined;
      do {
        const page = await http(url, 'GET', `${V3}/entity/structuredProperty`, { query: { count: '1', ...(scrollId ? { scrollId } : {}) } });
        expect(page.status).toBe(200);
        for (const e of page.body.entities) seen.add(e.urn);
        scrollId = page.body.scrollId;
      } while (scrollId);
      expect(seen.has(owner)).toBe(true);
    });
  });

  describe('optimistic concurrency', () => {
    test('If-Version-Match in a v3 body that does not match is 412 Precondition Error', async () => {
      const a = datasetUrnOf(name());
      await createDatasets(url, [a]);
      const stale = await http(url, 'POST', `${V3}/entity/dataset/${enc(a)}/status`, {
        query: { createIfNotExists: 'false' },
        json: { value: { removed: true }, headers: { 'If-Version-Match': '7' } },
      });
      expect(stale.status).toBe(412);
      expect(stale.body.error).toBe('Precondition Error');
      const ok = await http(url, 'POST', `${V3}/entity/dataset/${enc(a)}/status`, {
        query: { createIfNotExists: 'false' },
        json: { value: { removed: true }, headers: { 'If-Version-Match': '1' } },
      });
      expect(ok.status).toBe(200);
    });
  });

  describe('bad input', () => {
    let dataset: string;
    beforeAll(async () => {
      dataset = datasetUrnOf('db.entities.fixed');
      await createDatasets(url, [dataset]);
      await setProperties(url, dataset, [{ propertyUrn: owner, values: [{ string: 'unchanged' }] }]);
    });
    afterEach(async () => {
      // Whatever the bad request was, the stored values are as before.
      expect((await getProperties(url, dataset)).body.structuredProperties.value.properties).toEqual([{ propertyUrn: owner, values: [{ string: 'unchanged' }] }]);
    });
    const path = () => `${V3}/entity/dataset/${enc(dataset)}/structuredProperties`;

    test('malformed JSON is 400 Validation Error', async () => {
      const res = await http(url, 'POST', path(), { body: '{"value": {"properties": [', contentType: 'application/json', query: { createIfNotExists: 'false' } });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('Validation Error');
      expect(res.body.message).toMatch(/Malformed JSON/);
    });

    test('a body that is not JSON at all, or empty, is 400', async () => {
      expect((await http(url, 'POST', path(), { body: 'hello', contentType: 'application/json' })).status).toBe(400);
      expect((await http(url, 'POST', path(), { body: '', contentType: 'application/json' })).status).toBe(400);
    });

    test('a wrong content type is 415', async () => {
      const res = await http(url, 'POST', path(), { body: '{"value": {"properties": []}}', contentType: 'text/plain', query: { createIfNotExists: 'false' } });
      expect(res.status).toBe(415);
      expect(res.body.error).toBe('Unsupported Media Type');
    });

    test('a v3 body without the value envelope is 400 saying to wrap the aspect in "value"', async () => {
      const res = await http(url, 'POST', path(), { json: { properties: [] }, query: { createIfNotExists: 'false' } });
      expect(res.status).toBe(400);
      expect(res.body.message).toBe(
        '2 problems: (1) value is required: a v3 aspect body is {"value": <the aspect>}, so wrap the aspect in "value" (v2 takes it unwrapped) ' +
          '(2) properties is not a known field; expected one of value, systemMetadata, headers, migration',
      );
    });

    test.each([
      ['unbalanced parentheses', 'urn:li:dataset:(urn:li:dataPlatform:hive,x,PROD'],
      ['an unknown origin', 'urn:li:dataset:(urn:li:dataPlatform:hive,x,MARS)'],
      ['a missing prefix', 'dataset:x'],
      ['a wrong nested type', 'urn:li:dataset:(urn:li:tag:hive,x,PROD)'],
    ])('a path urn with %s is 400 Invalid urn naming it', async (_label, bad) => {
      const res = await http(url, 'GET', `${V3}/entity/dataset/${enc(bad)}`);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe(`Invalid urn!: ${bad}`);
    });

    test('an unknown entity type in the path is 404 naming it, and an unknown aspect is 400 listing the known ones', async () => {
      const res = await http(url, 'GET', `${V3}/entity/spaceship/${enc('urn:li:spaceship:x')}`);
      expect(res.status).toBe(404);
      expect(res.body.message).toMatch(/Unknown entity type spaceship/);
      const aspect = await http(url, 'POST', `${V3}/entity/dataset/${enc(dataset)}/warpDrive`, { json: { value: {} } });
      expect(aspect.status).toBe(400);
      expect(aspect.body.message).toMatch(/Unknown aspect warpDrive for entity type dataset/);
    });

    test('an oversized body is 413 Payload Too Large', async () => {
      const huge = { value: { properties: [{ propertyUrn: owner, values: [{ string: 'x'.repeat(70_000) }] }] } };
      const res = await http(url, 'POST', path(), { json: huge, query: { createIfNotExists: 'false' } });
      expect(res.status).toBe(413);
      expect(res.body.error).toBe('Payload Too Large');
    });

    test('a value longer than the string limit is 400 with the limit named', async () => {
      const res = await http(url, 'POST', path(), { json: { value: { properties: [{ propertyUrn: owner, values: [{ string: 'y'.repeat(10_001) }] }] } }, query: { createIfNotExists: 'false' } });
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(/longer than the limit of 10000 characters/);
    });

    test('a bad query parameter is 400 naming it', async () => {
      const res = await http(url, 'POST', path(), { json: { value: { properties: [] } }, query: { createIfNotExists: 'maybe' } });
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(/createIfNotExists must be true or false/);
    });

    test('a DELETE carrying a JSON content type but no body is accepted', async () => {
      const other = datasetUrnOf(name());
      await createDatasets(url, [other]);
      const res = await http(url, 'DELETE', `${V3}/entity/dataset/${enc(other)}`, { contentType: 'application/json' });
      expect(res.status).toBe(200);
      expect((await http(url, 'GET', `${V3}/entity/dataset/${enc(other)}`)).status).toBe(404);
    });

    test('an unknown route is 404 No endpoint, with a message saying where the routes are listed', async () => {
      const res = await http(url, 'GET', '/openapi/v9/nothing');
      expect(res.status).toBe(404);
      expect(res.body).toEqual({
        error: 'No endpoint GET /openapi/v9/nothing.',
        message:
          'No route matches GET /openapi/v9/nothing. The REST routes are listed in the OpenAPI document at /openapi/v3/api-docs (browse them at /openapi/swagger-ui); GraphQL is served at /api/graphql.',
      });
    });

    test('a JSON body with a __proto__ key is refused', async () => {
      const res = await http(url, 'POST', path(), { body: '{"value": {"properties": []}, "__proto__": {"polluted": true}}', contentType: 'application/json', query: { createIfNotExists: 'false' } });
      expect(res.status).toBe(400);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });

    test.each([
      ['__proto__ spelled with escapes', '{"value": {"properties": []}, "\\u005f_proto__": {"polluted": true}}'],
      ['constructor.prototype', '{"value": {"properties": []}, "constructor": {"prototype": {"polluted": true}}}'],
      ['constructor spelled with escapes', '{"value": {"properties": []}, "\\u0063onstructor": {"prototype": {"polluted": true}}}'],
    ])('a JSON body with a %s key is refused too', async (_what, body) => {
      const res = await http(url, 'POST', path(), { body, contentType: 'application/json', query: { createIfNotExists: 'false' } });
      expect(res.status).toBe(400);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });
  });
});
