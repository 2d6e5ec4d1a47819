/** Hard deletes as data (docs/contract.md §5) and the cleanup job's decision (docs/contract.md §2, §5). */
import { CLEANUP_PROPERTY_VALUES } from '../../../src/domain/jobKinds.js';
import { decideAspectDelete, decideEntityDelete, NOTHING_TO_DELETE } from '../../../src/domain/writes/entityDelete.js';
import { decideValueCleanup, withoutPropertyInVersion } from '../../../src/domain/writes/valueCleanup.js';
import { aspect, DATASET, entity, held, propertyUrnOf, record } from '../../support/writeStates.js';

const PROPERTY = propertyUrnOf('io.acryl.tier');
const FIELD = `urn:li:schemaField:(${DATASET.value},id)`;
const cleanupJob = { kind: CLEANUP_PROPERTY_VALUES, payload: { propertyUrn: PROPERTY } };

describe('hard delete of an entity', () => {
  test('a dataset goes with its schema fields, each logged', () => {
    const d = decideEntityDelete([
      { urn: FIELD, entityType: 'schemaField', aspects: ['structuredProperties'] },
      { urn: DATASET.value, entityType: 'dataset', aspects: ['status'] },
    ]);
    expect(d.entities).toEqual([{ urn: FIELD, entityType: 'schemaField' }, { urn: DATASET.value, entityType: 'dataset' }]);
    expect(d.registry).toEqual([]);
    expect(d.jobs).toEqual([]);
  });

  test('a property definition takes its registry row at once and queues the removal of its values', () => {
    const d = decideEntityDelete([{ urn: PROPERTY, entityType: 'structuredProperty', aspects: ['propertyDefinition', 'status'] }]);
    expect(d.registry).toEqual([{ urn: PROPERTY, change: 'delete' }]);
    expect(d.jobs).toEqual([cleanupJob]);
  });

  test('nothing found, nothing deleted', () => {
    expect(decideEntityDelete([])).toEqual(NOTHING_TO_DELETE);
  });
});

describe('hard delete of one aspect', () => {
  test('an aspect the entity does not have deletes nothing', () => {
    expect(decideAspectDelete({ urn: DATASET.value, entityType: 'dataset', aspects: [] }, 'status')).toEqual(NOTHING_TO_DELETE);
  });

  test('deleting structuredProperties removes the value rows too', () => {
    const d = decideAspectDelete({ urn: DATASET.value, entityType: 'dataset', aspects: ['structuredProperties'] }, 'structuredProperties');
    expect(d.aspects).toEqual([{ urn: DATASET.value, entityType: 'dataset', aspect: 'structuredProperties' }]);
    expect(d.valueRowsOf).toEqual([DATASET.value]);
  });

  test('deleting a property status restores the property', () => {
    expect(decideAspectDelete({ urn: PROPERTY, entityType: 'structuredProperty', aspects: ['status'] }, 'status').registry).toEqual([{ urn: PROPERTY, change: 'restore' }]);
  });

  test('deleting a property definition removes it from the registry and queues the removal of its values', () => {
    const d = decideAspectDelete({ urn: PROPERTY, entityType: 'structuredProperty', aspects: ['propertyDefinition'] }, 'propertyDefinition');
    expect(d.registry).toEqual([{ urn: PROPERTY, change: 'delete' }]);
    expect(d.jobs).toEqual([cleanupJob]);
  });
});

describe('the cleanup job', () => {
  const OTHER = record('other');
  const context = { actor: 'system', now: 5 };
  const target = { urn: DATASET.value, entityType: 'dataset' };
  const stored = { properties: [{ propertyUrn: PROPERTY, values: [{ string: 'old' }] }, { propertyUrn: OTHER.urn, values: [{ string: 'o' }] }] };

  test('a value written under an older generation leaves the rows and the stored aspect; others stay', () => {
    const state = entity({ aspects: { structuredProperties: aspect(stored, 3) }, values: [held('io.acryl.tier', [{ string: 'old' }], record('io.acryl.tier', { generation: 2n }), 1n), held('other', [{ string: 'o' }], OTHER)] });
    const d = decideValueCleanup(target, state, PROPERTY, context)!;
    expect(d.writes).toEqual([{ aspect: 'structuredProperties', metadata: { properties: [stored.properties[1]] }, systemMetadata: { version: '4', runId: 'property-cleanup', lastObserved: 5 } }]);
    expect(d.valueRows).toEqual([{ propertyUrn: OTHER.urn, generation: 1n, values: [{ string: 'o' }] }]);
  });

  test('values of a property that is gone are stale too', () => {
    const state = entity({ aspects: { structuredProperties: aspect(stored) }, values: [held('io.acryl.tier', [{ string: 'old' }], undefined)] });
    expect(decideValueCleanup(target, state, PROPERTY, context)!.valueRows).toEqual([]);
  });

  test('a value written again under the current generation is left alone', () => {
    const state = entity({ values: [held('io.acryl.tier', [{ string: 'new' }], record('io.acryl.tier', { generation: 2n }))] });
    expect(decideValueCleanup(target, state, PROPERTY, context)).toBeNull();
  });

  test('a stale row without an entry in the aspect is removed without an aspect write', () => {
    const state = entity({ values: [held('io.acryl.tier', [{ string: 'old' }], undefined)] });
    const d = decideValueCleanup(target, state, PROPERTY, context)!;
    expect(d.writes).toEqual([]);
    expect(d.valueRows).toEqual([]);
  });
});

describe('older versions lose a dropped property (issue #29, item 9)', () => {
  test('the property is taken out of a version, everything else kept as it was', () => {
    const version = { properties: [{ propertyUrn: PROPERTY, values: [{ string: 'gold' }] }, { propertyUrn: propertyUrnOf('io.acryl.keep'), values: [{ string: 'k' }] }], extra: 1 };
    expect(withoutPropertyInVersion(version, PROPERTY)).toEqual({ properties: [{ propertyUrn: propertyUrnOf('io.acryl.keep'), values: [{ string: 'k' }] }], extra: 1 });
  });

  test('a version that is no structuredProperties aspect is left as it is', () => {
    expect(withoutPropertyInVersion(null, PROPERTY)).toBeNull();
    expect(withoutPropertyInVersion({ other: true }, PROPERTY)).toEqual({ other: true });
  });
});
