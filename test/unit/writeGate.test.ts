/**
 * Who may write what, decided per entity inside the one write entry point
 * (services/writes/writeGate.ts), whatever interface built the plan: the scope each
 * kind of change needs (docs/security.md's scope table), checked against each scope.
 */
import { SCOPES, type TokenScope } from '../../src/domain/accessToken.js';
import { ForbiddenError } from '../../src/domain/errors.js';
import { parseUrn } from '../../src/domain/urn.js';
import type { AspectChange, EntityPlan } from '../../src/domain/writes/plan.js';
import { scopeJudge } from '../../src/services/writes/writeGate.js';

const DATASET = 'urn:li:dataset:(urn:li:dataPlatform:hive,db.t,PROD)';
const PROPERTY = 'urn:li:structuredProperty:io.x';
const TEST = 'urn:li:test:t1';

const set = (aspect: string): AspectChange => ({ op: 'set', aspect, value: {} });
const patch = (aspect: string): AspectChange => ({ op: 'patch', aspect, patches: [] });
const remove = (aspect: string): AspectChange => ({ op: 'delete', aspect });

/** [what, urn, changes, deletes the entity, scope needed]. */
const TABLE: ReadonlyArray<readonly [string, string, readonly AspectChange[], boolean, TokenScope]> = [
  ['a value or aspect of a dataset', DATASET, [set('status')], false, 'write'],
  ['a patch of a dataset aspect', DATASET, [patch('structuredProperties')], false, 'write'],
  ['a definition', PROPERTY, [set('propertyDefinition')], false, 'write'],
  ['a property soft deleted', PROPERTY, [set('status')], false, 'write'],
  ["a metadata test's definition", TEST, [set('testInfo')], false, 'admin'],
  ['a patch of a metadata test', TEST, [patch('status')], false, 'admin'],
  ['an aspect of a dataset deleted', DATASET, [remove('status')], false, 'write'],
  ["a dataset's key aspect deleted (the dataset)", DATASET, [remove('datasetKey')], false, 'admin'],
  ["a property's definition deleted", PROPERTY, [remove('propertyDefinition')], false, 'admin'],
  ["a property's status deleted (restored)", PROPERTY, [remove('status')], false, 'write'],
  ["a metadata test's aspect deleted", TEST, [remove('testInfo')], false, 'admin'],
  ['a dataset hard deleted', DATASET, [], true, 'admin'],
  ['a property hard deleted', PROPERTY, [], true, 'admin'],
  ['a write and a delete of one entity: the larger need', DATASET, [set('status'), remove('datasetKey')], false, 'admin'],
];

describe.each(TABLE.map(([what, urn, changes, deleteEntity, need]) => [`${what} needs ${need}`, urn, changes, deleteEntity, need] as const))('%s', (_title, urn, changes, deleteEntity, need) => {
  test.each(SCOPES.map((s) => [s] as const))('a %s caller', (scope) => {
    const entity: EntityPlan = { urn: parseUrn(urn), changes, ...(deleteEntity ? { deleteEntity } : {}) };
    const caller = { actor: `urn:li:corpuser:${scope}`, scope };
    if (SCOPES.indexOf(scope) >= SCOPES.indexOf(need)) expect(() => scopeJudge(caller).beforeLoad(entity)).not.toThrow();
    else expect(() => scopeJudge(caller).beforeLoad(entity)).toThrow(ForbiddenError);
  });
});

test('dropping stored values needs admin; a refusal names the scope it needs', () => {
  expect(scopeJudge({ actor: 'urn:li:corpuser:a', scope: 'admin' }).valueDrops(PROPERTY)).toBe('allowed');
  expect(scopeJudge({ actor: 'urn:li:corpuser:w', scope: 'write' }).valueDrops(PROPERTY)).toEqual({ refusedUnless: 'a token with admin scope' });
  expect(() => scopeJudge({ actor: 'urn:li:corpuser:r', scope: 'read' }).beforeLoad({ urn: parseUrn(DATASET), changes: [set('status')] })).toThrow(
    `Writing status of ${DATASET} needs a token with write scope; this token has read scope`,
  );
});
