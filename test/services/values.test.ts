/**
 * Structured property values at the service (docs/contract.md §3): the three write
 * semantics (a set replaces the aspect, a JSON patch keyed by propertyUrn, GraphQL's
 * merge and removal), every validation rule with its error class and field, schema
 * fields, immutability, what readers see, and concurrent writers. In process, on a
 * real PostgreSQL.
 */
import { InvalidUrnError, NotFoundError, SoftDeletedError, ValidationError } from '../../src/domain/errors.js';
import type { PatchDocument } from '../../src/domain/jsonPatch.js';
import { parseUrn } from '../../src/domain/urn.js';
import { ADMIN, READER, startTestRuntime, WRITER, type TestRuntime } from '../support/runtime.js';
import { datasetUrn, fieldUrn, propertyUrn, rejection, serviceCatalog, type ServiceCatalog } from '../support/serviceCatalog.js';
import { writesOf } from '../support/writes.js';
import { nonEmpty } from '../support/nonEmpty.js';

let runtime: TestRuntime;
let catalog: ServiceCatalog;
let seq = 0;
const name = (prefix = 'db.values') => `${prefix}.t${++seq}`;

const RETENTION = 'io.svc.val.retention'; // number, MULTIPLE, allowed 30/60/365, datasets and fields
const TIER = 'io.svc.val.tier'; // string, SINGLE, allowed gold/silver
const OWNER = 'io.svc.val.owner'; // string, SINGLE
const FLOW_ONLY = 'io.svc.val.flowOnly'; // number, dataFlow only
const REVIEWED = 'io.svc.val.reviewed'; // date
const STEWARD = 'io.svc.val.steward'; // urn of a corpuser
const FROZEN = 'io.svc.val.frozen'; // immutable string
const [retention, tier, owner, flowOnly, reviewed, steward, frozen] = [RETENTION, TIER, OWNER, FLOW_ONLY, REVIEWED, STEWARD, FROZEN].map(propertyUrn) as [string, string, string, string, string, string, string];
const keyed = (ops: PatchDocument['patch']): PatchDocument => ({ patch: ops, arrayPrimaryKeys: { properties: ['propertyUrn'] } });

beforeAll(async () => {
  runtime = await startTestRuntime();
  catalog = serviceCatalog(runtime);
  await catalog.define(RETENTION, { valueType: 'number', cardinality: 'MULTIPLE', entityTypes: ['dataset', 'schemaField'], allowedValues: [{ value: { double: 30 } }, { value: { double: 60 } }, { value: { double: 365 } }] });
  await catalog.define(TIER, { allowedValues: [{ value: { string: 'gold' } }, { value: { string: 'silver' } }] });
  await catalog.define(OWNER);
  await catalog.define(FLOW_ONLY, { valueType: 'number', entityTypes: ['dataFlow'] });
  await catalog.define(REVIEWED, { valueType: 'date' });
  await catalog.define(STEWARD, { valueType: 'urn', typeQualifier: { allowedTypes: ['urn:li:entityType:svc.corpuser'] } });
  await catalog.define(FROZEN, { immutable: true });
});
afterAll(async () => {
  await runtime?.stop();
});

const entities = () => runtime.services.entities;
const writes = () => writesOf(runtime.services);
const values = () => runtime.services.values;
const set = (urn: string, properties: unknown[], options = {}) => writes().setAspect(WRITER, urn, 'structuredProperties', { value: { properties } }, options);
const patch = (urn: string, ops: PatchDocument['patch']) => writes().patchAspect(WRITER, urn, 'structuredProperties', keyed(ops));

async function dataset(): Promise<string> {
  const urn = datasetUrn(name());
  await catalog.createDatasets([urn]);
  return urn;
}

