/**
 * DataHub's write trace (`POST /openapi/v1/trace/write/{traceId}`), which its Python
 * client polls after an ASYNC_WAIT write until nothing is PENDING. The trace id comes
 * from the `traceparent` header of the write's answer (rest/traceHeader.ts).
 */
import type { FastifyInstance } from 'fastify';
import { parseShape } from '../domain/shapes/shape.js';
import type { Services } from '../services/index.js';
import { traceRequestShape } from './bodies/datahubBatches.js';

export async function traceRoutes(app: FastifyInstance, options: { services: Services }): Promise<void> {
  app.post('/trace/write/:traceId', async (request) => {
    const { traceId } = request.params as { traceId: string };
    // onlyIncludeErrors and detailed change nothing here: every answer is detailed, and errors are never hidden.
    const asked = parseShape(traceRequestShape, request.body, 'request body');
    const traces = await options.services.entities.traceWrites(request.caller, traceId, new Map(Object.entries(asked)));
    return Object.fromEntries([...traces].map(([urn, aspects]) => [urn, Object.fromEntries(aspects)]));
  });
}
