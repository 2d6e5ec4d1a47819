/**
 * Entities and their aspects at the service (docs/contract.md §1, §4, §5): create-only
 * writes, If-Version-Match, batches that are all or nothing, patches keyed by
 * arrayPrimaryKeys, reads and listings, hard deletes with their children, the
 * `createsEntity` write option (the Rest.li dialect), and references. In process, on
 * a real PostgreSQL.
 */
import { AlreadyExistsError, InvalidUrnError, NotFoundError, PreconditionError, ValidationError } from '../../src/domain/errors.js';
import { LIMITS } from '../../src/domain/limits.js';
import { ENTITY } from '../../src/domain/registry/entityTypes.js';
import { parseUrn } from '../../src/domain/urn.js';
import { entityTypeNamed } from '../../src/services/entityService.js';
import { planOf, setChange, type AspectInput } from '../../src/domain/writes/plan.js';
import type { PatchInput } from '../../src/rest/shapes.js';
import { ADMIN, READER, startTestRuntime, WRITER, type TestRuntime } from '../support/runtime.js';
import { datasetUrn, fieldUrn, propertyUrn, rejection, serviceCatalog, type ServiceCatalog } from '../support/serviceCatalog.js';
import { writesOf } from '../support/writes.js';

let runtime: TestRuntime;
let catalog: ServiceCatalog;
let seq = 0;
const name = () => `db.entities.t${++seq}`;
const OWNER = 'io.svc.ent.owner';
const TAG_TYPE = entityTypeNamed('tag');
const owner = propertyUrn(OWNER);

beforeAll(async () => {
  runtime = await startTestRuntime();
  catalog = serviceCatalog(runtime);
  await catalog.define(OWNER, { entityTypes: ['dataset', 'schemaField'] });
});
afterAll(async () => {
  await runtime?.stop();
});

const entities = () => runtime.services.entities;
const writes = () => writesOf(runtime.services);
const aspects = (entries: Record<string, unknown>): Map<string, AspectInput> => new Map(Object.entries(entries).map(([aspect, value]) => [aspect, { value }]));
const exists = (urn: string) => entities().exists(urn);
const keyOf = (urn: string) => ({ platform: 'urn:li:dataPlatform:hive', name: urn.split(',')[1], origin: 'PROD' });

