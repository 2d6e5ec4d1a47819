/**
 * `X-Index-Status` (docs/contract.md §12): every request that wrote answers with `indexed` when its
 * changes were in the search index before it answered, `pending` when it answered
 * first. Requests that wrote nothing carry no header. Each route (and each GraphQL
 * resolver, through its context) adds the receipts its service calls returned to the
 * request's receipts (services/writeReceipt.ts); the header tells their sum.
 */
import type { FastifyInstance } from 'fastify';
import { RequestReceipts } from '../services/writeReceipt.js';

export const INDEX_STATUS_HEADER = 'x-index-status';

declare module 'fastify' {
  interface FastifyRequest {
    /** The receipts of the writes this request made. */
    receipts: RequestReceipts;
  }
}

export function installIndexStatusHeader(app: FastifyInstance): void {
  app.decorateRequest('receipts', null as unknown as RequestReceipts);
  app.addHook('onRequest', async (request) => {
    request.receipts = new RequestReceipts();
  });
  app.addHook('onSend', async (request, reply, payload) => {
    const status = request.receipts?.receipt.indexStatus;
    if (status) reply.header(INDEX_STATUS_HEADER, status);
    return payload;
  });
}
