/**
 * Policies over GraphQL, under DataHub's names (listPolicies, createPolicy, updatePolicy,
 * deletePolicy), and the questions about access (explainAccess, whoCould, entityAccess):
 * the Query and Mutation fields of schema.graphql's policies section, and the types they
 * answer. The policy itself is read by the service (domain/policies/policy.ts), from
 * DataHub's PolicyUpdateInput as given.
 */
import { NotFoundError } from '../../domain/errors.js';
import type { Policy as PolicyModel } from '../../domain/policies/policy.js';
import { constraintCriteria, coversEveryProperty, policyInfoOf } from '../../domain/policies/policy.js';
import type { AccessExplanationResolvers, AccessTokenScope, MutationResolvers, PolicyResolvers, QueryResolvers, WhoCouldResolvers } from '../generated/resolvers-types.js';

const upper = (scope: string) => scope.toUpperCase() as AccessTokenScope;

/** The policy as DataHub's GraphQL shows it: criteria values wrapped, constraints apart from resources. */
function resourcesOf(p: PolicyModel) {
  const info = policyInfoOf(p) as { resources: { allResources: boolean; filter?: { criteria: Array<{ field: string; values: string[]; condition: 'EQUALS' | 'STARTS_WITH' }> } } };
  const criteria = info.resources.filter?.criteria.map((c) => ({ field: c.field, values: c.values.map((value) => ({ value })), condition: c.condition })) ?? null;
  return { type: null, resources: null, allResources: info.resources.allResources, filter: criteria ? { criteria } : null };
}

export const Policy: PolicyResolvers = {
  urn: (v) => v.urn,
  type: (v) => v.policy.type,
  name: (v) => v.policy.name,
  state: (v) => v.policy.state,
  description: (v) => v.policy.description,
  resources: (v) => resourcesOf(v.policy),
  privileges: (v) => [...v.policy.privileges],
  actors: (v) => ({ ...v.policy.actors, users: [...v.policy.actors.users], groups: [...v.policy.actors.groups] }),
  editable: (v) => v.policy.editable,
  policyConstraints: (v) => (coversEveryProperty(v.policy) ? null : { criteria: constraintCriteria(v.policy).map((c) => ({ ...c, values: c.values.map((value) => ({ value })) })) }),
  origin: (v) => (v.origin === 'default' ? 'DEFAULT' : 'STORED'),
  lastModified: (v) => v.lastModified,
};

export const AccessExplanation: AccessExplanationResolvers = {
  scope: (e) => upper(e.scope),
  groups: (e) => [...e.groups],
  grantedBy: (e) => e.grantedBy.map((g) => ({ ...g, refusal: null })),
  notGranting: (e) => e.notGranting.map((g) => ({ ...g, refusal: g.refusal ?? null })),
};

export const WhoCould: WhoCouldResolvers = {
  scopeNeeded: (w) => upper(w.scopeNeeded),
  grantees: (w) => w.grantees.map((g) => ({ policy: { ...g.policy, refusal: null }, actors: [...g.actors] })),
  owners: (w) => [...w.owners],
};

export const policyQueries: QueryResolvers = {
  listPolicies: async (_root, { input }, ctx) => ctx.services.policies.list(ctx.caller, { start: input.start ?? null, count: input.count ?? null, query: input.query ?? null }),
  policy: async (_root, { urn }, ctx) => ctx.services.policies.get(ctx.caller, urn).catch((err: unknown) => {
    if (err instanceof NotFoundError) return null;
    throw err;
  }),
  explainAccess: async (_root, { input }, ctx) =>
    ctx.services.access.explain(ctx.caller, {
      principal: input.principal ?? null,
      groups: input.groups ?? null,
      scope: input.scope ?? null,
      privilege: input.privilege,
      urn: input.urn ?? null,
      property: input.property ?? null,
    }),
  whoCould: async (_root, { input }, ctx) => ctx.services.access.whoCould(ctx.caller, { privilege: input.privilege, urn: input.urn ?? null, property: input.property ?? null }),
  entityAccess: async (_root, { urn }, ctx) => ctx.services.access.entityPrivileges(ctx.caller, urn),
};

/** DataHub's PolicyUpdateInput as the service reads it: `name` is the info's displayName, `policyConstraints` the resources' constraints. */
function policyOf(input: Record<string, unknown>): Record<string, unknown> {
  const { id: _id, ...rest } = input;
  return rest;
}

export const policyMutations: MutationResolvers = {
  createPolicy: async (_root, { input }, ctx) => ctx.receipts.resultOf(await ctx.services.policies.create(ctx.caller, { id: input.id ?? null, policy: policyOf(input) })).urn,
  updatePolicy: async (_root, { urn, input }, ctx) => ctx.receipts.resultOf(await ctx.services.policies.update(ctx.caller, urn, policyOf(input))).urn,
  deletePolicy: async (_root, { urn }, ctx) => ctx.receipts.resultOf(await ctx.services.policies.delete(ctx.caller, urn)).urn,
};
