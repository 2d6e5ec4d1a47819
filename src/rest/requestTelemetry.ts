/**
 * What every HTTP request leaves behind, by its route's pattern (never the URL with
 * its values): its latency, count and errors in /metrics, one access line in the log,
 * and, while tracing is on, a server span that its statements and engine calls hang
 * under.
 *
 * Cheap on purpose (the server answers a search in about a millisecond): each route gets
 * its own onResponse hook when it is registered, holding its pattern and label objects
 * made once, so a request costs the histogram observation, one counter increment and
 * the log line. Requests no route matched are handled by one shared hook.
 *
 * The access line: `POST /openapi/v3/entity/:entityName 200 4.1 ms urn:li:corpuser:ci`,
 * its fields under `access` (method, route, status, ms, principal, reqId); 5xx at warn.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction, RouteOptions } from 'fastify';
import { clipInput } from '../domain/inputLimits.js';
import type { Logger } from '../platform/logger.js';
import { httpRequestDuration, httpRequestErrors, httpRequests } from '../telemetry/metrics.js';
import { incomingContext, runInContext, SpanKind, startSpan, tracing, type Span } from '../telemetry/tracing.js';

/** The route label of a request no route matched (a 404, or a URL the router refused). */
export const NO_ROUTE = '(no route)';

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's server span while tracing is on. */
    telemetrySpan: { span: Span; context: import('@opentelemetry/api').Context } | null;
  }
}

type Labels = { method: string; route: string };

/** Per route: its pattern and the label objects its requests observe with, made once. */
class RouteObserver {
  private readonly byMethod = new Map<string, { labels: Labels; byStatus: Map<number, Labels & { status: string }> }>();

  constructor(readonly route: string) {}

  labels(method: string): { labels: Labels; byStatus: Map<number, Labels & { status: string }> } {
    let entry = this.byMethod.get(method);
    if (entry === undefined) {
      entry = { labels: { method, route: this.route }, byStatus: new Map() };
      this.byMethod.set(method, entry);
    }
    return entry;
  }
}

/** Methods a client may send that we count under their own name; anything else is counted as OTHER. */
const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

export function installRequestTelemetry(app: FastifyInstance, log: Logger): void {
  app.decorateRequest('telemetrySpan', null);
  const unmatched = new RouteObserver(NO_ROUTE);

  const finish = (observer: RouteObserver, request: FastifyRequest, reply: FastifyReply): void => {
    const method = KNOWN_METHODS.has(request.method) ? request.method : 'OTHER';
    const { labels, byStatus } = observer.labels(method);
    const status = reply.statusCode;
    const ms = reply.elapsedTime;
    httpRequestDuration.observe(labels, ms / 1000);
    let statusLabels = byStatus.get(status);
    if (statusLabels === undefined) {
      statusLabels = { ...labels, status: String(status) };
      byStatus.set(status, statusLabels);
    }
    httpRequests.inc(statusLabels);
    if (status >= 400) httpRequestErrors.inc({ ...labels, kind: status >= 500 ? 'server' : 'client' });
    const principal = request.caller ? clipInput(request.caller.actor) : '-';
    const rounded = Math.round(ms * 10) / 10;
    const line = { access: { method, route: observer.route, status, ms: rounded, principal, reqId: request.id } };
    const message = `${method} ${observer.route} ${status} ${rounded} ms ${principal}`;
    if (status >= 500) log.warn(line, message);
    else log.info(line, message);
    const traced = request.telemetrySpan;
    if (traced) {
      traced.span.setAttribute('http.response.status_code', status);
      if (status >= 500) traced.span.setStatus({ code: 2 });
      traced.span.end();
    }
  };

  app.addHook('onRoute', (route: RouteOptions) => {
    const observer = new RouteObserver(route.url ?? NO_ROUTE);
    const hook = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
      finish(observer, request, reply);
      done();
    };
    route.onResponse = route.onResponse === undefined ? [hook] : [...[route.onResponse].flat(), hook];
  });
  app.addHook('onResponse', (request, reply, done) => {
    if (request.is404) finish(unmatched, request, reply);
    done();
  });

  if (!tracing()) return;
  // A server span per request, continuing the caller's trace when it sends a traceparent.
  // The later onRequest hooks (authentication) run inside it, and so does the handler,
  // entered again in preHandler because a body is read in the socket's own async context.
  app.addHook('onRequest', (request, _reply, done) => {
    const route = request.is404 ? NO_ROUTE : (request.routeOptions.url ?? NO_ROUTE);
    const traced = startSpan(`${request.method} ${route}`, SpanKind.SERVER, { 'http.request.method': request.method, 'http.route': route }, incomingContext(request.headers));
    request.telemetrySpan = traced;
    runInContext(traced.context, done);
  });
  app.addHook('preHandler', (request, _reply, done) => {
    const traced = request.telemetrySpan;
    if (traced) runInContext(traced.context, done);
    else done();
  });
}