describe('a set replaces the whole aspect', () => {
  test('properties not named are gone, and the answer is the stored aspect', async () => {
    const d = await dataset();
    await set(d, [{ propertyUrn: retention, values: [{ double: 30 }] }, { propertyUrn: owner, values: [{ string: 'a' }] }]);
    const { result } = await set(d, [{ propertyUrn: tier, values: [{ string: 'gold' }] }]);
    expect(result.value).toEqual({ properties: [{ propertyUrn: tier, values: [{ string: 'gold' }] }] });
    expect(await catalog.valuesOf(d)).toEqual([{ propertyUrn: tier, values: [{ string: 'gold' }] }]);
  });

  test('a numeric string for a number property is stored as a double', async () => {
    const d = await dataset();
    await set(d, [{ propertyUrn: retention, values: [{ string: '365' }] }]);
    expect(await catalog.valuesOf(d)).toEqual([{ propertyUrn: retention, values: [{ double: 365 }] }]);
  });

  test('a date must be a real calendar date; a urn value must be of an allowed entity type', async () => {
    const d = await dataset();
    await set(d, [{ propertyUrn: reviewed, values: [{ string: '2024-02-29' }] }]);
    const badDate = await rejection(set(d, [{ propertyUrn: reviewed, values: [{ string: '2023-02-29' }] }]), ValidationError);
    expect(badDate).toMatchObject({ field: 'values', message: expect.stringMatching(/\{string=2023-02-29\} is not a date: 2023-02 has 28 days$/) });
    await set(d, [{ propertyUrn: steward, values: [{ string: 'urn:li:corpuser:jdoe' }] }]);
    const wrongType = await rejection(set(d, [{ propertyUrn: steward, values: [{ string: 'urn:li:tag:pii' }] }]), ValidationError);
    expect(wrongType).toMatchObject({ field: 'values', message: expect.stringMatching(/should be an urn of type corpuser/) });
    expect(await catalog.valuesOf(d)).toEqual([{ propertyUrn: steward, values: [{ string: 'urn:li:corpuser:jdoe' }] }]);
  });
});

describe('every value rule is checked before anything is stored', () => {
  test.each<[string, () => unknown[], string, RegExp]>([
    ['a value of the wrong type', () => [{ propertyUrn: retention, values: [{ string: 'thirty' }] }], 'values', /^Property: \S+, value: \{string=thirty\} should be a number/],
    ['a value outside the allowed values', () => [{ propertyUrn: tier, values: [{ string: 'bronze' }] }], 'values', /value: \{string=bronze\} should be one of \[\{string=gold\}, \{string=silver\}\]/],
    ['two values for a SINGLE property', () => [{ propertyUrn: tier, values: [{ string: 'gold' }, { string: 'silver' }] }], 'values', /cardinality SINGLE, but 2 values were given/],
    ['no value at all', () => [{ propertyUrn: owner, values: [] }], 'values', /needs at least one value/],
    ['one value twice', () => [{ propertyUrn: retention, values: [{ double: 30 }, { double: 30 }] }], 'values', /is given more than once/],
    ['more than 1000 values', () => [{ propertyUrn: retention, values: Array.from({ length: 1001 }, () => ({ double: 30 })) }], 'properties[0].values', /^properties\[0\]\.values has more than the limit of 1000 entries$/],
    ['a property that does not exist', () => [{ propertyUrn: propertyUrn('io.svc.val.nothing'), values: [{ string: 'x' }] }], 'propertyUrn', /does not exist/],
    ['a property not allowed on datasets', () => [{ propertyUrn: flowOnly, values: [{ double: 1 }] }], 'propertyUrn', /cannot be applied to entity type dataset/],
    ['the same property twice', () => [{ propertyUrn: owner, values: [{ string: 'a' }] }, { propertyUrn: owner, values: [{ string: 'b' }] }], 'properties[1].propertyUrn', /^properties\[1\]\.propertyUrn lists urn:\S+ more than once; give each property once per source, with all its values$/],
    ['a value object with two keys', () => [{ propertyUrn: owner, values: [{ string: 'a', double: 1 }] }], 'properties[0].values[0]', /^properties\[0\]\.values\[0\] must have exactly one of "string" or "double"/],
    ['a malformed property urn', () => [{ propertyUrn: 'urn:li:structuredProperty:has space', values: [{ string: 'a' }] }], 'properties[0].propertyUrn', /not a structured property urn/],
  ])('%s is a ValidationError naming the field, and the stored values stay', async (_label, properties, field, message) => {
    const d = await dataset();
    await set(d, [{ propertyUrn: owner, values: [{ string: 'kept' }] }]);
    const err = await rejection(set(d, properties()), ValidationError);
    expect(err.field).toBe(field);
    expect(err.message).toMatch(message);
    expect(await catalog.valuesOf(d)).toEqual([{ propertyUrn: owner, values: [{ string: 'kept' }] }]);
  });

  test('an entity that does not exist is a NotFoundError; a malformed entity urn an InvalidUrnError', async () => {
    await rejection(set(datasetUrn(name('db.never')), [{ propertyUrn: owner, values: [{ string: 'x' }] }]), NotFoundError);
    const bad = 'urn:li:dataset:(urn:li:dataPlatform:hive,x,NOPE)';
    const err = await rejection(set(bad, [{ propertyUrn: owner, values: [{ string: 'x' }] }]), InvalidUrnError);
    expect(err.urn).toBe(bad);
  });

  test('a write with createsEntity brings the missing entity into being with its key aspect (the Rest.li dialect)', async () => {
    const d = datasetUrn(name('db.created'));
    await set(d, [{ propertyUrn: owner, values: [{ string: 'x' }] }], { createsEntity: true });
    const view = await entities().getEntity(READER, d);
    expect([...view.aspects.keys()].sort()).toEqual(['datasetKey', 'structuredProperties']);
    expect(view.aspects.get('datasetKey')!.value).toEqual({ platform: 'urn:li:dataPlatform:hive', name: d.split(',')[1], origin: 'PROD' });
  });

  test('an immutable value can be set, and set again to the same, but not changed or removed', async () => {
    const d = await dataset();
    await set(d, [{ propertyUrn: frozen, values: [{ string: 'v1' }] }]);
    await set(d, [{ propertyUrn: frozen, values: [{ string: 'v1' }] }]);
    const change = await rejection(set(d, [{ propertyUrn: frozen, values: [{ string: 'v2' }] }]), ValidationError);
    expect(change).toMatchObject({ field: 'values', message: expect.stringMatching(/is immutable; its value cannot change once set/) });
    const removal = await rejection(set(d, [{ propertyUrn: owner, values: [{ string: 'x' }] }]), ValidationError);
    expect(removal).toMatchObject({ field: 'propertyUrn', message: expect.stringMatching(/is immutable; its value cannot be removed/) });
    await rejection(values().remove(WRITER, d, [frozen]), ValidationError);
    expect(await catalog.valuesOf(d)).toEqual([{ propertyUrn: frozen, values: [{ string: 'v1' }] }]);
  });
});

