/**
 * The entity-level write rules (docs/contract.md §3, §4): existence and creation, createOnly,
 * createEntityOnly and If-Version-Match, new values computed from what readers see,
 * identical rewrites, system metadata, and everything a write does as one decision.
 */
import { AlreadyExistsError, AspectExistsError, NotFoundError, PreconditionError } from '../../../src/domain/errors.js';
import { parseUrn, type Urn } from '../../../src/domain/urn.js';
import {
  checkPreconditions,
  decideEntityWrite,
  NO_CHANGE,
  requireParent,
  resolveRequests,
  type AspectWriteRequest,
  type RuledRequest,
} from '../../../src/domain/writes/entityWrite.js';
import { propertyDefinitionRules } from '../../../src/domain/aspects/modules/propertyDefinition.js';
import { propertyStatusRules } from '../../../src/domain/aspects/modules/propertyStatus.js';
import { structuredPropertiesRules } from '../../../src/domain/aspects/modules/structuredProperties.js';
import { keyAspectRules, objectAspectRules } from '../../../src/domain/writes/plainAspectRules.js';
import type { EntityState } from '../../../src/domain/writes/writeState.js';
import { aspect, DATASET, definitionOf, entity, held, propertyUrnOf, record, registryOf } from '../../support/writeStates.js';
import { thrown } from '../thrown.js';

const NOW = 1_700_000_000_000;
const PROPS = objectAspectRules('datasetProperties');
const ruled = (...requests: Array<[AspectWriteRequest, RuledRequest['rules']]>): RuledRequest[] => requests.map(([request, rules]) => ({ request, rules }));
const props = (value: unknown, extra: Partial<AspectWriteRequest> = {}) => ruled([{ aspect: 'datasetProperties', value, ...extra } as AspectWriteRequest, PROPS]);

function decide(urn: Urn, state: EntityState, requests: RuledRequest[], registry = registryOf([])) {
  checkPreconditions(urn, state, requests, {});
  return decideEntityWrite(urn, state, registry, resolveRequests(urn, state, requests, 'svc'), { actor: 'urn:li:corpuser:ann', now: NOW, urnNamespace: 'svc' });
}

describe('existence', () => {
  test('an entity that does not exist and that the write may not create is 404', () => {
    const err = thrown(() => checkPreconditions(DATASET, entity({ existence: 'missing', version: null }), props({}), {}));
    expect(err).toBeInstanceOf(NotFoundError);
    expect(err.message).toBe(`Entity ${DATASET.value} does not exist`);
  });

  test('a schema field whose dataset does not exist is 404 naming the dataset', () => {
    const err = thrown(() => requireParent(entity({ existence: 'created', parent: { urn: DATASET.value, exists: false } })));
    expect(err.message).toBe(`Entity ${DATASET.value} does not exist`);
  });

  test('createEntityOnly refuses an entity that exists', () => {
    const err = thrown(() => checkPreconditions(DATASET, entity(), props({}), { createEntityOnly: true }));
    expect(err).toBeInstanceOf(AlreadyExistsError);
    expect(err).not.toBeInstanceOf(AspectExistsError);
    expect(err.message).toBe('Cannot perform CREATE since the entity already exists.');
  });

  test('a created entity logs its key aspect; a key aspect request alone stores nothing', () => {
    const d = decide(DATASET, entity({ existence: 'created', version: null }), ruled([{ aspect: 'datasetKey', value: { name: 'db.orders' } }, keyAspectRules('datasetKey')]));
    expect(d.creates).toEqual({ keyAspect: 'datasetKey' });
    expect(d.writes).toEqual([]);
    expect(d.results[0]!.value).toEqual({ platform: 'urn:li:dataPlatform:hive', name: 'db.orders', origin: 'PROD' });
  });
});

describe('preconditions', () => {
  const withProps = entity({ aspects: { datasetProperties: aspect({ description: 'old' }, 4) } });

  test('createOnly refuses an aspect that exists, as the create-only refusal the edges complete', () => {
    const err = thrown(() => checkPreconditions(DATASET, withProps, props({}, { createOnly: true }), {}));
    expect(err).toBeInstanceOf(AspectExistsError);
    expect(err.message).toBe('Cannot perform CREATE since the aspect already exists.');
  });

  test('If-Version-Match must name the current revision', () => {
    expect(() => checkPreconditions(DATASET, withProps, props({}, { ifVersionMatch: '4' }), {})).not.toThrow();
    const err = thrown(() => checkPreconditions(DATASET, withProps, props({}, { ifVersionMatch: '3' }), {}));
    expect(err).toBeInstanceOf(PreconditionError);
    expect(err.message).toBe('Expected version 3 of datasetProperties, actual version 4');
  });

  test('If-Version-Match -1 means the aspect must not exist yet', () => {
    expect(() => checkPreconditions(DATASET, entity(), props({}, { ifVersionMatch: '-1' }), {})).not.toThrow();
    expect(thrown(() => checkPreconditions(DATASET, withProps, props({}, { ifVersionMatch: '-1' }), {})).message).toBe('Expected version -1 of datasetProperties, actual version 4');
  });
});

