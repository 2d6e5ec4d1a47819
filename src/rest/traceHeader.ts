/**
 * DataHub's API tracing: every answer to a request that wrote carries a W3C
 * `traceparent` whose trace id names the writes (domain/writeTrace.ts), from the
 * request's write receipts (rest/indexStatusHeader.ts), so that the
 * client's ASYNC_WAIT can poll `POST /openapi/v1/trace/write/{traceId}`.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { traceIdOf, traceparentOf } from '../domain/writeTrace.js';

export const TRACEPARENT_HEADER = 'traceparent';

export function installTraceHeader(app: FastifyInstance): void {
  app.addHook('onSend', async (request, reply, payload) => {
    const receipt = request.receipts?.receipt;
    if (receipt?.indexStatus) {
      const nowMicros = BigInt(Date.now()) * 1000n;
      reply.header(TRACEPARENT_HEADER, traceparentOf(traceIdOf(receipt.lastChange, nowMicros), randomBytes(8).toString('hex')));
    }
    return payload;
  });
}
