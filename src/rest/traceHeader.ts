/**
 * DataHub's API tracing: every answer to a request that wrote carries a W3C
 * `traceparent` whose trace id names the writes (domain/writeTrace.ts), so that the
 * client's ASYNC_WAIT can poll `POST /openapi/v1/trace/write/{traceId}`.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { traceIdOf, traceparentOf } from '../domain/writeTrace.js';

export const TRACEPARENT_HEADER = 'traceparent';

export function installTraceHeader(app: FastifyInstance): void {
  app.addHook('onSend', async (request, reply, payload) => {
    const report = request.indexStatus;
    if (report?.status) {
      const nowMicros = BigInt(Date.now()) * 1000n;
      reply.header(TRACEPARENT_HEADER, traceparentOf(traceIdOf(report.lastChange, nowMicros), randomBytes(8).toString('hex')));
    }
    return payload;
  });
}
