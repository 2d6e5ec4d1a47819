/**
 * Structured property definitions at the service (docs/contract.md §2, §5): create,
 * replace and the append-only update, every validation rule with its error class and
 * field, breaking changes and versions, soft delete and restore, hard delete and its
 * cleanup job, the definition's history and settings. In process, on a real
 * PostgreSQL; the REST and GraphQL shapes of the same calls are the adapters' suites.
 */
import { AlreadyExistsError, ForbiddenError, IncompatibleChangeError, InvalidUrnError, NotFoundError, SoftDeletedError, ValidationError } from '../../src/domain/errors.js';
import { ADMIN, startTestRuntime, WRITER, type TestRuntime } from '../support/runtime.js';
import { datasetUrn, definitionOf, jobsSettled, propertyUrn, rejection, serviceCatalog, type DefinitionInput, type ServiceCatalog } from '../support/serviceCatalog.js';
import { storedDatasets } from '../support/storedValues.js';
import { writesOf } from '../support/writes.js';
import { expectEvery } from '../support/nonEmpty.js';

let runtime: TestRuntime;
let catalog: ServiceCatalog;
let seq = 0;
const name = (prefix = 'io.svc.def') => `${prefix}.p${++seq}`;

beforeAll(async () => {
  runtime = await startTestRuntime();
  catalog = serviceCatalog(runtime);
});
afterAll(async () => {
  await runtime?.stop();
});

const properties = () => runtime.services.properties;
const entities = () => runtime.services.entities;
const writes = () => writesOf(runtime.services);
const writeDefinition = (qn: string, def: Record<string, unknown>, options: { createOnly?: boolean } = {}, caller = WRITER) =>
  writes().setAspect(caller, propertyUrn(qn), 'propertyDefinition', { value: def }, options);
const stored = async (qn: string) => (await properties().get(ADMIN, propertyUrn(qn)))?.definition;

const retention = (qn: string, extra: DefinitionInput = {}) =>
  definitionOf(qn, { valueType: 'number', cardinality: 'MULTIPLE', allowedValues: [{ value: { double: 30 }, description: '30 days' }, { value: { double: 60 } }], ...extra });

async function datasetWith(qn: string, values: ReadonlyArray<string | number>): Promise<string> {
  const d = datasetUrn(name('db.props'));
  await catalog.createDatasets([d]);
  await catalog.setValues(d, { [qn]: values });
  return d;
}