describe('a JSON patch addresses one entry by propertyUrn (arrayPrimaryKeys)', () => {
  test('add of an absent property appends it and leaves the others', async () => {
    const d = await dataset();
    await set(d, [{ propertyUrn: retention, values: [{ double: 60 }] }]);
    const { result } = await patch(d, [{ op: 'add', path: `/properties/${tier}`, value: { propertyUrn: tier, values: [{ string: 'gold' }] } }]);
    expect(result.value).toEqual({ properties: [{ propertyUrn: retention, values: [{ double: 60 }] }, { propertyUrn: tier, values: [{ string: 'gold' }] }] });
  });

  test('add of a present property replaces its values in place', async () => {
    const d = await dataset();
    await set(d, [{ propertyUrn: retention, values: [{ double: 60 }] }, { propertyUrn: tier, values: [{ string: 'gold' }] }]);
    await patch(d, [{ op: 'add', path: `/properties/${retention}`, value: { propertyUrn: retention, values: [{ double: 365 }, { double: 30 }] } }]);
    expect(await catalog.valuesOf(d)).toEqual([{ propertyUrn: retention, values: [{ double: 365 }, { double: 30 }] }, { propertyUrn: tier, values: [{ string: 'gold' }] }]);
  });

  test('remove deletes the named entry and leaves the others in place', async () => {
    const d = await dataset();
    await set(d, [{ propertyUrn: retention, values: [{ double: 60 }] }, { propertyUrn: tier, values: [{ string: 'gold' }] }]);
    await patch(d, [{ op: 'remove', path: `/properties/${tier}` }]);
    expect(await catalog.valuesOf(d)).toEqual([{ propertyUrn: retention, values: [{ double: 60 }] }]);
  });

  test('a patch of an entity without the aspect yet starts from an empty one', async () => {
    const d = await dataset();
    await patch(d, [{ op: 'add', path: `/properties/${owner}`, value: { propertyUrn: owner, values: [{ string: 'o' }] } }]);
    expect(await catalog.valuesOf(d)).toEqual([{ propertyUrn: owner, values: [{ string: 'o' }] }]);
  });

  test('a patched result that breaks a rule is refused whole: nothing changes', async () => {
    const d = await dataset();
    await set(d, [{ propertyUrn: tier, values: [{ string: 'gold' }] }]);
    await rejection(
      patch(d, [
        { op: 'add', path: `/properties/${owner}`, value: { propertyUrn: owner, values: [{ string: 'x' }] } },
        { op: 'add', path: `/properties/${tier}`, value: { propertyUrn: tier, values: [{ string: 'bronze' }] } },
      ]),
      ValidationError,
    );
    expect(await catalog.valuesOf(d)).toEqual([{ propertyUrn: tier, values: [{ string: 'gold' }] }]);
  });

  test('a patch whose path names no entry is a ValidationError on the patch path', async () => {
    const d = await dataset();
    await set(d, [{ propertyUrn: tier, values: [{ string: 'gold' }] }]);
    const err = await rejection(patch(d, [{ op: 'replace', path: `/properties/${owner}/values`, value: [{ string: 'x' }] }]), ValidationError);
    expect(err.field).toMatch(/path$/);
  });

  test('50 concurrent patches adding different properties to one dataset end with all 50 present', async () => {
    const d = await dataset();
    const urns: string[] = [];
    for (let i = 0; i < 50; i++) urns.push(await catalog.define(`io.svc.val.concurrent.p${i}`, { valueType: 'number' }));
    await Promise.all(urns.map((p, i) => patch(d, [{ op: 'add', path: `/properties/${p}`, value: { propertyUrn: p, values: [{ double: i }] } }])));
    const stored = (await catalog.valuesOf(d)) as Array<{ propertyUrn: string; values: unknown[] }>;
    expect(new Set(stored.map((p) => p.propertyUrn))).toEqual(new Set(urns));
    for (const [i, p] of nonEmpty(urns.entries())) expect(stored.find((s) => s.propertyUrn === p)!.values).toEqual([{ double: i }]);
  });
});

