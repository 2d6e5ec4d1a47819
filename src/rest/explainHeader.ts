/**
 * `X-Propgraph-Explain: true` from an admin: the response carries, in the header
 * `X-Propgraph-Engine-Requests` (base64url of a JSON list), every request the searches
 * it ran sent to Meilisearch, on REST and GraphQL alike. For looking into how a query
 * is planned, and for the benchmarks' raw baseline (the same request sent directly).
 * The search service returns what it sent with each answer; the route or resolver that
 * called it adds that to the request's list (`explained`), as write receipts are added.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { EngineRequest, Explained } from '../services/searchService.js';

const ASK = 'x-propgraph-explain';
export const ENGINE_REQUESTS_HEADER = 'x-propgraph-engine-requests';

declare module 'fastify' {
  interface FastifyRequest {
    /** The engine requests of this request's searches, when it asked to see them; null otherwise. */
    engineRequests: EngineRequest[] | null;
  }
}

/** `result`, its engine requests added to the request's when it asked to see them. */
export function explained<T extends Explained>(request: FastifyRequest, result: T): T {
  request.engineRequests?.push(...result.engineRequests);
  return result;
}

export function installExplainHeader(app: FastifyInstance): void {
  app.decorateRequest('engineRequests', null);
  app.addHook('preHandler', (request, _reply, done) => {
    if (request.headers[ASK] === 'true' && request.caller?.scope === 'admin') request.engineRequests = [];
    done();
  });
  app.addHook('onSend', async (request, reply, payload) => {
    if (request.engineRequests) reply.header(ENGINE_REQUESTS_HEADER, Buffer.from(JSON.stringify(request.engineRequests)).toString('base64url'));
    return payload;
  });
}