describe('create', () => {
  test('fills the defaults (SINGLE, mutable) and stores type urns in the canonical svc form, from short and datahub aliases', async () => {
    const qn = name();
    const { result: urn } = await properties().create(WRITER, { qualifiedName: qn, valueType: 'urn:li:dataType:datahub.number', entityTypes: ['urn:li:entityType:dataset', 'urn:li:entityType:datahub.dataFlow'] });
    expect(urn).toBe(propertyUrn(qn));
    expect(await properties().get(ADMIN, urn)).toEqual({
      urn,
      removed: false,
      migrating: false,
      definition: { qualifiedName: qn, valueType: 'urn:li:dataType:svc.number', entityTypes: ['urn:li:entityType:svc.dataset', 'urn:li:entityType:svc.dataFlow'], cardinality: 'SINGLE', immutable: false },
    });
  });

  test('keeps allowed values in the order written, with their descriptions', async () => {
    const qn = name();
    await properties().create(WRITER, {
      id: qn,
      valueType: 'urn:li:dataType:svc.string',
      entityTypes: ['urn:li:entityType:svc.dataset'],
      allowedValues: [{ stringValue: 'silver' }, { stringValue: 'gold', description: 'best' }, { stringValue: 'bronze' }],
    });
    expect((await stored(qn))!.allowedValues).toEqual([{ value: { string: 'silver' } }, { value: { string: 'gold' }, description: 'best' }, { value: { string: 'bronze' } }]);
  });

  test('an id that differs from the qualifiedName is a ValidationError on qualifiedName, and nothing is stored', async () => {
    const id = name();
    const err = await rejection(properties().create(WRITER, { id, qualifiedName: name(), valueType: 'urn:li:dataType:svc.string', entityTypes: ['urn:li:entityType:svc.dataset'] }), ValidationError);
    expect(err.field).toBe('qualifiedName');
    expect(await stored(id)).toBeUndefined();
  });

  test('a property that exists is an AlreadyExistsError and keeps its definition', async () => {
    const qn = name();
    await catalog.define(qn, { description: 'first' });
    await rejection(properties().create(WRITER, { id: qn, valueType: 'urn:li:dataType:svc.string', entityTypes: ['urn:li:entityType:svc.dataset'], description: 'second' }), AlreadyExistsError);
    expect((await stored(qn))!.description).toBe('first');
  });

  test('an allowed value given both as a string and a number is a ValidationError naming its index', async () => {
    const err = await rejection(
      properties().create(WRITER, { id: name(), valueType: 'urn:li:dataType:svc.number', entityTypes: ['urn:li:entityType:svc.dataset'], allowedValues: [{ numberValue: 1 }, { stringValue: 'a', numberValue: 2 }] }),
      ValidationError,
    );
    expect(err.field).toBe('allowedValues[1]');
  });

  test('settings given at creation are stored; update changes only the flags it names', async () => {
    const qn = name();
    const { result: urn } = await properties().create(WRITER, { id: qn, valueType: 'urn:li:dataType:svc.string', entityTypes: ['urn:li:entityType:svc.dataset'], settings: { showInSearchFilters: true, isHidden: false } });
    await properties().update(WRITER, { urn, settings: { showAsAssetBadge: true } });
    const settings = (await entities().getAspect(ADMIN, urn, 'structuredPropertySettings')).value;
    expect(settings).toEqual({ showInSearchFilters: true, isHidden: false, showAsAssetBadge: true });
  });
});

describe('every definition is validated before anything is stored', () => {
  const base = (qn: string) => ({ qualifiedName: qn, valueType: 'urn:li:dataType:svc.string', entityTypes: ['urn:li:entityType:svc.dataset'] });
  test.each<[string, (qn: string) => Record<string, unknown>, string, RegExp]>([
    ['qualifiedName is missing', (qn) => ({ ...base(qn), qualifiedName: undefined }), 'qualifiedName', /qualifiedName is required/],
    ['valueType is missing', (qn) => ({ ...base(qn), valueType: undefined }), 'valueType', /valueType is required/],
    ['entityTypes is empty', (qn) => ({ ...base(qn), entityTypes: [] }), 'entityTypes', /^entityTypes must have at least one entry$/],
    ['the qualifiedName differs from the urn id', (qn) => ({ ...base(qn), qualifiedName: 'other.name' }), 'qualifiedName', /must equal the urn id/],
    ['the version is not 14 digits', (qn) => ({ ...base(qn), version: '2024-01-01' }), 'version', /does not match \[0-9\]\{14\}/],
    ['an allowed value has the wrong type', (qn) => ({ ...base(qn), valueType: 'urn:li:dataType:svc.number', allowedValues: [{ value: { string: 'x' } }] }), 'allowedValues[0].value', /should be a number/],
    ['an allowed value is given twice', (qn) => ({ ...base(qn), allowedValues: [{ value: { string: 'x' } }, { value: { string: 'x' } }] }), 'allowedValues[1].value', /more than once|duplicate/i],
    ['a field is unknown', (qn) => ({ ...base(qn), colour: 'red' }), 'colour', /^colour is not a known field; expected one of qualifiedName, /],
    ['an entity type is not a urn', (qn) => ({ ...base(qn), entityTypes: ['dataset'] }), 'entityTypes[0]', /write urn:li:entityType:svc\.dataset$/],
    ['the value type is unknown', (qn) => ({ ...base(qn), valueType: 'urn:li:dataType:datahub.DOES_NOT_EXIST' }), 'valueType', /DOES_NOT_EXIST/],
    ['the value type urn is of another entity type', (qn) => ({ ...base(qn), valueType: 'urn:li:container:svc.string' }), 'valueType', /container/],
    ['the value type urn is malformed', (qn) => ({ ...base(qn), valueType: 'urn:li:dataType:(svc.string' }), 'valueType', /dataType/],
  ])('%s: a ValidationError naming the field, and nothing is stored', async (_label, body, field, message) => {
    const qn = name();
    const err = await rejection(writeDefinition(qn, body(qn)), ValidationError);
    expect(err.field).toBe(field);
    expect(err.message).toMatch(message);
    expect(await stored(qn)).toBeUndefined();
  });

  test('a qualified name with a space is an InvalidUrnError: it is the urn id', async () => {
    const err = await rejection(properties().create(WRITER, { id: 'has space', valueType: 'urn:li:dataType:svc.string', entityTypes: ['urn:li:entityType:svc.dataset'] }), InvalidUrnError);
    expect(err.message).toMatch(/cannot have spaces/);
  });

  test('two live properties whose names differ only by . and _ would share a search field: the second is a ValidationError on qualifiedName', async () => {
    const first = `${name('io.svc.collide')}.a_b`;
    await catalog.define(first);
    const second = first.replace('.a_b', '_a.b');
    const err = await rejection(catalog.define(second), ValidationError);
    expect(err.field).toBe('qualifiedName');
    expect(err.message).toMatch(/would share the search field/);
  });
});