describe('single-aspect writes', () => {
  test('createOnly refuses an aspect that exists (AlreadyExistsError) and keeps it; without it the write replaces', async () => {
    const d = datasetUrn(name());
    await catalog.createDatasets([d]);
    await writes().setAspect(WRITER, d, 'datasetProperties', { value: { description: 'first' } }, { createOnly: true });
    await rejection(writes().setAspect(WRITER, d, 'datasetProperties', { value: { description: 'second' } }, { createOnly: true }), AlreadyExistsError);
    expect((await entities().getAspect(READER, d, 'datasetProperties')).value).toEqual({ description: 'first' });
    await writes().setAspect(WRITER, d, 'datasetProperties', { value: { description: 'second' } });
    expect((await entities().getAspect(READER, d, 'datasetProperties')).value).toEqual({ description: 'second' });
  });

  test('a write answers the aspect exactly as stored, without defaults, and records system metadata beside it', async () => {
    const d = datasetUrn(name());
    await catalog.createDatasets([d]);
    const { result } = await writes().setAspect(WRITER, d, 'datasetProperties', { value: { description: 'orders' }, systemMetadata: { runId: 'load-1' } });
    expect(result.value).toEqual({ description: 'orders' });
    const read = await entities().getAspect(READER, d, 'datasetProperties');
    expect(read.value).toEqual({ description: 'orders' });
    expect(read.systemMetadata).toMatchObject({ runId: 'load-1', version: '1' });
  });

  test('If-Version-Match: a stale version is a PreconditionError and changes nothing; the current one writes', async () => {
    const d = datasetUrn(name());
    await catalog.createDatasets([d]);
    const stale = await rejection(writes().setAspect(WRITER, d, 'status', { value: { removed: true }, ifVersionMatch: '7' }), PreconditionError);
    expect(stale.message).toMatch(/status of urn:li:dataset:.* is at version 1, not 7 as read/);
    expect(stale.details).toMatchObject({ expectedVersion: '7', currentVersion: '1', changes: [] });
    expect((await entities().getAspect(READER, d, 'status')).value).toEqual({ removed: false });
    await writes().setAspect(WRITER, d, 'status', { value: { removed: true }, ifVersionMatch: '1' });
    expect((await entities().getAspect(READER, d, 'status')).value).toEqual({ removed: true });
  });

  test('an aspect the entity type does not have is a ValidationError on aspect, listing the known ones', async () => {
    const err = await rejection(writes().setAspect(WRITER, datasetUrn(name()), 'warpDrive', { value: {} }), ValidationError);
    expect(err).toMatchObject({ field: 'aspect', message: expect.stringMatching(/^Unknown aspect warpDrive for entity type dataset; known aspects: datasetKey, /) });
  });

  test('a malformed urn is an InvalidUrnError naming it; a urn of another type than asked is one too', async () => {
    for (const bad of ['urn:li:dataset:(urn:li:dataPlatform:hive,x,PROD', 'urn:li:dataset:(urn:li:dataPlatform:hive,x,MARS)', 'dataset:x', 'urn:li:dataset:(urn:li:tag:hive,x,PROD)']) {
      expect((await rejection(entities().getEntity(READER, bad), InvalidUrnError)).urn).toBe(bad);
    }
    await rejection(entities().getEntity(READER, 'urn:li:tag:pii', { entityType: ENTITY.dataset }), InvalidUrnError);
  });

  test('an aspect of a plain shape is checked too: a status whose removed is not a boolean is a ValidationError', async () => {
    const d = datasetUrn(name());
    await catalog.createDatasets([d]);
    const err = await rejection(writes().setAspect(WRITER, d, 'status', { value: { removed: 'no' } }), ValidationError);
    expect(err.message).toMatch(/removed must be true or false, not "no"/);
  });
});

describe('the createsEntity write option (Rest.li proposals create their entity; REST v3 answers 404)', () => {
  test('without it, a write that never creates entities is a NotFoundError and nothing comes into being', async () => {
    const d = datasetUrn(name());
    await rejection(writes().setAspect(WRITER, d, 'structuredProperties', { value: { properties: [{ propertyUrn: owner, values: [{ string: 'x' }] }] } }), NotFoundError);
    expect(await exists(d)).toBe(false);
  });

  test('with it, the same write brings the entity into being with its key aspect, in the same transaction', async () => {
    const d = datasetUrn(name());
    const { result } = await writes().setAspect(WRITER, d, 'structuredProperties', { value: { properties: [{ propertyUrn: owner, values: [{ string: 'x' }] }] } }, { createsEntity: true });
    expect(result.aspect).toBe('structuredProperties');
    const view = await entities().getEntity(READER, d);
    expect(Object.fromEntries([...view.aspects].map(([k, v]) => [k, v.value]))).toEqual({ datasetKey: keyOf(d), structuredProperties: { properties: [{ propertyUrn: owner, values: [{ string: 'x' }] }] } });
  });

  test('a patch with it starts from an empty aspect of a new entity', async () => {
    const d = datasetUrn(name());
    await writes().patchAspect(WRITER, d, 'structuredProperties', { patch: [{ op: 'add', path: `/properties/${owner}`, value: { propertyUrn: owner, values: [{ string: 'p' }] } }], arrayPrimaryKeys: { properties: ['propertyUrn'] } }, { createsEntity: true });
    expect(await catalog.valuesOf(d)).toEqual([{ propertyUrn: owner, values: [{ string: 'p' }] }]);
  });

  test("a batch with it (DataHub's v3 batch create) creates each missing entity from its key; the answer lists only the aspects sent", async () => {
    const [d, existing] = [datasetUrn(name()), datasetUrn(name())];
    await catalog.createDatasets([existing]);
    const values = { properties: [{ propertyUrn: owner, values: [{ string: 'b' }] }] };
    const items = (createsEntity: boolean) => [d, existing].map((urn) => ({ urn: parseUrn(urn), changes: [setChange('structuredProperties', { value: values })], createsEntity }));
    await rejection(runtime.services.writes.submit(WRITER, planOf(items(false))), NotFoundError);
    expect(await exists(d)).toBe(false);
    const { result } = await runtime.services.writes.submit(WRITER, planOf(items(true)));
    expect(result.entities.map((e) => [e.urn, e.results.map((a) => a.aspect)])).toEqual([[d, ['structuredProperties']], [existing, ['structuredProperties']]]);
    expect(await exists(d)).toBe(true);
    expect(await catalog.valuesOf(d)).toEqual(values.properties);
  });

  test('on an existing entity it changes nothing else', async () => {
    const d = datasetUrn(name());
    await catalog.createDatasets([d]);
    await writes().setAspect(WRITER, d, 'datasetProperties', { value: { description: 'x' } }, { createsEntity: true });
    expect([...(await entities().getEntity(READER, d)).aspects.keys()].sort()).toEqual(['datasetKey', 'datasetProperties', 'status']);
  });
});

