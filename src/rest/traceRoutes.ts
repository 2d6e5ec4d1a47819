/**
 * DataHub's write trace (`POST /openapi/v1/trace/write/{traceId}`), which its Python
 * client polls after an ASYNC_WAIT write until nothing is PENDING. The trace id comes
 * from the `traceparent` header of the write's answer (rest/traceHeader.ts).
 */
import type { FastifyInstance } from 'fastify';
import { parseShape } from '../domain/shapes/shape.js';
import { isTraceError } from '../domain/writeTrace.js';
import type { Services } from '../services/index.js';
import { loopTurn } from '../loopTurns.js';
import { traceRequestShape } from './bodies/datahubBatches.js';
import { boolParam, type Query } from './params.js';

export async function traceRoutes(app: FastifyInstance, options: { services: Services }): Promise<void> {
  app.post('/trace/write/:traceId', async (request, reply) => {
    const { traceId } = request.params as { traceId: string };
    // As DataHub: by default only failed writes are listed. `detailed` changes nothing: every status is already in full.
    const onlyErrors = boolParam(request.query as Query, 'onlyIncludeErrors', true);
    const asked = parseShape(traceRequestShape, request.body, 'request body');
    const traces = await options.services.entities.traceWrites(request.caller, traceId, new Map(Object.entries(asked)));
    // Written an entity at a time, in the turns the whole process shares (loopTurns.ts): the answer can hold 10,000 statuses.
    const parts: string[] = [];
    for (const [urn, aspects] of traces) {
      const shown = [...aspects].filter(([, trace]) => !onlyErrors || isTraceError(trace));
      if (shown.length > 0) parts.push(`${JSON.stringify(urn)}:${JSON.stringify(Object.fromEntries(shown))}`);
      const wait = loopTurn();
      if (wait) await wait;
    }
    return reply.type('application/json; charset=utf-8').send(`{${parts.join(',')}}`);
  });
}
