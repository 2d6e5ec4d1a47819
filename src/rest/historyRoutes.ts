/**
 * History and bulk edits over REST v3 (docs/contract.md §13): the value history of an
 * entity or a property, and bulk edits of a property's values (a job, or a dry run).
 */
import type { FastifyInstance } from 'fastify';
import { principalKindOf } from '../domain/principal.js';
import { parseShape } from '../domain/shapes/shape.js';
import type { Services } from '../services/index.js';
import { bulkEditShape } from './bodies/bulkEdit.js';
import { intParam, stringParam, type Query } from './params.js';

export async function historyRoutes(app: FastifyInstance, options: { services: Services }): Promise<void> {
  const { history, bulkEdits } = options.services;

  app.get('/history', async (request) => {
    const q = request.query as Query;
    const page = await history.valueHistory(request.caller, {
      urn: stringParam(q, 'urn') || null,
      property: stringParam(q, 'property') || null,
      count: intParam(q, 'count') ?? null,
      scrollId: stringParam(q, 'scrollId') || null,
    });
    // Whether each actor is a person, a machine or the system is read from its urn (domain/principal.ts).
    const entries = page.entries.map((e) => ({ ...e, actorType: principalKindOf(e.actor) }));
    const events = page.events.map((e) => ({ ...e, actorType: principalKindOf(e.actor) }));
    return { ...(page.scrollId ? { scrollId: page.scrollId } : {}), entries, events };
  });

  app.post('/values/bulk', async (request, reply) => {
    const body = parseShape(bulkEditShape, request.body, 'request body');
    const answer = await bulkEdits.edit(request.caller, body);
    if (answer.dryRun) {
      const { jobId: _none, ...preview } = answer;
      return preview;
    }
    return reply.code(202).send({ jobId: answer.jobId, job: `/jobs/${answer.jobId}`, propertyUrn: answer.propertyUrn, operation: answer.operation, entities: answer.entities, limit: answer.limit });
  });
}
