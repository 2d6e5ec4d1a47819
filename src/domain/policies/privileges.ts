/**
 * The privileges a policy grants (docs/security.md, "Policies"), each with the token
 * scope that stays its ceiling: a policy never lets a token do more than its scope
 * allows, and the shipped defaults (defaults.ts) grant everything to everyone, so
 * that, until an administrator replaces them, the scope alone decides, as before
 * policies. Names are DataHub's where DataHub has the privilege. Pure.
 */
import { scopeAllows, type TokenScope } from '../tokenScope.js';
import { ValidationError } from '../errors.js';

/**
 * `metadata` privileges are granted on resources (entities, and for values the properties
 * covered); `platform` privileges on nothing in particular (DataHub's two policy types).
 */
export type PrivilegeKind = 'metadata' | 'platform';

interface PrivilegeInfo {
  readonly kind: PrivilegeKind;
  /** The least token scope that may use it. */
  readonly ceiling: TokenScope;
  readonly description: string;
}

export const PRIVILEGES = {
  VIEW_ENTITY_PAGE: { kind: 'metadata', ceiling: 'read', description: 'Read the entity: searches, facets and counts, reads, history and exports' },
  EDIT_ENTITY: { kind: 'metadata', ceiling: 'write', description: "Write the entity's aspects other than structured property values (create it, describe it, own it, tag it)" },
  EDIT_ENTITY_PROPERTIES: {
    kind: 'metadata',
    ceiling: 'write',
    description: "Set and remove the entity's structured property values; limited to the properties a policy's constraints name",
  },
  SOFT_DELETE_ENTITY: { kind: 'metadata', ceiling: 'write', description: 'Soft delete the entity and restore it' },
  MANAGE_STRUCTURED_PROPERTIES: {
    kind: 'metadata',
    ceiling: 'write',
    description: "Create and change a structured property's definition, soft delete and restore it; a migration's rewrite of values is judged with it",
  },
  DELETE_ENTITY: { kind: 'metadata', ceiling: 'admin', description: 'Hard delete the entity or a definition, and make changes that drop stored values' },
  MANAGE_TESTS: { kind: 'metadata', ceiling: 'admin', description: 'Create, change and delete metadata tests' },
  BULK_EDIT: { kind: 'platform', ceiling: 'write', description: "Start bulk edits of values (each entity is still judged by EDIT_ENTITY_PROPERTIES)" },
  MANAGE_ACCESS_TOKENS: { kind: 'platform', ceiling: 'admin', description: 'Issue machine tokens, list and revoke every token' },
  MANAGE_POLICIES: { kind: 'platform', ceiling: 'admin', description: 'Create, change and delete policies' },
} as const satisfies Record<string, PrivilegeInfo>;

export type Privilege = keyof typeof PRIVILEGES;
export const PRIVILEGE_NAMES = Object.keys(PRIVILEGES) as Privilege[];

export function privilegeInfo(p: Privilege): PrivilegeInfo {
  return PRIVILEGES[p];
}

export function isPrivilege(name: string): name is Privilege {
  return Object.hasOwn(PRIVILEGES, name);
}

export function parsePrivilege(value: unknown, field = 'privilege'): Privilege {
  const name = typeof value === 'string' ? value.trim().toUpperCase() : value;
  if (typeof name !== 'string' || !isPrivilege(name)) {
    throw new ValidationError(`${field} ${JSON.stringify(value)} is not a privilege; use one of ${PRIVILEGE_NAMES.join(', ')}`, field);
  }
  return name;
}

/** Whether a token of `scope` may use the privilege at all (whatever the policies say). */
export function withinCeiling(scope: TokenScope, privilege: Privilege): boolean {
  return scopeAllows(scope, PRIVILEGES[privilege].ceiling);
}
