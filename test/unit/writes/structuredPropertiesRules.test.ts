/**
 * Writing the structuredProperties aspect (docs/contract.md §3, §5): validated against the definitions
 * of the properties it names, value rows under each property's current generation,
 * soft-deleted values kept but hidden, stale values dropped.
 */
import { SoftDeletedError, ValidationError } from '../../../src/domain/errors.js';
import { parseUrn } from '../../../src/domain/urn.js';
import { decideStructuredProperties, propertiesNamedBy, structuredPropertiesRules } from '../../../src/domain/writes/structuredPropertiesRules.js';
import { aspectState, DATASET, held, propertyUrnOf, record, registryOf } from '../../support/writeStates.js';
import { thrown } from '../thrown.js';

const TIER = record('tier', { generation: 7n, definition: { allowedValues: [{ value: { string: 'gold' } }, { value: { string: 'silver' } }] } });
const SCORE = record('score', { definition: { valueType: 'urn:li:dataType:svc.number', cardinality: 'MULTIPLE' } });
const entry = (name: string, values: unknown[]) => ({ propertyUrn: propertyUrnOf(name), values });

describe('validation against the definitions named', () => {
  test('values are stored in canonical form and their rows carry the property current generation', () => {
    const d = decideStructuredProperties({ properties: [entry('tier', [{ string: 'gold' }]), entry('score', [{ string: '42' }, { double: 1.5 }])] }, aspectState({ registry: registryOf([TIER, SCORE]) }));
    expect(d.stored).toEqual({ properties: [entry('tier', [{ string: 'gold' }]), entry('score', [{ double: 42 }, { double: 1.5 }])] });
    expect(d.valueRows).toEqual([
      { propertyUrn: TIER.urn, generation: 7n, values: [{ string: 'gold' }] },
      { propertyUrn: SCORE.urn, generation: 1n, values: [{ double: 42 }, { double: 1.5 }] },
    ]);
    expect(d.registry).toBeNull();
    expect(d.jobs).toEqual([]);
  });

  test('a property that does not exist is refused', () => {
    const err = thrown(() => decideStructuredProperties({ properties: [entry('nope', [{ string: 'x' }])] }, aspectState()));
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.message).toBe(`Structured property ${propertyUrnOf('nope')} does not exist`);
  });

  test('with DROP_UNDEFINED_PROPERTY_VALUES, a property that does not exist is dropped with a warning and the rest stored', () => {
    const d = decideStructuredProperties({ properties: [entry('nope', [{ string: 'x' }]), entry('tier', [{ string: 'gold' }])] }, { ...aspectState({ registry: registryOf([TIER]) }), undefinedPropertyValues: 'drop' });
    expect(d.stored).toEqual({ properties: [entry('tier', [{ string: 'gold' }])] });
    expect(d.report).toEqual({ droppedValuesOf: [propertyUrnOf('nope')] });
  });

  test('a value outside allowedValues is refused with the property and the value', () => {
    const err = thrown(() => decideStructuredProperties({ properties: [entry('tier', [{ string: 'bronze' }])] }, aspectState({ registry: registryOf([TIER]) })));
    expect(err.message).toBe(`Property: ${TIER.urn}, value: {string=bronze} should be one of [{string=gold}, {string=silver}]`);
  });

  test('a property whose entityTypes do not include the target type is refused', () => {
    const field = parseUrn(`urn:li:schemaField:(${DATASET.value},id)`);
    const err = thrown(() => decideStructuredProperties({ properties: [entry('tier', [{ string: 'gold' }])] }, aspectState({ urn: field, registry: registryOf([TIER]) })));
    expect(err.message).toMatch(/cannot be applied to entity type schemaField/);
  });

  test('a shape error is refused before any definition is consulted', () => {
    expect(thrown(() => decideStructuredProperties({ properties: {} }, aspectState())).message).toBe('properties must be a list, not an object');
  });
});

describe('soft delete (docs/contract.md §5)', () => {
  const SOFT = record('soft', { removed: true });

  test('writing a value of a soft-deleted property is refused', () => {
    const err = thrown(() => decideStructuredProperties({ properties: [entry('soft', [{ string: 'x' }])] }, aspectState({ registry: registryOf([SOFT]) })));
    expect(err).toBeInstanceOf(SoftDeletedError);
    expect(err.message).toBe(`Cannot apply a soft deleted Structured Property value: ${SOFT.urn}`);
  });

  test('values of a soft-deleted property are kept across a replacing write, hidden from what the write returns', () => {
    const kept = entry('soft', [{ string: 'hidden' }]);
    const state = aspectState({ stored: { properties: [kept] }, values: [held('soft', [{ string: 'hidden' }], SOFT)], registry: registryOf([SOFT, TIER]) });
    const d = decideStructuredProperties({ properties: [entry('tier', [{ string: 'gold' }])] }, state);
    expect(d.stored).toEqual({ properties: [entry('tier', [{ string: 'gold' }]), kept] });
    expect(d.visible).toEqual({ properties: [entry('tier', [{ string: 'gold' }])] });
    expect(d.valueRows).toContainEqual({ propertyUrn: SOFT.urn, generation: 1n, values: [{ string: 'hidden' }] });
  });

  test('a write relies on every property it decided on, soft-deleted ones kept included', () => {
    const state = aspectState({ stored: { properties: [entry('soft', [{ string: 'h' }])] }, values: [held('soft', [{ string: 'h' }], SOFT), held('score', [{ double: 1 }], SCORE)], registry: registryOf([SOFT, TIER, SCORE]) });
    const d = decideStructuredProperties({ properties: [entry('tier', [{ string: 'gold' }])] }, state);
    expect([...d.reliesOn].sort()).toEqual([SCORE.urn, SOFT.urn, TIER.urn].sort());
  });
});

