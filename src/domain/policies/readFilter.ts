/**
 * Which entities a principal may read, as one filter tree (domain/searchFilter.ts) that
 * the search layer compiles into the engine's own query (search/compileFilter.ts), so
 * that counts, facets and pages are exact over what they may read: no hit is dropped
 * after the engine counted it. The tree says what evaluate.ts says of one entity: an OR
 * over the policies granting VIEW_ENTITY_PAGE to the principal, each the AND of its
 * resource criteria; the policies granting to owners as one branch, the principal or one
 * of their groups among the owners AND any of those policies' resources. Pure.
 */
import { ALL, and, mapLeaves, NONE, or, simplify, type FilterNode } from '../searchFilter.js';
import { actorMatch, ownerUrnsOf, type PrincipalPolicies } from './evaluate.js';
import { fieldName, type Criterion } from './policy.js';
import { withinCeiling } from './privileges.js';

/** The search field a key criterion reads (domain/searchFields.ts's KEY_FIELDS). */
const SEARCH_FIELD = { TYPE: '_entityType', URN: 'urn', PLATFORM: 'platform', DOMAIN: 'domains', TAG: 'tags' } as const;

function criterionFilter(c: Criterion): FilterNode {
  if (typeof c.field === 'object') return { kind: 'equals', field: fieldName(c.field), values: c.values };
  if (c.condition === 'STARTS_WITH') return or(c.values.map((value) => ({ kind: 'text', field: SEARCH_FIELD.URN, op: 'startsWith', value })));
  return { kind: 'equals', field: SEARCH_FIELD[c.field], values: c.values };
}

/** ALL when the principal may read everything (the defaults, the root token), NONE when nothing. */
export function readFilter(policies: PrincipalPolicies): FilterNode {
  if (!withinCeiling(policies.principal.scope, 'VIEW_ENTITY_PAGE')) return NONE;
  if (policies.bypass) return ALL;
  const candidates = policies.candidates('VIEW_ENTITY_PAGE');
  const resources = (p: (typeof candidates)[number]): FilterNode => and(p.criteria.length > 0 ? p.criteria.map(criterionFilter) : [ALL]);
  const direct = candidates.filter((p) => actorMatch(p, policies.principal) === 'direct').map(resources);
  // Policies granting to owners share one test of the owners: owned AND (any of their resources).
  const owned = candidates.filter((p) => actorMatch(p, policies.principal) === 'owner').map(resources);
  const branches = [...direct, ...(owned.length > 0 ? [and([{ kind: 'equals', field: 'owners', values: ownerUrnsOf(policies.principal) }, or(owned)])] : [])];
  return simplify(or(branches.length === 0 ? [NONE] : branches));
}

/** Whether the filter leaves anything out. */
export function isRestricted(filter: FilterNode): boolean {
  return filter.kind !== 'all';
}

/**
 * The filter as a search over `types` needs it: a criterion on the entity type says all
 * or nothing about the documents of those types, so it is folded away before the engine
 * sees it (the engine then only evaluates what tells the entities apart).
 */
export function forTypes(filter: FilterNode, types: readonly string[]): FilterNode {
  if (filter.kind === 'all' || filter.kind === 'none') return filter;
  return mapLeaves(filter, (leaf) => {
    if (leaf.kind !== 'equals' || leaf.field !== SEARCH_FIELD.TYPE) return leaf;
    if (types.every((t) => leaf.values.includes(t))) return ALL;
    return types.some((t) => leaf.values.includes(t)) ? leaf : NONE;
  });
}
