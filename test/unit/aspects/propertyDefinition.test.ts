/**
 * Writing a propertyDefinition (docs/contract.md §2, §5, §6): compatibility, versions and generations,
 * the cleanup job, soft delete and the search-field collision, all as data.
 */
import { IncompatibleChangeError, SoftDeletedError, ValidationError } from '../../../src/domain/errors.js';
import { CLEANUP_PROPERTY_VALUES } from '../../../src/domain/jobKinds.js';
import { parseUrn } from '../../../src/domain/urn.js';
import { decidePropertyDefinition, propertyDefinitionRules } from '../../../src/domain/aspects/modules/propertyDefinition.js';
import { propertiesWhoseValuesDrop, valueDropRefusal } from '../../../src/domain/writes/valueDrop.js';
import type { EntityWriteDecision } from '../../../src/domain/writes/writeDecision.js';
import { aspectState, definitionOf, record, registryOf } from '../../support/writeStates.js';
import { thrown } from '../thrown.js';

const NAME = 'io.acryl.tier';
const URN = parseUrn(`urn:li:structuredProperty:${NAME}`);
const V1 = '20240101000000';
const V2 = '20240614080000';
const existing = (extra: Parameters<typeof definitionOf>[1] = {}, options: { removed?: boolean } = {}) => {
  const definition = definitionOf(NAME, extra);
  return aspectState({ urn: URN, stored: definition, registry: registryOf([record(NAME, { definition: extra, generation: 5n, ...options })]) });
};

test('a new property draws a new generation and queues no job', () => {
  const d = decidePropertyDefinition(definitionOf(NAME), aspectState({ urn: URN }));
  expect(d.stored).toEqual(definitionOf(NAME));
  expect(d.registry).toEqual({ urn: URN.value, define: { qualifiedName: NAME, searchField: 'io_acryl_tier', valueType: 'string', version: null, generation: 'new', lineage: 'new', migration: null }, removed: null });
  expect(d.jobs).toEqual([]);
});

test('the namespace passed in is the one the definition is stored and shown in; a stored one in the other reads as if written now', () => {
  const written = decidePropertyDefinition(definitionOf(NAME), aspectState({ urn: URN, urnNamespace: 'datahub' }));
  expect(written.stored).toMatchObject({ valueType: 'urn:li:dataType:datahub.string', entityTypes: ['urn:li:entityType:datahub.dataset'] });
  const stored = definitionOf(NAME);
  expect(propertyDefinitionRules.view(stored, { urn: URN, values: [], urnNamespace: 'datahub' })).toMatchObject({ valueType: 'urn:li:dataType:datahub.string' });
  expect(propertyDefinitionRules.view(stored, { urn: URN, values: [], urnNamespace: 'svc' })).toMatchObject({ valueType: 'urn:li:dataType:svc.string' });
});

test('a compatible change keeps the generation and queues no job', () => {
  const d = decidePropertyDefinition(definitionOf(NAME, { description: 'now described' }), existing());
  expect(d.registry!.define!.generation).toBe(5n);
  expect(d.jobs).toEqual([]);
});

test('a write without version keeps the stored version', () => {
  const d = decidePropertyDefinition(definitionOf(NAME, { description: 'x' }), existing({ version: V1 }));
  expect(d.stored).toEqual(definitionOf(NAME, { description: 'x', version: V1 }));
  expect(d.registry!.define!.version).toBe(V1);
});

test('a breaking change without a new version is refused, naming the change', () => {
  const err = thrown(() => decidePropertyDefinition(definitionOf(NAME, { valueType: 'urn:li:dataType:svc.number' }), existing()));
  expect(err).toBeInstanceOf(IncompatibleChangeError);
  expect(err.message).toMatch(/valueType changes from urn:li:dataType:svc.string to urn:li:dataType:svc.number/);
});

test('a breaking change with a new version draws a new generation and queues the cleanup of older values in the same write', () => {
  const d = decidePropertyDefinition(definitionOf(NAME, { valueType: 'urn:li:dataType:svc.number', version: V2 }), existing({ version: V1 }));
  expect(d.registry!.define).toMatchObject({ generation: 'new', version: V2, valueType: 'number' });
  expect(d.jobs).toEqual([{ kind: CLEANUP_PROPERTY_VALUES, payload: { propertyUrn: URN.value } }]);
});

