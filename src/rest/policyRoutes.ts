/**
 * Policies over REST v3 (docs/security.md, "Policies"; docs/contract.md §10): list, read,
 * create, replace and delete them, apply a file of them (what `propgraph policies apply`
 * sends), and ask why a principal may or may not do something, or who could. Every
 * change is decided in the one write path (MANAGE_POLICIES, admin scope).
 */
import type { FastifyInstance } from 'fastify';
import { ValidationError } from '../domain/errors.js';
import type { PolicyView } from '../services/policyService.js';
import type { Services } from '../services/index.js';
import { boolParam, intParam, listParam, stringParam, type Query } from './params.js';

/** A policy as REST answers it: its urn, where it comes from, and DataHub's dataHubPolicyInfo. */
export function policyAnswer(v: PolicyView): Record<string, unknown> {
  return { urn: v.urn, origin: v.origin, shipped: v.shipped, lastModified: v.lastModified, dataHubPolicyInfo: v.info };
}

function object(body: unknown, field = 'request body'): Record<string, unknown> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new ValidationError(`${field} must be a JSON object: a policy as DataHub's dataHubPolicyInfo`, field);
  return body as Record<string, unknown>;
}

export async function policyRoutes(app: FastifyInstance, options: { services: Services }): Promise<void> {
  const { policies, access } = options.services;

  app.get('/policies', async (request) => {
    const q = request.query as Query;
    const page = await policies.list(request.caller, { start: intParam(q, 'start') ?? null, count: intParam(q, 'count') ?? null, query: stringParam(q, 'query') ?? null });
    return { start: page.start, count: page.count, total: page.total, policies: page.policies.map(policyAnswer) };
  });

  app.get('/policies/:id', async (request) => policyAnswer(await policies.get(request.caller, (request.params as { id: string }).id)));

  app.post('/policies', async (request) => {
    const { id, ...policy } = object(request.body);
    if (id !== undefined && id !== null && typeof id !== 'string') throw new ValidationError('id must be a string: the policy id, e.g. finance-stewards', 'id');
    return policyAnswer(request.receipts.resultOf(await policies.create(request.caller, { id: id ?? null, policy })));
  });

  app.put('/policies/:id', async (request) => policyAnswer(request.receipts.resultOf(await policies.update(request.caller, (request.params as { id: string }).id, object(request.body)))));

  app.delete('/policies/:id', async (request) => request.receipts.resultOf(await policies.delete(request.caller, (request.params as { id: string }).id)));

  app.post('/policies/apply', async (request) => {
    const q = request.query as Query;
    const body = object(request.body);
    if (!Array.isArray(body.policies)) throw new ValidationError('policies must be a list of policies, each {id, displayName, privileges, actors, resources?}', 'policies');
    return request.receipts.resultOf(await policies.apply(request.caller, { policies: body.policies, prune: boolParam(q, 'prune', false), dryRun: boolParam(q, 'dryRun', false) }));
  });

  app.get('/access/explain', async (request) => {
    const q = request.query as Query;
    const privilege = stringParam(q, 'privilege');
    if (!privilege) throw new ValidationError('privilege is required, e.g. privilege=EDIT_ENTITY_PROPERTIES', 'privilege');
    return access.explain(request.caller, {
      principal: stringParam(q, 'principal') ?? null,
      groups: listParam(q, 'groups') ?? null,
      scope: stringParam(q, 'scope') ?? null,
      privilege,
      urn: stringParam(q, 'urn') ?? null,
      property: stringParam(q, 'property') ?? null,
    });
  });

  app.get('/access/who', async (request) => {
    const q = request.query as Query;
    const privilege = stringParam(q, 'privilege');
    if (!privilege) throw new ValidationError('privilege is required, e.g. privilege=EDIT_ENTITY_PROPERTIES', 'privilege');
    return access.whoCould(request.caller, { privilege, urn: stringParam(q, 'urn') ?? null, property: stringParam(q, 'property') ?? null });
  });
}
