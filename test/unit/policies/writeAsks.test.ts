/**
 * Which privileges a write asks for (src/domain/policies/writeAsks.ts): what the plan
 * names before loading, what only the decision shows after (a created entity, a soft
 * delete, the properties whose values readers see change), per entity type.
 */
import { ALL_PROPERTIES } from '../../../src/domain/policies/evaluate.js';
import { changedProperties, decisionAsks, planAsks } from '../../../src/domain/policies/writeAsks.js';
import { parseUrn } from '../../../src/domain/urn.js';
import type { AspectChange } from '../../../src/domain/writes/plan.js';
import type { EntityWriteDecision } from '../../../src/domain/writes/writeDecision.js';
import type { EntityState, HeldValue } from '../../../src/domain/writes/writeState.js';

const DATASET = parseUrn('urn:li:dataset:(urn:li:dataPlatform:hive,db.t,PROD)');
const PROPERTY = parseUrn('urn:li:structuredProperty:acme.pii');
const TEST = parseUrn('urn:li:test:t1');
const POLICY = parseUrn('urn:li:dataHubPolicy:p1');
const TIER = 'urn:li:structuredProperty:acme.tier';
const set = (aspect: string): AspectChange => ({ op: 'set', aspect, value: {} });
const remove = (aspect: string): AspectChange => ({ op: 'delete', aspect });
const privileges = (urn = DATASET, changes: AspectChange[] = [], deleteEntity = false) => planAsks({ urn, changes, ...(deleteEntity ? { deleteEntity } : {}) }).map((a) => [a.privilege, a.property ?? null]);

test.each([
  ['an aspect of a dataset', DATASET, [set('globalTags')], false, [['EDIT_ENTITY', null]]],
  ['values and status of a dataset: left to the decision', DATASET, [set('structuredProperties'), set('status')], false, []],
  ['a key aspect alone: left to the decision', DATASET, [set('datasetKey')], false, []],
  ['a definition', PROPERTY, [set('propertyDefinition')], false, [['MANAGE_STRUCTURED_PROPERTIES', PROPERTY.value]]],
  ["a definition's deletion", PROPERTY, [remove('propertyDefinition')], false, [['DELETE_ENTITY', PROPERTY.value]]],
  ['a property restored (its status deleted)', PROPERTY, [remove('status')], false, [['MANAGE_STRUCTURED_PROPERTIES', PROPERTY.value]]],
  ['a metadata test', TEST, [set('testInfo')], false, [['MANAGE_TESTS', null]]],
  ['a metadata test deleted', TEST, [], true, [['MANAGE_TESTS', null]]],
  ['a policy', POLICY, [set('dataHubPolicyInfo')], false, [['MANAGE_POLICIES', null]]],
  ['a dataset hard deleted', DATASET, [], true, [['DELETE_ENTITY', null]]],
  ["a dataset's values all deleted", DATASET, [remove('structuredProperties')], false, [['EDIT_ENTITY_PROPERTIES', ALL_PROPERTIES]]],
  ["a dataset's status deleted", DATASET, [remove('status')], false, [['SOFT_DELETE_ENTITY', null]]],
] as const)('%s', (_what, urn, changes, deleteEntity, expected) => {
  expect(privileges(urn, [...changes], deleteEntity)).toEqual(expected);
});

const held = (propertyUrn: string, values: HeldValue['values'], generation = 1n, current: bigint | null = 1n): HeldValue => ({ propertyUrn, generation, values, currentGeneration: current, removed: false });
const state = (values: HeldValue[], status?: unknown): EntityState => ({
  existence: 'existed',
  version: 1n,
  parent: null,
  aspects: new Map(status === undefined ? [] : [['status', { metadata: status, systemMetadata: null }]]),
  values,
});
const decision = (more: Partial<EntityWriteDecision>): EntityWriteDecision => ({
  urn: DATASET.value,
  entityType: 'dataset',
  createdBy: 'x',
  creates: null,
  writes: [],
  valueRows: null,
  registry: [],
  jobs: [],
  reliesOn: [],
  events: [],
  results: [],
  reports: {},
  ...more,
});

test('the properties a write changes are those whose values readers see change', () => {
  const before = state([held(TIER, [{ string: 'gold' }]), held('urn:li:structuredProperty:acme.old', [{ string: 'x' }], 1n, 2n)]);
  expect(changedProperties(DATASET, decision({ valueRows: [{ propertyUrn: TIER, generation: 1n, values: [{ string: 'gold' }] }] }), before)).toEqual([]);
  expect(changedProperties(DATASET, decision({ valueRows: [{ propertyUrn: TIER, generation: 1n, values: [{ string: 'silver' }] }] }), before)).toEqual([TIER]);
  // Re-asserted under a new generation as it was: nothing readers see changes; a hidden row dropped: nothing either.
  expect(changedProperties(DATASET, decision({ valueRows: [{ propertyUrn: TIER, generation: 2n, values: [{ string: 'gold' }] }] }), before)).toEqual([]);
  expect(changedProperties(DATASET, decision({ valueRows: [] }), before)).toEqual([TIER]);
});

test('the decision asks for creating, soft deleting and each changed property', () => {
  const asks = decisionAsks(DATASET, decision({ creates: { keyAspect: 'datasetKey' }, writes: [{ aspect: 'status', metadata: { removed: true }, systemMetadata: {} }], valueRows: [{ propertyUrn: TIER, generation: 1n, values: [{ string: 'gold' }] }] }), state([]));
  expect(asks.map((a) => [a.privilege, a.property ?? null, a.what])).toEqual([
    ['EDIT_ENTITY', null, `Creating ${DATASET.value}`],
    ['SOFT_DELETE_ENTITY', null, `Soft deleting ${DATASET.value}`],
    ['EDIT_ENTITY_PROPERTIES', TIER, `Changing the values of acme.tier on ${DATASET.value}`],
  ]);
  expect(decisionAsks(DATASET, decision({ writes: [{ aspect: 'status', metadata: { removed: false, note: 'x' }, systemMetadata: {} }] }), state([], { removed: false })).map((a) => a.privilege)).toEqual(['EDIT_ENTITY']);
});
