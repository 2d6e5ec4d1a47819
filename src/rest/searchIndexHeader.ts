/**
 * `X-Search-Index: rebuilding` on every answer while this version's search indexes are
 * being built from the database (services/searchIndex/readiness.ts): search results are
 * incomplete until then. Absent otherwise.
 */
import type { FastifyInstance } from 'fastify';

export const SEARCH_INDEX_HEADER = 'x-search-index';

export function installSearchIndexHeader(app: FastifyInstance, readiness: { readonly rebuilding: boolean }): void {
  app.addHook('onSend', async (_request, reply, payload) => {
    if (readiness.rebuilding) reply.header(SEARCH_INDEX_HEADER, 'rebuilding');
    return payload;
  });
}
