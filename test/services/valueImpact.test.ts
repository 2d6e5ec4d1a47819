/**
 * Impact before a change (issue #27 item 4, docs/contract.md §13), at the services on a
 * real PostgreSQL: a dry run of a definition write or of a delete says how many values
 * it would drop, on how many entities, by entity type, and changes nothing; a breaking
 * change refused for want of a new version states the same impact.
 */
import { IncompatibleChangeError } from '../../src/domain/errors.js';
import { ENTITY } from '../../src/domain/registry/entityTypes.js';
import type { Caller } from '../../src/services/caller.js';
import { startTestRuntime, type TestRuntime } from '../support/runtime.js';
import { writesOf } from '../support/writes.js';
import { entityPlan } from '../../src/domain/writes/plan.js';
import { parseUrn } from '../../src/domain/urn.js';

const P = 'urn:li:structuredProperty:io.impact.tier';
const OTHER = 'urn:li:structuredProperty:io.impact.other';
const dataset = (name: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,impact.${name},PROD)`;
const field = (d: string, path: string) => `urn:li:schemaField:(${d},${path})`;
const DATASETS = ['a', 'b', 'c'].map(dataset);
const admin: Caller = { actor: 'urn:li:corpuser:steward', scope: 'admin', via: 'rest-v3' };

const definition = (extra: Record<string, unknown> = {}) => ({
  qualifiedName: 'io.impact.tier',
  valueType: 'urn:li:dataType:svc.string',
  entityTypes: ['urn:li:entityType:svc.dataset', 'urn:li:entityType:svc.schemaField'],
  cardinality: 'MULTIPLE',
  allowedValues: [{ value: { string: 'gold' } }, { value: { string: 'silver' } }],
  ...extra,
});

let rt: TestRuntime;
/** What writing the definition would drop, decided and written nothing (REST dryRun=true). */
const previewDefinition = async (value: unknown) =>
  (await rt.services.writes.preview(admin, entityPlan(parseUrn(P), [{ op: 'set', aspect: 'propertyDefinition', value }]))).impact;

beforeAll(async () => {
  rt = await startTestRuntime();
  await writesOf(rt.services).setAspect(admin, P, 'propertyDefinition', { value: definition() }, { createOnly: false });
  await rt.services.properties.create(admin, { id: 'io.impact.other', valueType: 'urn:li:dataType:svc.string', entityTypes: ['urn:li:entityType:svc.dataset'] });
  await writesOf(rt.services).batchUpsert(admin, ENTITY.dataset, DATASETS.map((urn) => ({ urn, aspects: new Map([['status', { value: { removed: false } }]]) })));
  await rt.services.values.upsert(admin, DATASETS[0]!, [{ structuredPropertyUrn: P, values: [{ stringValue: 'gold' }, { stringValue: 'silver' }] }, { structuredPropertyUrn: OTHER, values: [{ stringValue: 'x' }] }]);
  await rt.services.values.upsert(admin, DATASETS[1]!, [{ structuredPropertyUrn: P, values: [{ stringValue: 'gold' }] }]);
  await rt.services.values.upsert(admin, field(DATASETS[0]!, 'id'), [{ structuredPropertyUrn: P, values: [{ stringValue: 'silver' }] }]);
}, 120_000);

afterAll(async () => {
  await rt?.stop();
});

const tierImpact = { entities: 3, values: 4, byEntityType: { dataset: 2, schemaField: 1 } };

describe('a dry run of a delete', () => {
  test("of a property: every value it holds, on every entity, by type; nothing is deleted", async () => {
    expect(await rt.services.entities.previewDelete(admin, P)).toEqual(tierImpact);
    expect(await rt.services.properties.get(admin, P)).toBeDefined();
    expect((await rt.services.values.get(admin, DATASETS[1]!))?.properties).toHaveLength(1);
  });

  test("of a dataset: the values it and its fields hold", async () => {
    expect(await rt.services.entities.previewDelete(admin, DATASETS[0]!)).toEqual({ entities: 2, values: 4, byEntityType: { dataset: 1, schemaField: 1 } });
    expect(await rt.services.entities.previewDelete(admin, DATASETS[2]!)).toEqual({ entities: 0, values: 0, byEntityType: {} });
  });
});

describe('a dry run of a definition write', () => {
  test('a compatible change drops nothing', async () => {
    expect(await previewDefinition(definition({ description: 'How precious the data is' }))).toEqual({ entities: 0, values: 0, byEntityType: {} });
  });

  test('a breaking change with a new version drops every value it holds now, and nothing changes yet', async () => {
    const breaking = definition({ allowedValues: [{ value: { string: 'gold' } }], version: '20270101000000' });
    expect(await previewDefinition(breaking)).toEqual(tierImpact);
    const state = await rt.services.properties.get(admin, P);
    expect(state?.definition.version).toBeUndefined();
    expect(state?.definition.allowedValues).toHaveLength(2);
    expect(await rt.services.entities.previewDelete(admin, P)).toEqual(tierImpact);
  });

  test('a breaking change without a new version is refused, stating what a new version would drop', async () => {
    const breaking = definition({ allowedValues: [{ value: { string: 'gold' } }] });
    const refusal = previewDefinition(breaking);
    await expect(refusal).rejects.toThrow(IncompatibleChangeError);
    await expect(writesOf(rt.services).setAspect(admin, P, 'propertyDefinition', { value: breaking }, { createOnly: false })).rejects.toThrow(
      /allowed value "silver" is removed \(2 entities hold values it breaks\)\. Set a new version .* A new version hides at once, and then removes, the 4 values on 3 entities \(dataset: 2, schemaField: 1\) the property holds now\./,
    );
  });

  test('every interface that writes a definition states it; a property without values takes the change without a version', async () => {
    await expect(rt.services.properties.replace(admin, { urn: OTHER, valueType: 'urn:li:dataType:svc.number', entityTypes: ['urn:li:entityType:svc.dataset'] })).rejects.toThrow(
      /A new version hides at once, and then removes, the 1 value on 1 entity \(dataset: 1\) the property holds now\./,
    );
    await rt.services.properties.create(admin, { id: 'io.impact.empty', valueType: 'urn:li:dataType:svc.string', entityTypes: ['urn:li:entityType:svc.dataset'] });
    await rt.services.properties.replace(admin, { urn: 'urn:li:structuredProperty:io.impact.empty', valueType: 'urn:li:dataType:svc.number', entityTypes: ['urn:li:entityType:svc.dataset'] });
    expect((await rt.services.properties.get(admin, 'urn:li:structuredProperty:io.impact.empty'))?.definition.valueType).toBe('urn:li:dataType:svc.number');
  });
});