describe('merge and removal (what GraphQL calls)', () => {
  test('upsert sets new properties and replaces the named ones, keeping the others', async () => {
    const d = await dataset();
    await values().upsert(WRITER, d, [{ structuredPropertyUrn: retention, values: [{ numberValue: 30 }] }]);
    await values().upsert(WRITER, d, [{ structuredPropertyUrn: owner, values: [{ stringValue: 'team-a' }] }]);
    const { result: third } = await values().upsert(WRITER, d, [{ structuredPropertyUrn: retention, values: [{ numberValue: 60 }, { numberValue: 30 }] }]);
    expect(third).toEqual({
      associatedUrn: d,
      aspectVersion: '3',
      properties: [{ propertyUrn: retention, values: [{ double: 60 }, { double: 30 }] }, { propertyUrn: owner, values: [{ string: 'team-a' }] }],
    });
  });

  test('upsert names its own input path: a value with both or neither of stringValue and numberValue', async () => {
    const d = await dataset();
    const err = await rejection(values().upsert(WRITER, d, [{ structuredPropertyUrn: owner, values: [{ stringValue: 'x' }] }, { structuredPropertyUrn: tier, values: [{}] }]), ValidationError);
    expect(err.field).toBe('structuredPropertyInputParams[1].values[0]');
  });

  test('upsert refuses a property named twice, and every value rule holds as for a set; nothing changes', async () => {
    const d = await dataset();
    await values().upsert(WRITER, d, [{ structuredPropertyUrn: retention, values: [{ numberValue: 60 }] }]);
    expect((await rejection(values().upsert(WRITER, d, [{ structuredPropertyUrn: owner, values: [] }, { structuredPropertyUrn: owner, values: [] }]), ValidationError)).field).toBe('structuredPropertyUrn');
    expect((await rejection(values().upsert(WRITER, d, [{ structuredPropertyUrn: retention, values: [{ numberValue: 31 }] }]), ValidationError)).field).toBe('values');
    await rejection(values().upsert(WRITER, datasetUrn(name('db.never')), [{ structuredPropertyUrn: retention, values: [{ numberValue: 30 }] }]), NotFoundError);
    expect(await catalog.valuesOf(d)).toEqual([{ propertyUrn: retention, values: [{ double: 60 }] }]);
  });

  test('remove drops the named properties and keeps the rest; removing one the entity lacks changes nothing', async () => {
    const d = await dataset();
    await values().upsert(WRITER, d, [{ structuredPropertyUrn: retention, values: [{ numberValue: 30 }] }, { structuredPropertyUrn: owner, values: [{ stringValue: 'o' }] }]);
    expect((await values().remove(WRITER, d, [retention])).result).toEqual({ associatedUrn: d, aspectVersion: '2', properties: [{ propertyUrn: owner, values: [{ string: 'o' }] }] });
    // Nothing to remove: nothing written, the version stays.
    expect((await values().remove(WRITER, d, [tier])).result).toEqual({ associatedUrn: d, aspectVersion: '2', properties: [{ propertyUrn: owner, values: [{ string: 'o' }] }] });
  });

  test('get answers what readers see, and undefined for an entity that does not exist', async () => {
    const d = await dataset();
    expect(await values().get(READER, d)).toEqual({ associatedUrn: d, properties: [] });
    await values().upsert(WRITER, d, [{ structuredPropertyUrn: owner, values: [{ stringValue: 'o' }] }]);
    expect((await values().get(READER, d))!.properties).toEqual([{ propertyUrn: owner, values: [{ string: 'o' }] }]);
    expect(await values().get(READER, datasetUrn(name('db.never')))).toBeUndefined();
  });
});

