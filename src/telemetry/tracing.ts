/**
 * OpenTelemetry traces, exported over OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT is set
 * and entirely off otherwise: with no exporter, `tracer` stays null and every helper
 * here returns at once, so the request path pays one comparison.
 *
 * The spans are made at propgraph's own seams (the HTTP hooks, the Apollo plugin, the
 * store's statement functions, the Meilisearch transport, the indexer and the job
 * worker) rather than by patching modules, so that each span is one of ours and its
 * cost is known. The active span travels with the async context (the SDK's
 * AsyncLocalStorage context manager), as OpenTelemetry propagates it everywhere.
 */
import {
  context,
  propagation,
  ROOT_CONTEXT,
  trace,
  SpanKind,
  SpanStatusCode,
  type Attributes,
  type Context,
  type Link,
  type Span,
  type SpanContext,
  type Tracer,
} from '@opentelemetry/api';

export { SpanKind, type Link, type Span, type SpanContext };

export interface TracingOptions {
  /** Where spans are POSTed: the endpoint's `/v1/traces` (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as given). */
  readonly tracesUrl: string;
  /** OTEL_EXPORTER_OTLP_HEADERS. */
  readonly headers: Readonly<Record<string, string>>;
  readonly serviceName: string;
  readonly serviceVersion: string;
}

export interface RunningTracing {
  /** Exports what is still buffered and switches tracing off. */
  stop(): Promise<void>;
}

let tracer: Tracer | null = null;

/** Whether spans are being made: every call site checks this before building anything. */
export function tracing(): boolean {
  return tracer !== null;
}

/**
 * Whether a span is active: statements and engine calls are traced only inside one
 * (a request, a job, an indexer batch), so background polling adds no root spans.
 */
export function inTrace(): boolean {
  return tracer !== null && trace.getActiveSpan() !== undefined;
}

/** The active span while tracing is on (the operation's, inside a GraphQL request). */
export function activeSpan(): Span | undefined {
  return tracer === null ? undefined : trace.getActiveSpan();
}

/** The SDK and the exporter are loaded only here: a server that does not trace never loads them (they take a while to load). */
export async function startTracing(options: TracingOptions): Promise<RunningTracing> {
  const [{ AsyncLocalStorageContextManager }, { W3CTraceContextPropagator }, { OTLPTraceExporter }, { resourceFromAttributes }, { BasicTracerProvider, BatchSpanProcessor }] = await Promise.all([
    import('@opentelemetry/context-async-hooks'),
    import('@opentelemetry/core'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/sdk-trace-base'),
  ]);
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  const exporter = new OTLPTraceExporter({ url: options.tracesUrl, headers: { ...options.headers } });
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': options.serviceName, 'service.version': options.serviceVersion }),
    spanProcessors: [new BatchSpanProcessor(exporter, { scheduledDelayMillis: 1000 })],
  });
  trace.setGlobalTracerProvider(provider);
  tracer = provider.getTracer('propgraph', options.serviceVersion);
  return {
    stop: async () => {
      tracer = null;
      await provider.shutdown();
      trace.disable();
      propagation.disable();
      context.disable();
    },
  };
}

/**
 * Runs `fn` inside a new span, child of the active one, and ends the span when `fn`
 * settles (an error marks it failed). Call only when tracing() is true.
 */
export async function inSpan<T>(name: string, kind: SpanKind, attributes: Attributes, fn: (span: Span) => Promise<T>, links?: Link[]): Promise<T> {
  return tracer!.startActiveSpan(name, { kind, attributes, ...(links && links.length > 0 ? { links } : {}) }, async (span) => {
    try {
      return await fn(span);
    } catch (err) {
      failSpan(span, err);
      throw err;
    } finally {
      span.end();
    }
  });
}

/** Starts a span that the caller ends (an HTTP request's, ended when the answer is sent), with its context. */
export function startSpan(name: string, kind: SpanKind, attributes: Attributes, parent: Context): { span: Span; context: Context } {
  const span = tracer!.startSpan(name, { kind, attributes }, parent);
  return { span, context: trace.setSpan(parent, span) };
}

export function failSpan(span: Span, err: unknown): void {
  span.recordException(err instanceof Error ? err : String(err));
  span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message.slice(0, 200) : undefined });
}

/** The context an incoming request continues: the trace its `traceparent` header names, if any. */
export function incomingContext(headers: Readonly<Record<string, string | string[] | undefined>>): Context {
  return propagation.extract(context.active(), headers);
}

/** Runs `fn` (and what it starts) inside `ctx`. */
export function runInContext<T>(ctx: Context, fn: () => T): T {
  return context.with(ctx, fn);
}

/**
 * Runs `fn` outside any trace: background work a request merely happens to start (a
 * cache refreshed because it was read) is not that request's work, and its statements
 * must not show up in the request's trace.
 */
export function outsideTrace<T>(fn: () => T): T {
  return context.with(ROOT_CONTEXT, fn);
}

/** The active span's context as a W3C traceparent, to record beside work done later for it; null when tracing is off or no span is active. */
export function activeTraceparent(): string | null {
  if (tracer === null) return null;
  const spanContext = trace.getActiveSpan()?.spanContext();
  if (!spanContext || !trace.isSpanContextValid(spanContext)) return null;
  return `00-${spanContext.traceId}-${spanContext.spanId}-0${(spanContext.traceFlags & 1).toString(16)}`;
}

/** Links to the spans that recorded these traceparents (at most `max`, distinct), for work done on behalf of many. */
export function linksTo(traceparents: Iterable<string | null>, max = 64): Link[] {
  const links: Link[] = [];
  const seen = new Set<string>();
  for (const value of traceparents) {
    if (value === null || seen.has(value) || links.length >= max) continue;
    seen.add(value);
    const m = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/.exec(value);
    if (m) links.push({ context: { traceId: m[1]!, spanId: m[2]!, traceFlags: parseInt(m[3]!, 16), isRemote: true } });
  }
  return links;
}
