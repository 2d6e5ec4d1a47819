/**
 * What applying a file of policies changes, and for whom (src/domain/policies/policyDiff.ts):
 * created, updated, unchanged; with prune, stored policies the file leaves out deleted and
 * shipped defaults turned off (a default deleted would come back).
 */
import { DEFAULT_POLICIES } from '../../../src/domain/policies/defaults.js';
import { parsePolicy, policyUrn } from '../../../src/domain/policies/policy.js';
import { diffPolicies } from '../../../src/domain/policies/policyDiff.js';

const p = (id: string, input: Record<string, unknown>) => parsePolicy(policyUrn(id), { displayName: id, ...input });
const stewards = p('stewards', { privileges: ['EDIT_ENTITY_PROPERTIES'], actors: { groups: ['stewards'] } });
const current = [...DEFAULT_POLICIES.map((policy) => ({ policy, shipped: true })), { policy: stewards, shipped: false }];

test('a new policy: its actors gain its privileges', () => {
  const added = p('privacy', { privileges: ['EDIT_ENTITY_PROPERTIES'], actors: { groups: ['privacy'], users: ['ana@example.com'] } });
  expect(diffPolicies(current, [added], false)).toEqual([
    { urn: added.urn, name: 'privacy', change: 'create', forWhom: [{ actor: 'urn:li:corpuser:ana@example.com', gains: ['EDIT_ENTITY_PROPERTIES'], loses: [] }, { actor: 'urn:li:corpGroup:privacy', gains: ['EDIT_ENTITY_PROPERTIES'], loses: [] }] },
  ]);
});

test('an update: who gains and loses what, and how the resources move', () => {
  const changed = p('stewards', { privileges: ['EDIT_ENTITY'], actors: { groups: ['stewards'] }, resources: { filter: { criteria: [{ field: 'TYPE', values: ['dataset'] }] } } });
  expect(diffPolicies(current, [changed], false)).toEqual([
    {
      urn: stewards.urn,
      name: 'stewards',
      change: 'update',
      forWhom: [{ actor: 'urn:li:corpGroup:stewards', gains: ['EDIT_ENTITY'], loses: ['EDIT_ENTITY_PROPERTIES'] }],
      resources: { before: 'every resource', after: 'TYPE is dataset' },
    },
  ]);
  expect(diffPolicies(current, [stewards], false).map((c) => c.change)).toEqual(['unchanged']);
});

test('with prune: stored policies left out are deleted, shipped defaults turned off', () => {
  const changes = diffPolicies(current, [], true);
  expect(changes.map((c) => [c.urn, c.change])).toEqual([
    ...DEFAULT_POLICIES.map((d) => [d.urn, 'deactivate']),
    [stewards.urn, 'delete'],
  ]);
  expect(changes[0]!.forWhom).toEqual([{ actor: 'everyone signed in', gains: [], loses: ['VIEW_ENTITY_PAGE'] }]);
});
