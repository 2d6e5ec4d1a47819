/**
 * DataHub's API tracing: every answer to a request that wrote carries a W3C
 * `traceparent` whose trace id names the writes (domain/writeTrace.ts), from the
 * request's write receipts (rest/indexStatusHeader.ts), so that the client's
 * ASYNC_WAIT can poll `POST /openapi/v1/trace/write/{traceId}`. That id is
 * DataHub's, not an OpenTelemetry trace id (the request's trace began before the write):
 * with tracing on, the request's span carries it as `datahub.write_trace_id`.
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
      const traceId = traceIdOf(receipt.lastChange, nowMicros);
      reply.header(TRACEPARENT_HEADER, traceparentOf(traceId, randomBytes(8).toString('hex')));
      request.telemetrySpan?.span.setAttribute('datahub.write_trace_id', traceId);
    }
    return payload;
  });
}
