/**
 * Structured property definitions over REST v2 and v3 (docs/contract.md §2, §4,
 * §5), on the embedded and an external PostgreSQL.
 */
import { enc, http } from '../support/http.js';
import { backends, createDatasets, datasetUrnOf, defineProperty, getProperties, propertyUrn, setProperties, softDelete, V3, waitForJobs } from '../support/fixtures.js';
import { startTestServer, type TestServer } from '../support/server.js';

const V2 = '/openapi/v2';

describe.each(backends())('definitions over REST on %s', (backend) => {
  let server: TestServer;
  let url: string;
  let seq = 0;
  const name = (prefix = 'io.rest.def') => `${prefix}.p${++seq}`;
  const defPath = (version: string, urn: string) => `${version}/entity/structuredProperty/${enc(urn)}/propertyDefinition`;

  beforeAll(async () => {
    server = await startTestServer({ backend });
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

  test('the datahub. and short aliases are accepted and stored in the canonical svc. form', async () => {
    const qn = name();
    const res = await http(url, 'POST', defPath(V3, propertyUrn(qn)), {
      json: { value: { qualifiedName: qn, valueType: 'urn:li:dataType:datahub.string', entityTypes: ['urn:li:entityType:dataset', 'urn:li:entityType:datahub.dataFlow'] } },
    });
    expect(res.body.propertyDefinition.value).toEqual({
      qualifiedName: qn,
      valueType: 'urn:li:dataType:svc.string',
      entityTypes: ['urn:li:entityType:svc.dataset', 'urn:li:entityType:svc.dataFlow'],
    });
  });

  test.each([
    ['qualifiedName is missing', (_qn: string) => ({ valueType: 'urn:li:dataType:svc.string', entityTypes: ['urn:li:entityType:svc.dataset'] }), /qualifiedName is required/],
    ['valueType is missing', (qn: string) => ({ qualifiedName: qn, entityTypes: ['urn:li:entityType:svc.dataset'] }), /valueType is required/],
    ['entityTypes is empty', (qn: string) => ({ qualifiedName: qn, valueType: 'urn:li:dataType:svc.string', entityTypes: [] }), /^entityTypes must have at least one entry$/],
    ['the qualifiedName differs from the urn id', (_qn: string) => ({ qualifiedName: 'other.name', valueType: 'urn:li:dataType:svc.string', entityTypes: ['urn:li:entityType:svc.dataset'] }), /must equal the urn id/],
    ['the version is not 14 digits', (qn: string) => ({ qualifiedName: qn, valueType: 'urn:li:dataType:svc.string', entityTypes: ['urn:li:entityType:svc.dataset'], version: '2024-01-01' }), /^version "2024-01-01" does not match \[0-9\]\{14\} \(yyyyMMddhhmmss, e\.g\. 20240614080000\)$/],
    ['an allowed value has the wrong type', (qn: string) => ({ qualifiedName: qn, valueType: 'urn:li:dataType:svc.number', entityTypes: ['urn:li:entityType:svc.dataset'], allowedValues: [{ value: { string: 'x' } }] }), /should be a number/],
    ['a field is unknown', (qn: string) => ({ qualifiedName: qn, valueType: 'urn:li:dataType:svc.string', entityTypes: ['urn:li:entityType:svc.dataset'], colour: 'red' }), /^colour is not a known field; expected one of qualifiedName, /],
    ['an entity type is given without its urn form', (qn: string) => ({ qualifiedName: qn, valueType: 'urn:li:dataType:svc.string', entityTypes: ['dataset'] }), /^entityTypes\[0\] "dataset" is not an entity type urn; write urn:li:entityType:svc\.dataset$/],
  ])('a definition where %s is a 400 Validation Error naming the field, and nothing is stored', async (_label, body, message) => {
    const qn = name();
    const urn = propertyUrn(qn);
    const res = await http(url, 'POST', defPath(V3, urn), { json: { value: body(qn) } });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('Validation Error');
    expect(res.body.message).toMatch(message);
    expect((await http(url, 'GET', defPath(V3, urn))).status).toBe(404);
  });

  describe('backwards compatibility and versions', () => {
    test.each([
      ['MULTIPLE to SINGLE cardinality', { cardinality: 'SINGLE' }, /cardinality changes from MULTIPLE to SINGLE/],
      ['a value type change', { valueType: 'urn:li:dataType:svc.string', allowedValues: [{ value: { string: '30' } }] }, /valueType changes/],
      ['removing an allowed value', { allowedValues: [{ value: { double: 30 } }] }, /allowed value \{double=60\.0\} is removed/],
      ['removing an entity type', { entityTypes: ['urn:li:entityType:svc.dataFlow'] }, /entity type urn:li:entityType:svc\.dataset is removed/],
    ])('%s without a new version is rejected with the change named, and the definition stays', async (_label, change, message) => {
      const qn = name();
      const urn = await defineProperty(url, qn, numberDefinition(qn));
      const res = await http(url, 'POST', defPath(V3, urn), { query: { createIfNotExists: 'false' }, json: { value: numberDefinition(qn, change) } });
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(message);
      expect((await http(url, 'GET', defPath(V3, urn))).body.propertyDefinition.value).toEqual(numberDefinition(qn));
    });

    test('widening (SINGLE to MULTIPLE, new allowed values, new entity types) needs no version', async () => {
      const qn = name();
      const urn = await defineProperty(url, qn, numberDefinition(qn, { cardinality: 'SINGLE' }));
      const res = await http(url, 'POST', defPath(V3, urn), {
        query: { createIfNotExists: 'false' },
        json: {
          value: numberDefinition(qn, {
            cardinality: 'MULTIPLE',
            entityTypes: ['urn:li:entityType:svc.dataset', 'urn:li:entityType:svc.dataFlow'],
            allowedValues: [{ value: { double: 30 } }, { value: { double: 60 } }, { value: { double: 90 } }],
          }),
        },
      });
      expect(res.status).toBe(200);
    });

    test('a breaking change with a new version hides older values at once; a job then removes them; new values are normal', async () => {
      const qn = name();
      const urn = await defineProperty(url, qn, numberDefinition(qn));
      const dataset = datasetUrnOf(name('db.versioned'));
      await createDatasets(url, [dataset]);
      expect((await setProperties(url, dataset, [{ propertyUrn: urn, values: [{ double: 30 }, { double: 60 }] }])).status).toBe(200);

      const res = await http(url, 'POST', defPath(V3, urn), {
        query: { createIfNotExists: 'false' },
        json: { value: numberDefinition(qn, { cardinality: 'SINGLE', version: '20240614080000' }) },
      });
      expect(res.status).toBe(200);
      expect(res.body.propertyDefinition.value.version).toBe('20240614080000');
      expect((await getProperties(url, dataset)).body.structuredProperties.value.properties).toEqual([]);

      const jobs = await waitForJobs(url);
      const cleanup = jobs.find((j) => j.kind === 'cleanup-property-values' && j.payload.propertyUrn === urn);
      expect(cleanup).toMatchObject({ status: 'done', total: 1, done: 1, remaining: 0 });

      expect((await setProperties(url, dataset, [{ propertyUrn: urn, values: [{ double: 60 }] }])).status).toBe(200);
      expect((await getProperties(url, dataset)).body.structuredProperties.value.properties).toEqual([{ propertyUrn: urn, values: [{ double: 60 }] }]);
    });

    test('a version may not go backwards, and a write without a version keeps the stored one', async () => {
      const qn = name();
      const urn = await defineProperty(url, qn, numberDefinition(qn, { version: '20240614080000' }));
      const back = await http(url, 'POST', defPath(V3, urn), { query: { createIfNotExists: 'false' }, json: { value: numberDefinition(qn, { version: '20230101000000' }) } });
      expect(back.status).toBe(400);
      expect(back.body.message).toMatch(/must be greater than the current version 20240614080000/);
      const keep = await http(url, 'POST', defPath(V3, urn), { query: { createIfNotExists: 'false' }, json: { value: numberDefinition(qn, { description: 'x' }) } });
      expect(keep.body.propertyDefinition.value.version).toBe('20240614080000');
    });
  });

  describe('soft delete and restore (status aspect)', () => {
    test('soft delete hides values, denies definition and value writes, and restore brings the values back', async () => {
      const qn = name();
      const urn = await defineProperty(url, qn, numberDefinition(qn));
      const dataset = datasetUrnOf(name('db.soft'));
      await createDatasets(url, [dataset]);
      await setProperties(url, dataset, [{ propertyUrn: urn, values: [{ double: 30 }] }]);

      const res = await http(url, 'POST', `${V3}/entity/structuredProperty/${enc(urn)}/status`, {
        query: { systemMetadata: 'false', createIfNotExists: 'false' },
        json: { value: { removed: true } },
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ urn, status: { value: { removed: true } } });

      expect((await getProperties(url, dataset)).body.structuredProperties.value.properties).toEqual([]);
      const defWrite = await http(url, 'POST', defPath(V3, urn), { query: { createIfNotExists: 'false' }, json: { value: numberDefinition(qn, { description: 'x' }) } });
      expect(defWrite.status).toBe(400);
      expect(defWrite.body.message).toBe('Cannot mutate a soft deleted Structured Property Definition');
      const valueWrite = await setProperties(url, dataset, [{ propertyUrn: urn, values: [{ double: 60 }] }]);
      expect(valueWrite.status).toBe(400);
      expect(valueWrite.body.message).toBe(`Cannot apply a soft deleted Structured Property value: ${urn}`);
      // The definition itself is still readable while soft deleted.
      expect((await http(url, 'GET', defPath(V3, urn))).status).toBe(200);

      expect((await softDelete(url, urn, false)).status).toBe(200);
      expect((await getProperties(url, dataset)).body.structuredProperties.value.properties).toEqual([{ propertyUrn: urn, values: [{ double: 30 }] }]);
    });

    test('v2 takes the status unwrapped; deleting the status aspect also restores', async () => {
      const qn = name();
      const urn = await defineProperty(url, qn, numberDefinition(qn));
      const dataset = datasetUrnOf(name('db.soft2'));
      await createDatasets(url, [dataset]);
      await setProperties(url, dataset, [{ propertyUrn: urn, values: [{ double: 60 }] }]);
      const v2 = await http(url, 'POST', `${V2}/entity/structuredProperty/${enc(urn)}/status`, { query: { systemMetadata: 'false', createIfNotExists: 'false' }, json: { removed: true } });
      expect(v2.status).toBe(200);
      expect(v2.body).toEqual({ urn, aspects: { status: { value: { removed: true } } } });
      expect((await getProperties(url, dataset)).body.structuredProperties.value.properties).toEqual([]);
      expect((await http(url, 'DELETE', `${V3}/entity/structuredProperty/${enc(urn)}/status`)).status).toBe(200);
      expect((await getProperties(url, dataset)).body.structuredProperties.value.properties).toHaveLength(1);
    });

    test('a replace of the aspect while a property is soft deleted keeps its hidden values for restore', async () => {
      const a = name();
      const b = name();
      const urnA = await defineProperty(url, a, numberDefinition(a));
      const urnB = await defineProperty(url, b, numberDefinition(b));
      const dataset = datasetUrnOf(name('db.soft3'));
      await createDatasets(url, [dataset]);
      await setProperties(url, dataset, [{ propertyUrn: urnA, values: [{ double: 30 }] }]);
      await softDelete(url, urnA);
      await setProperties(url, dataset, [{ propertyUrn: urnB, values: [{ double: 60 }] }]);
      await softDelete(url, urnA, false);
      const props = (await getProperties(url, dataset)).body.structuredProperties.value.properties;
      expect(props).toEqual(expect.arrayContaining([{ propertyUrn: urnA, values: [{ double: 30 }] }, { propertyUrn: urnB, values: [{ double: 60 }] }]));
      expect(props).toHaveLength(2);
    });

    test('status on a property that does not exist is 404', async () => {
      const res = await softDelete(url, propertyUrn(name()));
      expect(res.status).toBe(404);
    });
  });

  describe('hard delete', () => {
    test('DELETE removes the definition at once (200, empty body), a job removes its values, and the name can be reused without the old values', async () => {
      const qn = name();
      const urn = await defineProperty(url, qn, numberDefinition(qn));
      const datasets = [datasetUrnOf(name('db.hard')), datasetUrnOf(name('db.hard'))];
      await createDatasets(url, datasets);
      for (const d of datasets) await setProperties(url, d, [{ propertyUrn: urn, values: [{ double: 60 }] }]);

      const res = await http(url, 'DELETE', `${V3}/entity/structuredProperty/${enc(urn)}`);
      expect(res.status).toBe(200);
      expect(res.text).toBe('');
      expect(res.headers.get('content-length')).toBe('0');
      expect((await http(url, 'GET', defPath(V3, urn))).status).toBe(404);

      // Re-created at once under the same name: the old values must not come back.
      await defineProperty(url, qn, numberDefinition(qn));
      for (const d of datasets) expect((await getProperties(url, d)).body.structuredProperties.value.properties).toEqual([]);

      const jobs = await waitForJobs(url);
      const cleanup = jobs.filter((j) => j.payload.propertyUrn === urn);
      expect(cleanup.every((j) => j.status === 'done')).toBe(true);
      const job = await http(url, 'GET', `${V3}/jobs/${cleanup[0]!.id}`);
      expect(job.body).toMatchObject({ kind: 'cleanup-property-values', status: 'done', remaining: 0 });
    });

    test('DELETE of a property that does not exist is 200 (idempotent)', async () => {
      const res = await http(url, 'DELETE', `${V3}/entity/structuredProperty/${enc(propertyUrn(name()))}`);
      expect(res.status).toBe(200);
    });

    test('a soft-deleted property can be hard deleted', async () => {
      const qn = name();
      const urn = await defineProperty(url, qn, numberDefinition(qn));
      await softDelete(url, urn);
      expect((await http(url, 'DELETE', `${V3}/entity/structuredProperty/${enc(urn)}`)).status).toBe(200);
      expect((await http(url, 'GET', defPath(V3, urn))).status).toBe(404);
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
