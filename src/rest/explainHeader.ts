/**
 * `X-Propgraph-Explain: true` from an admin: the response carries, in the header
 * `X-Propgraph-Engine-Requests` (base64url of a JSON list), every request the searches
 * it ran sent to Meilisearch, on REST and GraphQL alike. For looking into how a query
 * is planned, and for the benchmarks' raw baseline (the same request sent directly).
 */
import type { FastifyInstance } from 'fastify';
import { explainingSearches, type EngineRequest } from '../services/searchService.js';

const ASK = 'x-propgraph-explain';
export const ENGINE_REQUESTS_HEADER = 'x-propgraph-engine-requests';

declare module 'fastify' {
  interface FastifyRequest {
    engineRequests: EngineRequest[] | null;
  }
}

export function installExplainHeader(app: FastifyInstance): void {
  app.decorateRequest('engineRequests', null);
  // Callback style on purpose: `done` runs the handler inside the record's context.
  app.addHook('preHandler', (request, _reply, done) => {
    if (request.headers[ASK] !== 'true' || request.caller?.scope !== 'admin') return done();
    const record: EngineRequest[] = [];
    request.engineRequests = record;
    explainingSearches(record, done);
  });
  app.addHook('onSend', async (request, reply, payload) => {
    if (request.engineRequests) reply.header(ENGINE_REQUESTS_HEADER, Buffer.from(JSON.stringify(request.engineRequests)).toString('base64url'));
    return payload;
  });
}