describe('batches', () => {
  test('batchUpsert creates several entities and answers each with the aspects written', async () => {
    const [a, b] = [datasetUrn(name()), datasetUrn(name())];
    const { result: written } = await writes().batchUpsert(WRITER, ENTITY.dataset, [
      { urn: a, aspects: aspects({ status: { removed: false }, datasetProperties: { description: 'orders' } }) },
      { urn: b, aspects: aspects({ datasetKey: keyOf(b) }) },
    ]);
    expect(written.map((w) => ({ urn: w.urn, aspects: w.results.map((r) => [r.aspect, r.value]) }))).toEqual([
      { urn: a, aspects: [['status', { removed: false }], ['datasetProperties', { description: 'orders' }]] },
      { urn: b, aspects: [['datasetKey', keyOf(b)]] },
    ]);
    expect(await exists(b)).toBe(true);
  });

  test('one invalid entry fails the whole batch and nothing is written', async () => {
    const [good, bad] = [datasetUrn(name()), datasetUrn(name())];
    await rejection(
      writes().batchUpsert(WRITER, ENTITY.dataset, [
        { urn: good, aspects: aspects({ status: { removed: false } }) },
        { urn: bad, aspects: aspects({ status: { removed: 'no' } }) },
      ]),
      ValidationError,
    );
    expect(await exists(good)).toBe(false);
  });

  test('a key aspect that disagrees with the urn is a ValidationError naming the key field', async () => {
    const err = await rejection(writes().batchUpsert(WRITER, ENTITY.dataset, [{ urn: datasetUrn(name()), aspects: aspects({ datasetKey: { name: 'other' } }) }]), ValidationError);
    expect(err).toMatchObject({ field: 'datasetKey.name', message: expect.stringMatching(/datasetKey\.name does not match the urn/) });
  });

  test('createEntityOnly refuses an entity that exists; createOnly an aspect that exists', async () => {
    const d = datasetUrn(name());
    await catalog.createDatasets([d]);
    const entity = await rejection(writes().batchUpsert(WRITER, ENTITY.dataset, [{ urn: d, aspects: aspects({ datasetProperties: {} }) }], { createEntityOnly: true }), AlreadyExistsError);
    expect(entity.message).toBe('Cannot perform CREATE since the entity already exists.');
    await rejection(writes().batchUpsert(WRITER, ENTITY.dataset, [{ urn: d, aspects: aspects({ status: { removed: true } }) }], { createOnly: true }), AlreadyExistsError);
    expect((await entities().getAspect(READER, d, 'status')).value).toEqual({ removed: false });
  });

  test('an entry whose urn is of another type is an InvalidUrnError; an unknown aspect a ValidationError; nothing is written', async () => {
    const d = datasetUrn(name());
    await rejection(writes().batchUpsert(WRITER, ENTITY.dataset, [{ urn: d, aspects: aspects({ status: { removed: false } }) }, { urn: 'urn:li:tag:pii', aspects: aspects({ status: { removed: false } }) }]), InvalidUrnError);
    expect((await rejection(writes().batchUpsert(WRITER, ENTITY.dataset, [{ urn: d, aspects: aspects({ warpDrive: {} }) }]), ValidationError)).field).toBe('aspect');
    expect(await exists(d)).toBe(false);
  });

  test(`a batch of more than ${LIMITS.batchEntities} entities is a ValidationError naming the limit`, async () => {
    const items = Array.from({ length: LIMITS.batchEntities + 1 }, (_, i) => ({ urn: datasetUrn(`db.entities.big${i}`), aspects: aspects({ status: { removed: false } }) }));
    const err = await rejection(writes().batchUpsert(WRITER, ENTITY.dataset, items), ValidationError);
    expect(err.message).toMatch(new RegExp(`holds ${LIMITS.batchEntities + 1} entities, more than the limit of ${LIMITS.batchEntities} entities in one batch; split it$`));
    expect(await exists(items[0]!.urn)).toBe(false);
  });

  test('one urn in several items: merged in order, the same aspect twice keeps the later value, one answer per entity', async () => {
    const d = datasetUrn(name());
    const { result: written } = await writes().batchUpsert(WRITER, ENTITY.dataset, [
      { urn: d, aspects: aspects({ datasetProperties: { description: 'first' } }) },
      { urn: d, aspects: aspects({ status: { removed: false } }) },
      { urn: d, aspects: aspects({ datasetProperties: { description: 'second' } }) },
    ]);
    expect(written).toHaveLength(1);
    expect((await entities().getAspect(READER, d, 'datasetProperties')).value).toEqual({ description: 'second' });
  });

  test('batchPatch creates a missing aspect and entity, applies patches of one aspect in order, and is all or nothing', async () => {
    const [a, b] = [datasetUrn(name()), datasetUrn(name())];
    const keyed = { arrayPrimaryKeys: { properties: ['propertyUrn'] } };
    const add = (value: string) => ({ ...keyed, patch: [{ op: 'add' as const, path: `/properties/${owner}`, value: { propertyUrn: owner, values: [{ string: value }] } }] });
    await writes().batchPatch(WRITER, ENTITY.dataset, [
      { urn: a, aspects: new Map<string, PatchInput>([['status', { patches: [{ patch: [{ op: 'add' as const, path: '/removed', value: false }], arrayPrimaryKeys: {} }] }], ['structuredProperties', { patches: [add('one'), add('two')] }]]) },
    ]);
    expect((await entities().getAspect(READER, a, 'status')).value).toEqual({ removed: false });
    expect(await catalog.valuesOf(a)).toEqual([{ propertyUrn: owner, values: [{ string: 'two' }] }]);
    await rejection(
      writes().batchPatch(WRITER, ENTITY.dataset, [
        { urn: b, aspects: new Map<string, PatchInput>([['status', { patches: [{ patch: [{ op: 'add' as const, path: '/removed', value: false }], arrayPrimaryKeys: {} }] }]]) },
        { urn: a, aspects: new Map<string, PatchInput>([['structuredProperties', { patches: [{ ...keyed, patch: [{ op: 'add' as const, path: `/properties/${owner}`, value: { propertyUrn: owner, values: [] } }] }] }]]) },
      ]),
      ValidationError,
    );
    expect(await exists(b)).toBe(false);
    expect(await catalog.valuesOf(a)).toEqual([{ propertyUrn: owner, values: [{ string: 'two' }] }]);
  });

  test('batchGet leaves out entities that do not exist and reads every aspect when an item names none', async () => {
    const d = datasetUrn(name());
    await catalog.createDatasets([d]);
    const views = await entities().batchGet(READER, ENTITY.dataset, [
      { urn: d, aspects: [] },
      { urn: datasetUrn(name()), aspects: ['status'] },
    ]);
    expect(views.map((v) => [v.urn, [...v.aspects.keys()].sort()])).toEqual([[d, ['datasetKey', 'status']]]);
  });
});