describe('backwards compatibility and versions', () => {
  test.each<[string, DefinitionInput, RegExp]>([
    ['MULTIPLE to SINGLE cardinality', { cardinality: 'SINGLE' }, /cardinality changes from MULTIPLE to SINGLE/],
    ['a value type change', { valueType: 'string', allowedValues: [{ value: { string: '30' } }] }, /valueType changes/],
    ['removing an allowed value', { allowedValues: [{ value: { double: 30 } }] }, /allowed value 60 is removed/],
    ['removing an entity type', { entityTypes: ['dataFlow'] }, /entity type urn:li:entityType:svc\.dataset is removed/],
  ])('%s without a new version, where stored values break, is an IncompatibleChangeError naming the change and its holders; the definition stays', async (_label, change, message) => {
    const qn = name();
    await writeDefinition(qn, retention(qn));
    await datasetWith(qn, [30, 60]);
    const before = await stored(qn);
    const err = await rejection(writeDefinition(qn, retention(qn, change)), IncompatibleChangeError);
    expect(err.message).toMatch(message);
    expect(err.message).toMatch(/\(1 entity holds values it breaks\)/);
    expect(err.message).toMatch(/Set a new version/);
    expect(await stored(qn)).toEqual(before);
  });

  test.each<[string, DefinitionInput, ReadonlyArray<number>]>([
    ['MULTIPLE to SINGLE where no entity holds two values', { cardinality: 'SINGLE' }, [30]],
    ['a value type change where no entity holds a value', { valueType: 'string', allowedValues: [{ value: { string: '30' } }] }, []],
    ['removing an allowed value no entity holds', { allowedValues: [{ value: { double: 30 } }] }, [30]],
    ['removing an entity type no entity of that type uses', { entityTypes: ['dataset', 'dataFlow'], cardinality: 'MULTIPLE' }, [30]],
  ])('%s is accepted without a version, and every stored value stays (docs/contract.md, "Definitions evolve")', async (_label, change, values) => {
    const qn = name();
    await writeDefinition(qn, retention(qn, { entityTypes: ['dataset', 'dataFlow', 'dataJob'] }));
    const d = values.length > 0 ? await datasetWith(qn, values) : undefined;
    await writeDefinition(qn, retention(qn, change));
    expect(await stored(qn)).toMatchObject(retention(qn, change).valueType === 'string' ? { valueType: 'urn:li:dataType:svc.string' } : {});
    expect((await stored(qn))!.version).toBeUndefined();
    if (d) expect(await catalog.valuesOf(d)).toEqual([{ propertyUrn: propertyUrn(qn), values: values.map((v) => ({ double: v })) }]);
  });

  test('adding allowed values where there were none is breaking too, when a stored value is not among them', async () => {
    const qn = name();
    await catalog.define(qn, { valueType: 'number' });
    await datasetWith(qn, [2]);
    await rejection(writeDefinition(qn, definitionOf(qn, { valueType: 'number', allowedValues: [{ value: { double: 1 } }] })), IncompatibleChangeError);
    await writeDefinition(qn, definitionOf(qn, { valueType: 'number', allowedValues: [{ value: { double: 1 } }, { value: { double: 2 } }] }));
  });

  test('widening (SINGLE to MULTIPLE, new allowed values, new entity types, text fields) needs no version', async () => {
    const qn = name();
    await writeDefinition(qn, retention(qn, { cardinality: 'SINGLE' }));
    await writeDefinition(qn, retention(qn, { cardinality: 'MULTIPLE', entityTypes: ['dataset', 'dataFlow'], allowedValues: [{ value: { double: 30 } }, { value: { double: 60 } }, { value: { double: 90 } }], description: 'widened' }));
    expect(await stored(qn)).toMatchObject({ cardinality: 'MULTIPLE', description: 'widened', entityTypes: ['urn:li:entityType:svc.dataset', 'urn:li:entityType:svc.dataFlow'] });
  });

  test('a breaking change with a greater version drops stored values, so only an admin may make it: a writer gets a ForbiddenError naming what it would drop, and nothing changes', async () => {
    const qn = name();
    await writeDefinition(qn, retention(qn));
    const d = await datasetWith(qn, [30, 60]);
    const before = await stored(qn);
    const err = await rejection(writeDefinition(qn, retention(qn, { cardinality: 'SINGLE', version: '20240614080000' })), ForbiddenError);
    expect(err.message).toBe(`This definition of ${propertyUrn(qn)} starts a new version, which would drop its 2 stored values on 1 entity (dataset: 1); a change that drops stored values needs a token with admin scope`);
    expect(await stored(qn)).toEqual(before);
    expect(await catalog.valuesOf(d)).toEqual([{ propertyUrn: propertyUrn(qn), values: [{ double: 30 }, { double: 60 }] }]);
    const empty = name();
    await writeDefinition(empty, retention(empty));
    await writeDefinition(empty, retention(empty, { cardinality: 'SINGLE', version: '20240614080000' }));
    expect((await stored(empty))!.version).toBe('20240614080000');
  });

  test('a breaking change with a greater version hides older values at once; a job then deletes them; new values are normal', async () => {
    const qn = name();
    await writeDefinition(qn, retention(qn));
    const d = await datasetWith(qn, [30, 60]);
    await writeDefinition(qn, retention(qn, { cardinality: 'SINGLE', version: '20240614080000' }), {}, ADMIN);
    expect((await stored(qn))!.version).toBe('20240614080000');
    expect(await catalog.valuesOf(d)).toEqual([]);

    const cleanup = (await jobsSettled(runtime)).find((j) => j.kind === 'cleanup-property-values' && j.propertyUrn === propertyUrn(qn));
    expect(cleanup).toMatchObject({ status: 'done', total: 1, done: 1, remaining: 0 });
    expect((await storedDatasets(runtime.databaseUrl, d)).get(d)!.rows.has(propertyUrn(qn))).toBe(false);

    await catalog.setValues(d, { [qn]: [60] });
    expect(await catalog.valuesOf(d)).toEqual([{ propertyUrn: propertyUrn(qn), values: [{ double: 60 }] }]);
  });

  test('a version may not go backwards (ValidationError on version), and a write without a version keeps the stored one', async () => {
    const qn = name();
    await writeDefinition(qn, retention(qn, { version: '20240614080000' }));
    const err = await rejection(writeDefinition(qn, retention(qn, { version: '20230101000000' })), ValidationError);
    expect(err.field).toBe('version');
    expect(err.message).toMatch(/must be greater than the current version 20240614080000/);
    await writeDefinition(qn, retention(qn, { description: 'x' }));
    expect((await stored(qn))!.version).toBe('20240614080000');
  });

  test('replace writes the whole definition (what is absent goes), checks compatibility and never creates', async () => {
    const qn = name();
    const urn = await catalog.define(qn, { valueType: 'number', description: 'old', displayName: 'Old' });
    await properties().replace(WRITER, { urn, valueType: 'urn:li:dataType:svc.number', entityTypes: ['urn:li:entityType:svc.dataset'], description: 'new' });
    expect(await stored(qn)).toEqual({ qualifiedName: qn, valueType: 'urn:li:dataType:svc.number', entityTypes: ['urn:li:entityType:svc.dataset'], cardinality: 'SINGLE', immutable: false, description: 'new' });
    await datasetWith(qn, [7]);
    await rejection(properties().replace(WRITER, { urn, valueType: 'urn:li:dataType:svc.string', entityTypes: ['urn:li:entityType:svc.dataset'] }), IncompatibleChangeError);
    await properties().replace(ADMIN, { urn, valueType: 'urn:li:dataType:svc.string', entityTypes: ['urn:li:entityType:svc.dataset'], version: '20250101000000' });
    expect((await stored(qn))!.valueType).toBe('urn:li:dataType:svc.string');
    const missing = propertyUrn(name());
    await rejection(properties().replace(WRITER, { urn: missing, valueType: 'urn:li:dataType:svc.string', entityTypes: ['urn:li:entityType:svc.dataset'] }), NotFoundError);
    expect(await properties().get(ADMIN, missing)).toBeUndefined();
  });

  test('update appends: text fields, allowed values, entity types, SINGLE to MULTIPLE; a missing property is a NotFoundError', async () => {
    const qn = name();
    const urn = await catalog.define(qn, { valueType: 'number', allowedValues: [{ value: { double: 30 } }] });
    await properties().update(WRITER, { urn, displayName: 'Retention', description: 'days', newAllowedValues: [{ numberValue: 90, description: '90 days' }], newEntityTypes: ['urn:li:entityType:dataJob'], setCardinalityAsMultiple: true });
    expect(await stored(qn)).toMatchObject({
      displayName: 'Retention',
      description: 'days',
      cardinality: 'MULTIPLE',
      allowedValues: [{ value: { double: 30 } }, { value: { double: 90 }, description: '90 days' }],
      entityTypes: ['urn:li:entityType:svc.dataset', 'urn:li:entityType:svc.dataJob'],
    });
    await rejection(properties().update(WRITER, { urn: propertyUrn(name()), description: 'x' }), NotFoundError);
  });

  test('a urn of another entity type is a ValidationError on urn for replace, update, soft delete and delete', async () => {
    const urn = datasetUrn('not.a.property');
    for (const call of [
      () => properties().update(WRITER, { urn, description: 'x' }),
      () => properties().replace(WRITER, { urn, valueType: 'urn:li:dataType:svc.string', entityTypes: ['urn:li:entityType:svc.dataset'] }),
      () => properties().softDelete(WRITER, urn),
      () => properties().delete(ADMIN, urn),
    ]) {
      expect((await rejection(call(), ValidationError)).field).toBe('urn');
    }
  });

  test('history lists the definition after each write, newest first, with who wrote it', async () => {
    const qn = name();
    const urn = await catalog.define(qn, { description: 'one' });
    await properties().update(WRITER, { urn, description: 'two' });
    const history = await properties().history(ADMIN, urn);
    expect(history.map((h) => h.definition.description)).toEqual(['two', 'one']);
    expect(history.map((h) => h.written.actor)).toEqual([WRITER.actor, ADMIN.actor]);
    expect(history[0]!.revision).toBeGreaterThan(history[1]!.revision);
  });
});

