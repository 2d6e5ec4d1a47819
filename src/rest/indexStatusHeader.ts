/**
 * `X-Index-Status` (docs/contract.md §12): every request that wrote answers with `indexed` when its
 * changes were in the search index before it answered, `pending` when it answered
 * first. Requests that wrote nothing carry no header. The handler (REST or GraphQL)
 * runs inside the request's report (services/indexStatus.ts).
 */
import type { FastifyInstance } from 'fastify';
import { IndexStatusReport, withIndexStatusReport } from '../services/indexStatus.js';

export const INDEX_STATUS_HEADER = 'x-index-status';

declare module 'fastify' {
  interface FastifyRequest {
    indexStatus: IndexStatusReport | null;
  }
}

export function installIndexStatusHeader(app: FastifyInstance): void {
  app.decorateRequest('indexStatus', null);
  // Callback style on purpose: `done` runs the handler synchronously, inside the report's context.
  app.addHook('preHandler', (request, _reply, done) => {
    const report = new IndexStatusReport();
    request.indexStatus = report;
    withIndexStatusReport(report, done);
  });
  app.addHook('onSend', async (request, reply, payload) => {
    const status = request.indexStatus?.status;
    if (status) reply.header(INDEX_STATUS_HEADER, status);
    return payload;
  });
}