describe('reads', () => {
  test('getEntity answers the key aspect and every aspect, or those named', async () => {
    const d = datasetUrn(name());
    await catalog.createDatasets([d]);
    await catalog.setValues(d, { [OWNER]: ['team'] });
    const all = await entities().getEntity(READER, d);
    expect(Object.fromEntries([...all.aspects].map(([k, v]) => [k, v.value]))).toEqual({
      datasetKey: keyOf(d),
      status: { removed: false },
      structuredProperties: { properties: [{ propertyUrn: owner, values: [{ string: 'team' }] }] },
    });
    expect([...(await entities().getEntity(READER, d, { aspects: ['status'] })).aspects.keys()]).toEqual(['status']);
  });

  test('a missing entity or a missing aspect is a NotFoundError; a schema field exists exactly when its dataset does', async () => {
    const d = datasetUrn(name());
    await rejection(entities().getEntity(READER, d), NotFoundError);
    await catalog.createDatasets([d]);
    await rejection(entities().getAspect(READER, d, 'datasetProperties'), NotFoundError);
    expect(await exists(fieldUrn(d, 'no.aspects.yet'))).toBe(true);
    expect(await exists(fieldUrn(datasetUrn(name()), 'x'))).toBe(false);
  });

  test('entity type names are matched case-insensitively; an unknown one is a NotFoundError naming it', () => {
    expect(entityTypeNamed('DataSet')).toBe(ENTITY.dataset);
    expect(() => entityTypeNamed('spaceship')).toThrow(NotFoundError);
    expect(() => entityTypeNamed('spaceship')).toThrow(/Unknown entity type spaceship/);
  });

  test('listEntities pages in urn order with a cursor that reaches every entity, leaving soft-deleted ones out', async () => {
    const urns = [name(), name(), name()].map((n) => `urn:li:tag:${n}`);
    await writes().batchUpsert(WRITER, TAG_TYPE, urns.map((urn) => ({ urn, aspects: aspects({ status: { removed: false } }) })));
    await writes().setAspect(WRITER, urns[1]!, 'status', { value: { removed: true } });
    const seen: string[] = [];
    let scrollId: string | undefined;
    do {
      const page = await entities().listEntities(READER, TAG_TYPE, { count: 1, ...(scrollId ? { scrollId } : {}) });
      expect(page.entities.length).toBeLessThanOrEqual(1);
      seen.push(...page.entities.map((e) => e.urn));
      scrollId = page.scrollId ?? undefined;
    } while (scrollId);
    expect(seen).toEqual([urns[0], urns[2]].sort());
  });

  test('a scroll id that is not one of ours is a ValidationError on scrollId', async () => {
    const err = await rejection(entities().listEntities(READER, TAG_TYPE, { count: 1, scrollId: Buffer.from('not-a-urn\u0000').toString('base64url') }), ValidationError);
    expect(err.field).toBe('scrollId');
  });

  test('readEntities reads many in one call, leaving out those that do not exist', async () => {
    const [a, b] = [datasetUrn(name()), datasetUrn(name())];
    await catalog.createDatasets([a]);
    const views = await entities().readEntities([parseUrn(a), parseUrn(b)], ['status']);
    expect([...views.keys()]).toEqual([a]);
  });
});

