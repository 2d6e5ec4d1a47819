/**
 * Structured property definitions over REST v2 and v3 (docs/contract.md §2, §4, §5): the
 * adapter's contract (routes, v2/v3 shapes, create-only and its message, error
 * mapping, the status and DELETE routes). The definition rules themselves (validation,
 * compatibility and versions, soft and hard delete) are tested at the service, in
 * test/services/properties.test.ts; this suite keeps one happy path and one refusal
 * per route, on one backend (the storage is the service's concern).
 */
import { enc, http } from '../support/http.js';
import { createDatasets, datasetUrnOf, defineProperty, getProperties, propertyUrn, setProperties, softDelete, V3, waitForJobs } from '../support/fixtures.js';
import { startTestServer, type TestServer } from '../support/server.js';

const V2 = '/openapi/v2';

describe('definitions over REST', () => {
  let server: TestServer;
  let url: string;
  let seq = 0;
  const name = (prefix = 'io.rest.def') => `${prefix}.p${++seq}`;
  const defPath = (version: string, urn: string) => `${version}/entity/structuredProperty/${enc(urn)}/propertyDefinition`;

  beforeAll(async () => {
    server = await startTestServer();
    url = server.url;
  });
  afterAll(async () => {
    await server.stop();
  });

  const numberDefinition = (qualifiedName: string, extra: Record<string, unknown> = {}) => ({
    qualifiedName,
    valueType: 'urn:li:dataType:svc.number',
    entityTypes: ['urn:li:entityType:svc.dataset'],
    cardinality: 'MULTIPLE',
    allowedValues: [{ value: { double: 30 }, description: '30 days' }, { value: { double: 60 } }],
    ...extra,
  });

  test('createIfNotExists defaults to create-only: a second create is refused, naming the aspect and createIfNotExists=false, and changes nothing', async () => {
    const qn = name();
    const urn = propertyUrn(qn);
    const first = await http(url, 'POST', defPath(V3, urn), { json: { value: numberDefinition(qn, { description: 'first' }) } });
    expect(first.status).toBe(200);
    const second = await http(url, 'POST', defPath(V3, urn), { json: { value: numberDefinition(qn, { description: 'second' }) } });
    expect(second.status).toBe(400);
    expect(second.body).toEqual({
      error: 'Validation Error',
      message: `Cannot perform CREATE since the aspect already exists. The aspect is propertyDefinition of ${urn}; createIfNotExists=true (this route's default) only creates, so send createIfNotExists=false to replace it.`,
    });
    const read = await http(url, 'GET', defPath(V3, urn));
    expect(read.body.propertyDefinition.value.description).toBe('first');
  });

  test('createIfNotExists=false upserts, and the stored definition is echoed exactly, doubles with a decimal part', async () => {
    const qn = name();
    const urn = propertyUrn(qn);
    const res = await http(url, 'POST', defPath(V3, urn), { query: { createIfNotExists: 'false' }, json: { value: numberDefinition(qn) } });
    expect(res.status).toBe(200);
    expect(res.text).toBe(
      JSON.stringify({
        urn,
        propertyDefinition: {
          value: {
            qualifiedName: qn,
            valueType: 'urn:li:dataType:svc.number',
            entityTypes: ['urn:li:entityType:svc.dataset'],
            cardinality: 'MULTIPLE',
            allowedValues: [{ value: { double: 30 }, description: '30 days' }, { value: { double: 60 } }],
          },
        },
      }).replace('"double":30}', '"double":30.0}').replace('"double":60}', '"double":60.0}'),
    );
    const updated = await http(url, 'POST', defPath(V3, urn), { query: { createIfNotExists: 'false' }, json: { value: numberDefinition(qn, { displayName: 'Retention' }) } });
    expect(updated.body.propertyDefinition.value.displayName).toBe('Retention');
  });

  test('v2 takes the definition unwrapped and answers with aspects nesting; v2 GET answers {value}', async () => {
    const qn = name();
    const urn = propertyUrn(qn);
    const res = await http(url, 'POST', defPath(V2, urn), { query: { createIfNotExists: 'false' }, json: numberDefinition(qn) });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['urn', 'aspects']);
    expect(res.body.aspects.propertyDefinition.value.qualifiedName).toBe(qn);
    const read = await http(url, 'GET', defPath(V2, urn));
    expect(read.body).toEqual({ value: expect.objectContaining({ qualifiedName: qn }) });
    const readV3 = await http(url, 'GET', defPath(V3, urn));
    expect(readV3.body).toEqual({ urn, propertyDefinition: { value: expect.objectContaining({ qualifiedName: qn }) } });
  });

  test('an invalid definition is a 400 Validation Error whose message names the field, and nothing is stored', async () => {
    const qn = name();
    const urn = propertyUrn(qn);
    const res = await http(url, 'POST', defPath(V3, urn), { json: { value: { qualifiedName: qn, valueType: 'urn:li:dataType:svc.string', entityTypes: ['urn:li:entityType:svc.dataset'], colour: 'red' } } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'Validation Error', message: expect.stringMatching(/^colour is not a known field; expected one of qualifiedName, /) });
    expect((await http(url, 'GET', defPath(V3, urn))).status).toBe(404);
  });

  test('a breaking change without a new version, where stored values break, is a 400 naming the change and its holders, and the definition stays', async () => {
    const qn = name();
    const urn = await defineProperty(url, qn, numberDefinition(qn));
    const dataset = datasetUrnOf(`${qn}.held`);
    await createDatasets(url, [dataset]);
    await setProperties(url, dataset, [{ propertyUrn: urn, values: [{ double: 30 }, { double: 60 }] }]);
    const res = await http(url, 'POST', defPath(V3, urn), { query: { createIfNotExists: 'false' }, json: { value: numberDefinition(qn, { cardinality: 'SINGLE' }) } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'Validation Error', message: expect.stringMatching(/cardinality changes from MULTIPLE to SINGLE \(1 entity holds values it breaks\)/) });
    expect((await http(url, 'GET', defPath(V3, urn))).body.propertyDefinition.value).toEqual(numberDefinition(qn));
  });

  test('the same change where no entity holds two values is accepted without a version (docs/contract.md, "Definitions evolve")', async () => {
    const qn = name();
    const urn = await defineProperty(url, qn, numberDefinition(qn));
    const dataset = datasetUrnOf(`${qn}.held`);
    await createDatasets(url, [dataset]);
    await setProperties(url, dataset, [{ propertyUrn: urn, values: [{ double: 30 }] }]);
    const res = await http(url, 'POST', defPath(V3, urn), { query: { createIfNotExists: 'false' }, json: { value: numberDefinition(qn, { cardinality: 'SINGLE' }) } });
    expect(res.status).toBe(200);
    expect((await getProperties(url, dataset)).body.structuredProperties.value.properties).toEqual([{ propertyUrn: urn, values: [{ double: 30 }] }]);
  });

  describe('soft delete and restore (status aspect)', () => {
    test('v3 POST status soft-deletes and answers the aspect; while soft deleted a definition write is 400; removed: false restores', async () => {
      const qn = name();
      const urn = await defineProperty(url, qn, numberDefinition(qn));
      const res = await http(url, 'POST', `${V3}/entity/structuredProperty/${enc(urn)}/status`, {
        query: { systemMetadata: 'false', createIfNotExists: 'false' },
        json: { value: { removed: true } },
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ urn, status: { value: { removed: true } } });
      const defWrite = await http(url, 'POST', defPath(V3, urn), { query: { createIfNotExists: 'false' }, json: { value: numberDefinition(qn, { description: 'x' }) } });
      expect(defWrite.status).toBe(400);
      expect(defWrite.body).toEqual({ error: 'Validation Error', message: 'Cannot mutate a soft deleted Structured Property Definition' });
      // The definition itself is still readable while soft deleted.
      expect((await http(url, 'GET', defPath(V3, urn))).status).toBe(200);
      expect((await softDelete(url, urn, false)).status).toBe(200);
      expect((await http(url, 'POST', defPath(V3, urn), { query: { createIfNotExists: 'false' }, json: { value: numberDefinition(qn, { description: 'x' }) } })).status).toBe(200);
    });

    test('v2 takes the status unwrapped; DELETE of the status aspect restores', async () => {
      const qn = name();
      const urn = await defineProperty(url, qn, numberDefinition(qn));
      const v2 = await http(url, 'POST', `${V2}/entity/structuredProperty/${enc(urn)}/status`, { query: { systemMetadata: 'false', createIfNotExists: 'false' }, json: { removed: true } });
      expect(v2.status).toBe(200);
      expect(v2.body).toEqual({ urn, aspects: { status: { value: { removed: true } } } });
      expect((await http(url, 'DELETE', `${V3}/entity/structuredProperty/${enc(urn)}/status`)).status).toBe(200);
      expect((await http(url, 'POST', defPath(V3, urn), { query: { createIfNotExists: 'false' }, json: { value: numberDefinition(qn, { description: 'x' }) } })).status).toBe(200);
    });

    test('status on a property that does not exist is 404', async () => {
      const res = await softDelete(url, propertyUrn(name()));
      expect(res.status).toBe(404);
      expect(res.body.error).toBe('Not Found');
    });
  });

  describe('hard delete', () => {
    test('DELETE answers 200 with an empty body, the definition is 404 at once, and its cleanup job is read at /v3/jobs/{id}', async () => {
      const qn = name();
      const urn = await defineProperty(url, qn, numberDefinition(qn));
      const dataset = datasetUrnOf(name('db.hard'));
      await createDatasets(url, [dataset]);
      await setProperties(url, dataset, [{ propertyUrn: urn, values: [{ double: 60 }] }]);

      const res = await http(url, 'DELETE', `${V3}/entity/structuredProperty/${enc(urn)}`);
      expect(res.status).toBe(200);
      expect(res.text).toBe('');
      expect(res.headers.get('content-length')).toBe('0');
      expect((await http(url, 'GET', defPath(V3, urn))).status).toBe(404);
      expect((await getProperties(url, dataset)).body.structuredProperties.value.properties).toEqual([]);

      const cleanup = (await waitForJobs(url)).find((j) => j.propertyUrn === urn)!;
      const job = await http(url, 'GET', `${V3}/jobs/${cleanup.id}`);
      expect(job.body).toMatchObject({ id: cleanup.id, kind: 'cleanup-property-values', status: 'done', total: 1, done: 1, remaining: 0 });
    });

    test('DELETE of a property that does not exist is 200 (idempotent)', async () => {
      const res = await http(url, 'DELETE', `${V3}/entity/structuredProperty/${enc(propertyUrn(name()))}`);
      expect(res.status).toBe(200);
    });
  });

  test('routes are also served under /gms/openapi', async () => {
    const qn = name();
    const urn = await defineProperty(url, qn, numberDefinition(qn));
    const res = await http(url, 'GET', `/gms${defPath(V3, urn)}`);
    expect(res.status).toBe(200);
    expect(res.body.urn).toBe(urn);
  });
});