describe('schema fields', () => {
  test('a field of an existing dataset takes values and reads them back', async () => {
    const field = fieldUrn(await dataset(), 'user.email');
    await set(field, [{ propertyUrn: retention, values: [{ double: 30 }] }]);
    expect(await catalog.valuesOf(field)).toEqual([{ propertyUrn: retention, values: [{ double: 30 }] }]);
  });

  test('a field of a dataset that does not exist is a NotFoundError; a property not allowed on fields a ValidationError', async () => {
    await rejection(set(fieldUrn(datasetUrn(name('db.none')), 'a'), [{ propertyUrn: retention, values: [{ double: 30 }] }]), NotFoundError);
    const err = await rejection(set(fieldUrn(await dataset(), 'a'), [{ propertyUrn: tier, values: [{ string: 'gold' }] }]), ValidationError);
    expect(err).toMatchObject({ field: 'propertyUrn', message: expect.stringMatching(/cannot be applied to entity type schemaField/) });
  });
});

describe('readers never see hidden values', () => {
  test('values of a soft-deleted, a hard-deleted and an older version of a property are left out of every read', async () => {
    const [soft, hard, versioned] = ['io.svc.val.hidden.soft', 'io.svc.val.hidden.hard', 'io.svc.val.hidden.versioned'];
    await catalog.define(soft);
    await catalog.define(hard);
    await catalog.define(versioned, { valueType: 'number', version: '20240101000000' });
    const d = await dataset();
    await catalog.setValues(d, { [OWNER]: ['o'], [soft]: ['s'], [hard]: ['h'], [versioned]: [1] });
    await catalog.softDelete(soft);
    await runtime.services.properties.delete(ADMIN, propertyUrn(hard));
    await catalog.define(versioned, { valueType: 'string', version: '20250101000000' });
    const only = [{ propertyUrn: owner, values: [{ string: 'o' }] }];
    expect(await catalog.valuesOf(d)).toEqual(only);
    expect((await values().get(READER, d))!.properties).toEqual(only);
    const batchRead = (await entities().readEntities([parseUrn(d)])).get(d)!;
    expect(batchRead.aspects.get('structuredProperties')!.value).toEqual({ properties: only });
    expect((await entities().getAspect(READER, d, 'structuredProperties')).value).toEqual({ properties: only });
  });

  test('writing to a soft-deleted property is a SoftDeletedError on propertyUrn, by every write semantics', async () => {
    const gone = await catalog.define('io.svc.val.retired');
    await catalog.softDelete('io.svc.val.retired');
    const d = await dataset();
    for (const call of [
      () => set(d, [{ propertyUrn: gone, values: [{ string: 'x' }] }]),
      () => patch(d, [{ op: 'add', path: `/properties/${gone}`, value: { propertyUrn: gone, values: [{ string: 'x' }] } }]),
      () => values().upsert(WRITER, d, [{ structuredPropertyUrn: gone, values: [{ stringValue: 'x' }] }]),
    ]) {
      expect((await rejection(call(), SoftDeletedError)).field).toBe('propertyUrn');
    }
  });
});