describe('hard deletes', () => {
  test('deleting a dataset removes it with its schema fields and their values; it is idempotent', async () => {
    const d = datasetUrn(name());
    const field = fieldUrn(d, 'col');
    await catalog.createDatasets([d]);
    await catalog.setValues(field, { [OWNER]: ['f'] });
    await writes().deleteEntity(ADMIN, d);
    expect(await exists(d)).toBe(false);
    await rejection(entities().getEntity(READER, field), NotFoundError);
    await catalog.createDatasets([d]);
    expect(await catalog.valuesOf(field)).toEqual([]);
    await writes().deleteEntity(ADMIN, datasetUrn(name()));
  });

  test('deleting one aspect keeps the entity; deleting the key aspect deletes the entity; both are idempotent', async () => {
    const d = datasetUrn(name());
    await catalog.createDatasets([d]);
    await catalog.setValues(d, { [OWNER]: ['x'] });
    await writes().deleteAspect(WRITER, d, 'structuredProperties');
    expect(await catalog.valuesOf(d)).toEqual([]);
    await writes().deleteAspect(WRITER, d, 'structuredProperties');
    await writes().deleteAspect(ADMIN, d, 'datasetKey');
    expect(await exists(d)).toBe(false);
  });
});

describe('references', () => {
  const TAG = 'urn:li:tag:svc-doomed';
  const tags = { tags: [{ tag: TAG }, { tag: 'urn:li:tag:keep' }] };

  test('references finds the aspects naming a tag; removeReferences takes it out of each and keeps the rest', async () => {
    const d = datasetUrn(name());
    const schema = { schemaName: 't', platform: 'urn:li:dataPlatform:hive', version: 0, hash: '', platformSchema: { 'com.linkedin.schema.OtherSchema': { rawSchema: '' } }, fields: [{ fieldPath: 'ip', nativeDataType: 'string', type: { type: { 'com.linkedin.schema.StringType': {} } }, globalTags: tags }] };
    await writes().batchUpsert(WRITER, ENTITY.dataset, [{ urn: d, aspects: aspects({ globalTags: tags, schemaMetadata: schema }) }]);
    const expected = [
      { entity: d, aspect: 'globalTags', relationship: 'TaggedWith' },
      { entity: d, aspect: 'schemaMetadata', relationship: 'SchemaFieldTaggedWith' },
    ];
    expect(await entities().references(READER, TAG)).toEqual(expected);
    expect((await entities().removeReferences(WRITER, TAG)).result).toEqual(expected);
    const view = await entities().getEntity(READER, d, { aspects: ['globalTags', 'schemaMetadata'] });
    expect(view.aspects.get('globalTags')!.value).toEqual({ tags: [{ tag: 'urn:li:tag:keep' }] });
    expect((view.aspects.get('schemaMetadata')!.value as { fields: Array<{ globalTags: unknown }> }).fields[0]!.globalTags).toEqual({ tags: [{ tag: 'urn:li:tag:keep' }] });
    expect(await entities().references(READER, TAG)).toEqual([]);
  });
});

describe('write traces', () => {
  test('a traced write is ACTIVE_STATE once stored, an aspect never written UNKNOWN; a bad trace id is a ValidationError on traceId', async () => {
    const d = datasetUrn(name());
    await catalog.createDatasets([d]);
    const traces = await entities().traceWrites(READER, `${'0'.repeat(16)}${'7'.padEnd(16, 'f')}`, new Map([[d, ['status', 'datasetProperties']]]));
    expect(traces.get(d)!.get('status')!.primaryStorage.writeStatus).toBe('ACTIVE_STATE');
    expect(traces.get(d)!.get('datasetProperties')!.primaryStorage.writeStatus).toBe('UNKNOWN');
    expect((await rejection(entities().traceWrites(READER, 'nope', new Map()), ValidationError)).field).toBe('traceId');
  });
});