describe('soft delete and restore', () => {
  test('soft delete hides values and refuses definition and value writes; the definition stays readable; restore brings the values back', async () => {
    const qn = name();
    const urn = await catalog.define(qn, { valueType: 'number' });
    const d = await datasetWith(qn, [30]);
    await properties().softDelete(WRITER, urn);

    expect(await properties().get(ADMIN, urn)).toMatchObject({ removed: true, definition: { qualifiedName: qn } });
    expect(await catalog.valuesOf(d)).toEqual([]);
    const definitionWrite = await rejection(writeDefinition(qn, definitionOf(qn, { valueType: 'number', description: 'x' })), SoftDeletedError);
    expect(definitionWrite).toMatchObject({ message: 'Cannot mutate a soft deleted Structured Property Definition', field: 'propertyDefinition' });
    await rejection(properties().update(WRITER, { urn, description: 'x' }), SoftDeletedError);
    const valueWrite = await rejection(catalog.setValues(d, { [qn]: [60] }), SoftDeletedError);
    expect(valueWrite).toMatchObject({ message: `Cannot apply a soft deleted Structured Property value: ${urn}`, field: 'propertyUrn' });

    await properties().restore(WRITER, urn);
    expect(await catalog.valuesOf(d)).toEqual([{ propertyUrn: urn, values: [{ double: 30 }] }]);
  });

  test('deleting the status aspect restores too', async () => {
    const qn = name();
    const urn = await catalog.define(qn);
    const d = await datasetWith(qn, ['x']);
    await properties().softDelete(WRITER, urn);
    await writes().deleteAspect(WRITER, urn, 'status');
    expect((await properties().get(ADMIN, urn))!.removed).toBe(false);
    expect(await catalog.valuesOf(d)).toHaveLength(1);
  });

  test('replacing an entity\'s values while a property is soft deleted keeps its hidden values for the restore', async () => {
    const [a, b] = [name(), name()];
    await catalog.define(a, { valueType: 'number' });
    await catalog.define(b, { valueType: 'number' });
    const d = await datasetWith(a, [30]);
    await catalog.softDelete(a);
    await catalog.setValues(d, { [b]: [60] });
    await catalog.softDelete(a, false);
    expect(await catalog.valuesOf(d)).toEqual(expect.arrayContaining([{ propertyUrn: propertyUrn(a), values: [{ double: 30 }] }, { propertyUrn: propertyUrn(b), values: [{ double: 60 }] }]));
    expect(await catalog.valuesOf(d)).toHaveLength(2);
  });

  test('soft deleting a property that does not exist is a NotFoundError', async () => {
    await rejection(properties().softDelete(WRITER, propertyUrn(name())), NotFoundError);
  });
});

