/**
 * DataHub's write trace (`POST /openapi/v1/trace/write/{traceId}`), which its Python
 * client polls after an ASYNC_WAIT write until nothing is PENDING. The trace id comes
 * from the `traceparent` header of the write's answer (rest/traceHeader.ts).
 */
import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { parseShape } from '../domain/shapes/shape.js';
import type { Services } from '../services/index.js';
import { traceRequestShape } from './bodies/datahubBatches.js';
import { boolParam, type Query } from './params.js';
import { TRACE_CHUNK_BYTES, traceAnswerChunks } from './traceAnswer.js';

export async function traceRoutes(app: FastifyInstance, options: { services: Services }): Promise<void> {
  app.post('/trace/write/:traceId', async (request, reply) => {
    const { traceId } = request.params as { traceId: string };
    // As DataHub: by default only failed writes are listed. `detailed` changes nothing: every status is already in full.
    const onlyErrors = boolParam(request.query as Query, 'onlyIncludeErrors', true);
    const asked = parseShape(traceRequestShape, request.body, 'request body');
    const traces = await options.services.entities.traceWrites(request.caller, traceId, new Map(Object.entries(asked)));
    // Streamed as the client reads (traceAnswer.ts): the answer can hold 10,000 statuses.
    return reply.type('application/json; charset=utf-8').send(Readable.from(traceAnswerChunks(traces, onlyErrors), { objectMode: false, highWaterMark: TRACE_CHUNK_BYTES }));
  });
}
