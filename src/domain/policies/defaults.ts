/**
 * The policies a new catalog starts with (docs/security.md, "Policies"): every privilege
 * to everyone signed in, so that a token's scope, the ceiling of every privilege
 * (privileges.ts), decides alone, exactly as before policies existed. Nothing changes
 * until an administrator edits or replaces them. They are never stored: a stored policy
 * of the same URN replaces one (services/accessPolicies.ts), so an empty catalog, a
 * restored backup and an upgraded one all start from them, and turning one off is
 * storing it INACTIVE. Pure.
 */
import { parsePolicy, policyUrn, type Policy } from './policy.js';
import type { Privilege } from './privileges.js';

const everyone = { allUsers: true };

function policy(id: string, name: string, description: string, type: 'METADATA' | 'PLATFORM', privileges: readonly Privilege[]): Policy {
  return parsePolicy(policyUrn(id), { displayName: name, description, type, state: 'ACTIVE', privileges, actors: everyone, resources: { allResources: true } });
}

export const DEFAULT_POLICIES: readonly Policy[] = [
  policy('propgraph-default-read', 'Everyone reads everything', 'Shipped default: every principal may read every entity; a token needs read scope.', 'METADATA', ['VIEW_ENTITY_PAGE']),
  policy(
    'propgraph-default-write',
    'Everyone with write scope edits everything',
    'Shipped default: every principal may edit entities, values and definitions, soft delete and restore; a token needs write scope.',
    'METADATA',
    ['EDIT_ENTITY', 'EDIT_ENTITY_PROPERTIES', 'SOFT_DELETE_ENTITY', 'MANAGE_STRUCTURED_PROPERTIES'],
  ),
  policy(
    'propgraph-default-admin',
    'Everyone with admin scope deletes and manages tests',
    'Shipped default: every principal may hard delete, drop stored values and manage metadata tests; a token needs admin scope.',
    'METADATA',
    ['DELETE_ENTITY', 'MANAGE_TESTS'],
  ),
  policy(
    'propgraph-default-platform',
    'Everyone within their scope: bulk edits, tokens, policies',
    'Shipped default: bulk edits need write scope; managing machine tokens and policies needs admin scope.',
    'PLATFORM',
    ['BULK_EDIT', 'MANAGE_ACCESS_TOKENS', 'MANAGE_POLICIES'],
  ),
];