describe('hard delete', () => {
  test('removes the definition at once; a job removes its values from every entity; the name can be used again at once without the old values', async () => {
    const qn = name();
    const urn = await catalog.define(qn, { valueType: 'number' });
    const held = [await datasetWith(qn, [60]), await datasetWith(qn, [30])];
    expect((await properties().delete(ADMIN, urn)).result).toBe(true);
    expect(await properties().get(ADMIN, urn)).toBeUndefined();
    await rejection(entities().getAspect(ADMIN, urn, 'propertyDefinition'), NotFoundError);

    await catalog.define(qn, { valueType: 'string' });
    for (const d of held) expect(await catalog.valuesOf(d)).toEqual([]);

    const cleanup = (await jobsSettled(runtime)).filter((j) => j.propertyUrn === urn);
    expect(cleanup.length).toBeGreaterThan(0);
    expectEvery(cleanup, (j) => j.status === 'done');
    const rows = await storedDatasets(runtime.databaseUrl, 'urn:li:dataset:(urn:li:dataPlatform:hive,db.props.%');
    for (const d of held) expect(rows.get(d)!.rows.size).toBe(0);
  });

  test('is idempotent: a property that does not exist is deleted without error', async () => {
    expect((await properties().delete(ADMIN, propertyUrn(name()))).result).toBe(true);
  });

  test('a soft-deleted property can be hard deleted', async () => {
    const urn = await catalog.define(name());
    await properties().softDelete(WRITER, urn);
    await properties().delete(ADMIN, urn);
    expect(await properties().get(ADMIN, urn)).toBeUndefined();
  });
});