describe('new values and what is stored', () => {
  test('a computed value starts from what readers see, not from what is stored', () => {
    const TIER = record('tier');
    const SOFT = record('soft', { removed: true });
    const stored = { properties: [{ propertyUrn: TIER.urn, values: [{ string: 'a' }] }, { propertyUrn: SOFT.urn, values: [{ string: 'h' }] }] };
    const state = entity({ aspects: { structuredProperties: aspect(stored) }, values: [held('tier', [{ string: 'a' }], TIER), held('soft', [{ string: 'h' }], SOFT)] });
    const seen: unknown[] = [];
    resolveRequests(DATASET, state, ruled([{ aspect: 'structuredProperties', compute: (current) => (seen.push(current), NO_CHANGE) }, structuredPropertiesRules]), 'svc');
    expect(seen).toEqual([{ properties: [{ propertyUrn: TIER.urn, values: [{ string: 'a' }] }] }]);
  });

  test('NO_CHANGE leaves the aspect and answers what readers see', () => {
    const state = entity({ aspects: { datasetProperties: aspect({ description: 'kept' }, 2) } });
    const d = decide(DATASET, state, ruled([{ aspect: 'datasetProperties', compute: () => NO_CHANGE }, PROPS]));
    expect(d.writes).toEqual([]);
    expect(d.results).toEqual([{ aspect: 'datasetProperties', value: { description: 'kept' }, systemMetadata: { version: '2', runId: 'earlier' } }]);
  });

  test('an identical rewrite writes nothing and answers the stored revision', () => {
    const state = entity({ aspects: { datasetProperties: aspect({ description: 'same' }, 2) } });
    const d = decide(DATASET, state, props({ description: 'same' }));
    expect(d.writes).toEqual([]);
    expect(d.results[0]!.systemMetadata).toEqual({ version: '2', runId: 'earlier' });
  });

  test('a change stores the next revision with the time, the run id (or its default) and the caller system metadata', () => {
    const state = entity({ aspects: { datasetProperties: aspect({ description: 'old' }, 2) } });
    const d = decide(DATASET, state, props({ description: 'new' }, { systemMetadata: { properties: { source: 'cli' } } }));
    const systemMetadata = { properties: { source: 'cli' }, lastObserved: NOW, runId: 'no-run-id-provided', version: '3' };
    expect(d.writes).toEqual([{ aspect: 'datasetProperties', metadata: { description: 'new' }, systemMetadata }]);
    expect(d.results).toEqual([{ aspect: 'datasetProperties', value: { description: 'new' }, systemMetadata }]);
    expect(d.createdBy).toBe('urn:li:corpuser:ann');
  });

  test('a change that says how the replaced version is kept in history hands the applier that version, made from what is stored', () => {
    const state = entity({ aspects: { datasetProperties: aspect({ description: 'old', secret: 'x' }, 2) } });
    const historyOf = (stored: unknown) => ({ ...(stored as object), secret: undefined, scrubbed: true });
    const d = decide(DATASET, state, props({ description: 'new' }, { historyOf }));
    expect(d.writes[0]!.previousKeptAs).toEqual({ description: 'old', secret: undefined, scrubbed: true });
    // Without it, and for an aspect not stored before, nothing is said: the applier keeps the version as it is.
    expect('previousKeptAs' in decide(DATASET, state, props({ description: 'new' })).writes[0]!).toBe(false);
    expect('previousKeptAs' in decide(DATASET, entity(), props({ description: 'new' }, { historyOf })).writes[0]!).toBe(false);
  });

  test('values re-asserted under a new generation are written although equal to the stored aspect', () => {
    const TIER = record('tier', { generation: 9n });
    const stored = { properties: [{ propertyUrn: TIER.urn, values: [{ string: 'a' }] }] };
    const state = entity({ aspects: { structuredProperties: aspect(stored) }, values: [held('tier', [{ string: 'a' }], TIER, 8n)] });
    const d = decide(DATASET, state, ruled([{ aspect: 'structuredProperties', value: stored }, structuredPropertiesRules]), registryOf([TIER]));
    expect(d.writes).toHaveLength(1);
    expect(d.valueRows).toEqual([{ propertyUrn: TIER.urn, generation: 9n, values: [{ string: 'a' }] }]);
    expect(d.reliesOn).toEqual([TIER.urn]);
  });

  test('a definition and a status written together make one registry change', () => {
    const NAME = 'io.acryl.tier';
    const urn = parseUrn(propertyUrnOf(NAME));
    const state = entity({ aspects: { propertyDefinition: aspect(definitionOf(NAME)) } });
    const d = decide(
      urn,
      state,
      ruled([{ aspect: 'propertyDefinition', value: definitionOf(NAME, { description: 'd' }) }, propertyDefinitionRules], [{ aspect: 'status', value: { removed: true } }, propertyStatusRules]),
      registryOf([record(NAME, { generation: 4n })]),
    );
    expect(d.registry).toEqual([{ urn: urn.value, define: { qualifiedName: NAME, searchField: 'io_acryl_tier', valueType: 'string', version: null, generation: 4n, lineage: 'keep', migration: null }, removed: true }]);
  });
});
