/**
 * What one may do to one entity (src/services/privileges.ts, entityPrivilegesOf), as the
 * console and DataHub's app offer it: the properties whose values may be set are every
 * one, a list, or every one but some, whatever mix of policies grants them; a
 * definition's privileges concern the property itself, as a write of it asks them.
 */
import { PrincipalPolicies, type Principal } from '../../../src/domain/policies/evaluate.js';
import { parsePolicy, policyUrn, type Policy } from '../../../src/domain/policies/policy.js';
import type { ResourceFacts } from '../../../src/domain/policies/resources.js';
import { entityPrivilegesOf } from '../../../src/services/privileges.js';

const PII = 'urn:li:structuredProperty:acme.pii';
const TIER = 'urn:li:structuredProperty:acme.tier';
const DATASET: ResourceFacts = { urn: 'urn:li:dataset:(urn:li:dataPlatform:hive,fin.ledger,PROD)', entityType: 'dataset', platform: 'urn:li:dataPlatform:hive', domains: [], owners: [], tags: [], values: new Map() };
const definition = (urn: string): ResourceFacts => ({ urn, entityType: 'structuredProperty', platform: null, domains: [], owners: [], tags: [], values: new Map() });

const steward: Principal = { actor: 'urn:li:corpuser:sam@example.com', groups: ['stewards'], scope: 'write' };
const policy = (id: string, constraints: unknown, privileges = ['EDIT_ENTITY_PROPERTIES']): Policy =>
  parsePolicy(policyUrn(id), { displayName: id, privileges, actors: { groups: ['stewards'] }, ...(constraints ? { policyConstraints: { criteria: constraints } } : {}) });
const allBut = (...qns: string[]) => policy(`all-but-${qns.join('-')}`, [{ field: 'PROPERTY', values: qns, condition: 'NOT_EQUALS' }]);
const only = (...qns: string[]) => policy(`only-${qns.join('-')}`, [{ field: 'PROPERTY', values: qns }]);
const onDataset = (...policies: Policy[]) => entityPrivilegesOf(new PrincipalPolicies(steward, policies), DATASET);

test('every property but some: those are listed as not editable, and nothing as the only editable ones', () => {
  expect(onDataset(allBut('acme.pii'))).toMatchObject({ canEditAllProperties: false, editableProperties: [], propertiesNotEditable: [PII] });
});

test('a list of properties beside every one but some: what the list names is editable after all', () => {
  expect(onDataset(allBut('acme.pii', 'acme.tier'), only('acme.pii'))).toMatchObject({ canEditAllProperties: false, editableProperties: [], propertiesNotEditable: [TIER] });
});

test('two policies leaving out different properties leave out only what both leave out; none left: every property', () => {
  expect(onDataset(allBut('acme.pii', 'acme.tier'), allBut('acme.pii'))).toMatchObject({ propertiesNotEditable: [PII] });
  expect(onDataset(allBut('acme.pii'), allBut('acme.tier'))).toMatchObject({ canEditAllProperties: true, editableProperties: [], propertiesNotEditable: [] });
});

test('lists alone are listed', () => {
  expect(onDataset(only('acme.pii'), only('acme.tier'))).toMatchObject({ canEditAllProperties: false, editableProperties: [PII, TIER], propertiesNotEditable: [] });
});

test("a definition's privileges are judged for the property itself", () => {
  const definer = new PrincipalPolicies(steward, [policy('define-tier', [{ field: 'PROPERTY', values: ['acme.tier'] }], ['MANAGE_STRUCTURED_PROPERTIES'])]);
  expect(entityPrivilegesOf(definer, definition(TIER))).toMatchObject({ canEdit: true, canSoftDelete: true });
  expect(entityPrivilegesOf(definer, definition(PII))).toMatchObject({ canEdit: false, canSoftDelete: false });
});
