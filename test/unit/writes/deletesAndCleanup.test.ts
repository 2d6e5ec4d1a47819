/** Hard deletes as data (docs/contract.md §5) and the cleanup job's decision (docs/contract.md §2, §5). */
import { CLEANUP_PROPERTY_VALUES } from '../../../src/domain/jobKinds.js';
import { decideAspectDelete, decideEntityDelete, NOTHING_TO_DELETE } from '../../../src/domain/writes/entityDelete.js';
import { withoutPropertyInVersion } from '../../../src/domain/writes/valueCleanup.js';
import { structuredPropertiesRules } from '../../../src/domain/writes/structuredPropertiesRules.js';
import type { HeldValue, PropertyRecord } from '../../../src/domain/writes/writeState.js';
import { aspectState, DATASET, held, propertyUrnOf, record, registryOf } from '../../support/writeStates.js';

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

describe('the cleanup job: each holder written again as readers see it', () => {
  const OTHER = record('other');
  const stored = { properties: [{ propertyUrn: PROPERTY, values: [{ string: 'old' }] }, { propertyUrn: OTHER.urn, values: [{ string: 'o' }] }] };
  /** What the cleanup's write decides for the entity: its aspect as readers see it, written back. */
  const cleanup = (values: HeldValue[], properties: PropertyRecord[], aspectStored: unknown = stored) => {
    const view = structuredPropertiesRules.view(aspectStored, { urn: DATASET, values, urnNamespace: 'svc' });
    return structuredPropertiesRules.decide(view ?? { properties: [] }, aspectState({ stored: aspectStored, values, registry: registryOf(properties) }));
  };

  test('a value written under an older generation leaves the rows and the stored aspect; others stay', () => {
    const d = cleanup([held('io.acryl.tier', [{ string: 'old' }], record('io.acryl.tier', { generation: 2n }), 1n), held('other', [{ string: 'o' }], OTHER)], [record('io.acryl.tier', { generation: 2n }), OTHER]);
    expect(d.stored).toEqual({ properties: [stored.properties[1]] });
    expect(d.valueRows).toEqual([{ propertyUrn: OTHER.urn, generation: 1n, values: [{ string: 'o' }] }]);
  });

  test('values of a property that is gone are stale too', () => {
    const d = cleanup([held('io.acryl.tier', [{ string: 'old' }], undefined)], []);
    expect(d.valueRows).toEqual([]);
    expect(d.stored).toEqual({ properties: [] });
  });

  test('a stale row without an entry in the aspect is removed, and the write happens though the aspect reads the same', () => {
    const d = cleanup([held('io.acryl.tier', [{ string: 'old' }], undefined)], [], { properties: [] });
    expect(d.valueRows).toEqual([]);
    expect(d.store).toBe('always');
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
