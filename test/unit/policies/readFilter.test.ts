/**
 * What a principal may read, as the filter tree the search layer compiles into the
 * engine's query (src/domain/policies/readFilter.ts): an OR over the policies granting
 * VIEW_ENTITY_PAGE, each the AND of its criteria, owners as a filter on `owners`; all for
 * the root token and the shipped defaults, nothing for someone no policy names; a
 * criterion on the entity type folded against the types a search covers.
 */
import { DEFAULT_POLICIES } from '../../../src/domain/policies/defaults.js';
import { PrincipalPolicies, ROOT_PRINCIPAL } from '../../../src/domain/policies/evaluate.js';
import { parsePolicy, policyUrn } from '../../../src/domain/policies/policy.js';
import { forTypes, readFilter } from '../../../src/domain/policies/readFilter.js';

const view = (id: string, input: Record<string, unknown>) => parsePolicy(policyUrn(id), { displayName: id, privileges: ['VIEW_ENTITY_PAGE'], ...input });
const fin = view('fin', { actors: { groups: ['finance'] }, resources: { filter: { criteria: [{ field: 'TYPE', values: ['dataset'] }, { field: 'structuredProperties.acme.domain', values: ['finance'] }] } } });
const own = view('own', { actors: { resourceOwners: true } });
const snow = view('snow', { actors: { allUsers: true }, resources: { filter: { criteria: [{ field: 'URN', values: ['urn:li:dataset:(urn:li:dataPlatform:snowflake,'], condition: 'STARTS_WITH' }] } } });
const who = (groups: string[], actor = 'urn:li:corpuser:fay@example.com') => ({ actor, groups, scope: 'read' as const });

test('an OR of the granting policies, each the AND of its criteria; owners by the principal or their groups', () => {
  expect(readFilter(new PrincipalPolicies(who(['finance']), [fin, own]))).toEqual({
    kind: 'or',
    items: [
      { kind: 'and', items: [{ kind: 'equals', field: '_entityType', values: ['dataset'] }, { kind: 'equals', field: 'structuredProperties.acme.domain', values: ['finance'] }] },
      { kind: 'equals', field: 'owners', values: ['urn:li:corpuser:fay@example.com', 'urn:li:corpGroup:finance'] },
    ],
  });
});

test('a URN prefix is a starts-with on the urn', () => {
  expect(readFilter(new PrincipalPolicies(who([]), [snow]))).toEqual({ kind: 'text', field: 'urn', op: 'startsWith', value: 'urn:li:dataset:(urn:li:dataPlatform:snowflake,' });
});

test('everything for the shipped defaults and the root token; nothing for someone no policy names', () => {
  expect(readFilter(new PrincipalPolicies(who([]), DEFAULT_POLICIES))).toEqual({ kind: 'all' });
  expect(readFilter(new PrincipalPolicies({ actor: ROOT_PRINCIPAL, groups: [], scope: 'admin' }, []))).toEqual({ kind: 'all' });
  expect(readFilter(new PrincipalPolicies(who(['marketing']), [fin]))).toEqual({ kind: 'none' });
});

test('a type criterion is folded against the types searched: all of them, none, or kept', () => {
  const filter = readFilter(new PrincipalPolicies(who(['finance']), [fin]));
  expect(forTypes(filter, ['dataset'])).toEqual({ kind: 'equals', field: 'structuredProperties.acme.domain', values: ['finance'] });
  expect(forTypes(filter, ['chart'])).toEqual({ kind: 'none' });
  expect(forTypes(filter, ['dataset', 'chart'])).toEqual(filter);
});