describe('hidden values (docs/contract.md §2, §5)', () => {
  test('values of a hard-deleted property are dropped from the stored aspect and the rows', () => {
    const state = aspectState({ stored: { properties: [entry('gone', [{ string: 'x' }])] }, values: [held('gone', [{ string: 'x' }], undefined)], registry: registryOf([TIER]) });
    const d = decideStructuredProperties({ properties: [entry('tier', [{ string: 'gold' }])] }, state);
    expect(d.stored).toEqual({ properties: [entry('tier', [{ string: 'gold' }])] });
    expect(d.valueRows!.map((r) => r.propertyUrn)).toEqual([TIER.urn]);
  });

  test('values written under an older generation are neither current values nor kept', () => {
    const state = aspectState({ stored: { properties: [entry('tier', [{ string: 'old' }])] }, values: [held('tier', [{ string: 'old' }], TIER, 3n)], registry: registryOf([TIER]) });
    const d = decideStructuredProperties({ properties: [] }, state);
    expect(d.stored).toEqual({ properties: [] });
    expect(d.valueRows).toEqual([]);
  });

  test('the same values re-asserted after a new version are stored again, under the new generation', () => {
    const state = aspectState({ stored: { properties: [entry('tier', [{ string: 'gold' }])] }, values: [held('tier', [{ string: 'gold' }], TIER, 3n)], registry: registryOf([TIER]) });
    const d = decideStructuredProperties({ properties: [entry('tier', [{ string: 'gold' }])] }, state);
    expect(d.store).toBe('always');
    expect(d.valueRows).toEqual([{ propertyUrn: TIER.urn, generation: 7n, values: [{ string: 'gold' }] }]);
  });

  test('the same values under the current generation are an identical rewrite', () => {
    const state = aspectState({ stored: { properties: [entry('tier', [{ string: 'gold' }])] }, values: [held('tier', [{ string: 'gold' }], TIER)], registry: registryOf([TIER]) });
    expect(decideStructuredProperties({ properties: [entry('tier', [{ string: 'gold' }])] }, state).store).toBe('if-changed');
  });
});

describe('immutable properties (docs/contract.md §3)', () => {
  const FIXED = record('fixed', { definition: { immutable: true } });
  const state = aspectState({ stored: { properties: [entry('fixed', [{ string: 'a' }])] }, values: [held('fixed', [{ string: 'a' }], FIXED)], registry: registryOf([FIXED]) });

  test('an immutable value cannot change', () => {
    expect(thrown(() => decideStructuredProperties({ properties: [entry('fixed', [{ string: 'b' }])] }, state)).message).toBe(`Property: ${FIXED.urn} is immutable; its value cannot change once set`);
  });

  test('an immutable value cannot be removed', () => {
    expect(thrown(() => decideStructuredProperties({ properties: [] }, state)).message).toBe(`Property: ${FIXED.urn} is immutable; its value cannot be removed`);
  });

  test('an immutable value may be written again unchanged', () => {
    expect(decideStructuredProperties({ properties: [entry('fixed', [{ string: 'a' }])] }, state).stored).toEqual({ properties: [entry('fixed', [{ string: 'a' }])] });
  });
});

describe('what a write needs and what readers see', () => {
  test('a write needs the entity value rows and the records of the properties its value names', () => {
    expect(structuredPropertiesRules.needs(DATASET, { properties: [entry('a', []), entry('b', [])] })).toEqual({ aspects: [], values: true, properties: [propertyUrnOf('a'), propertyUrnOf('b')], searchFields: [] });
    expect(structuredPropertiesRules.needs(DATASET, undefined).properties).toEqual([]);
  });

  test('malformed entries name no property (the decision refuses them)', () => {
    expect(propertiesNamedBy({ properties: [null, { propertyUrn: 3 }, 'x'] })).toEqual([]);
  });

  test('readers see only values of live, current properties', () => {
    const SOFT = record('soft', { removed: true });
    const stored = { properties: [entry('tier', [{ string: 'gold' }]), entry('soft', [{ string: 's' }]), entry('gone', [{ string: 'g' }]), entry('old', [{ string: 'o' }])] };
    const values = [held('tier', [{ string: 'gold' }], TIER), held('soft', [{ string: 's' }], SOFT), held('gone', [{ string: 'g' }], undefined), held('old', [{ string: 'o' }], record('old', { generation: 9n }), 2n)];
    expect(structuredPropertiesRules.view(stored, { urn: DATASET, values, urnNamespace: 'svc' })).toEqual({ properties: [entry('tier', [{ string: 'gold' }])] });
  });
});