test('a version can never go back', () => {
  expect(thrown(() => decidePropertyDefinition(definitionOf(NAME, { version: V1 }), existing({ version: V2 }))).message).toBe(`version ${V1} must be greater than the current version ${V2}`);
});

test('a soft-deleted property definition cannot be mutated', () => {
  const err = thrown(() => decidePropertyDefinition(definitionOf(NAME, { description: 'x' }), existing({}, { removed: true })));
  expect(err).toBeInstanceOf(SoftDeletedError);
  expect(err.message).toBe('Cannot mutate a soft deleted Structured Property Definition');
});

test('two live properties whose names differ only by "." and "_" collide: the second is refused', () => {
  const state = aspectState({ urn: URN, registry: registryOf([], { io_acryl_tier: 'urn:li:structuredProperty:io_acryl.tier' }) });
  const err = thrown(() => decidePropertyDefinition(definitionOf(NAME), state));
  expect(err).toBeInstanceOf(ValidationError);
  expect(err.message).toMatch(/would share the search field structuredProperties.io_acryl_tier with urn:li:structuredProperty:io_acryl.tier/);
});

test('a property owning its own search field does not collide with itself', () => {
  const state = { ...existing(), searchFieldOwners: new Map([['io_acryl_tier', URN.value]]) };
  expect(decidePropertyDefinition(definitionOf(NAME, { description: 'x' }), state).registry!.define!.searchField).toBe('io_acryl_tier');
});

test('the qualified name must equal the urn id', () => {
  expect(thrown(() => decidePropertyDefinition(definitionOf('other'), aspectState({ urn: URN }))).message).toBe(`qualifiedName "other" must equal the urn id "${NAME}"`);
});

test('a definition write needs its own registry record and the owner of its search field, known from the urn', () => {
  expect(propertyDefinitionRules.needs(URN, undefined)).toEqual({ aspects: [], values: false, properties: [URN.value], searchFields: ['io_acryl_tier'] });
});

describe('writes that drop stored values (issue #29, item 5)', () => {
  const decisionOf = (registry: Array<{ urn: string; define: { generation: bigint | 'new' } | null }>) =>
    ({ registry: registry.map((r) => ({ urn: r.urn, removed: null, define: r.define && { qualifiedName: NAME, searchField: 'io_acryl_tier', valueType: 'string', version: V2, generation: r.define.generation, migration: null } })) }) as unknown as EntityWriteDecision;

  test('a new generation of a registered property drops its values; a new property, or the same generation, drops nothing', () => {
    expect(propertiesWhoseValuesDrop(decisionOf([{ urn: URN.value, define: { generation: 'new' } }]), () => true)).toEqual([URN.value]);
    expect(propertiesWhoseValuesDrop(decisionOf([{ urn: URN.value, define: { generation: 'new' } }]), () => false)).toEqual([]);
    expect(propertiesWhoseValuesDrop(decisionOf([{ urn: URN.value, define: { generation: 5n } }]), () => true)).toEqual([]);
    expect(propertiesWhoseValuesDrop(decisionOf([{ urn: URN.value, define: null }]), () => true)).toEqual([]);
  });

  test('a breaking change with a new version is such a write, as the decision says it', () => {
    const d = decidePropertyDefinition(definitionOf(NAME, { valueType: 'urn:li:dataType:svc.number', version: V2 }), existing({ version: V1 }));
    expect(propertiesWhoseValuesDrop({ registry: [d.registry!] } as unknown as EntityWriteDecision, () => true)).toEqual([URN.value]);
  });

  test('the refusal names the count, the entities by type and the scope needed', () => {
    expect(valueDropRefusal(URN.value, { entities: 235, values: 240, byEntityType: { dataset: 200, schemaField: 35 } }, 'a token with admin scope')).toBe(
      `This definition of ${URN.value} starts a new version, which would drop its 240 stored values on 235 entities (dataset: 200, schemaField: 35); a change that drops stored values needs a token with admin scope`,
    );
    expect(valueDropRefusal(URN.value, { entities: 1, values: 1, byEntityType: { dataset: 1 } }, 'a token with admin scope')).toMatch(/drop its 1 stored value on 1 entity \(dataset: 1\)/);
  });
});
