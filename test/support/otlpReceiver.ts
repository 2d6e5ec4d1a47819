/**
 * A real OTLP/HTTP trace receiver for tests: an HTTP server taking the exporter's
 * `POST /v1/traces` requests as they are sent, OTLP/JSON or OTLP/protobuf (decoded with
 * the OpenTelemetry transformer's own generated protobuf types), answering as a
 * collector does, and keeping every span it received.
 */
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';

export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string | undefined;
  readonly name: string;
  readonly kind: number;
  readonly attributes: Record<string, string | number | boolean>;
  readonly links: ReadonlyArray<{ traceId: string; spanId: string }>;
  readonly startNanos: bigint;
  readonly endNanos: bigint;
  readonly serviceName: string;
}

export interface OtlpReceiver {
  /** The endpoint to give the exporter (OTEL_EXPORTER_OTLP_ENDPOINT). */
  readonly endpoint: string;
  readonly spans: ReceivedSpan[];
  /** Content types of the export requests received. */
  readonly contentTypes: string[];
  close(): Promise<void>;
}

type AnyValue = { stringValue?: string; intValue?: string | number; doubleValue?: number; boolValue?: boolean };
type KeyValue = { key: string; value: AnyValue };
type OtlpSpan = {
  traceId: string | Uint8Array;
  spanId: string | Uint8Array;
  parentSpanId?: string | Uint8Array;
  name: string;
  kind: number;
  attributes?: KeyValue[];
  links?: Array<{ traceId: string | Uint8Array; spanId: string | Uint8Array }>;
  startTimeUnixNano: string | number;
  endTimeUnixNano: string | number;
};
type ExportRequest = { resourceSpans?: Array<{ resource?: { attributes?: KeyValue[] }; scopeSpans?: Array<{ spans?: OtlpSpan[] }> }> };

const require = createRequire(import.meta.url);

/** The transformer's protobuf message type for an export request. */
function protobufRequestType(): { decode(bytes: Uint8Array): unknown; toObject(message: unknown, options: Record<string, unknown>): ExportRequest } {
  const root = require('@opentelemetry/otlp-transformer/build/src/generated/root.js') as {
    opentelemetry: { proto: { collector: { trace: { v1: { ExportTraceServiceRequest: never } } } } };
  };
  return root.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
}

const hex = (id: string | Uint8Array | undefined): string | undefined => (id === undefined || id === '' ? undefined : typeof id === 'string' ? id : Buffer.from(id).toString('hex') || undefined);

function valueOf(v: AnyValue): string | number | boolean {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  return v.doubleValue ?? '';
}

function attributesOf(list: KeyValue[] | undefined): Record<string, string | number | boolean> {
  return Object.fromEntries((list ?? []).map((kv) => [kv.key, valueOf(kv.value)]));
}

function spansOf(request: ExportRequest): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const resource of request.resourceSpans ?? []) {
    const serviceName = String(attributesOf(resource.resource?.attributes)['service.name'] ?? '');
    for (const scope of resource.scopeSpans ?? []) {
      for (const span of scope.spans ?? []) {
        out.push({
          traceId: hex(span.traceId)!,
          spanId: hex(span.spanId)!,
          parentSpanId: hex(span.parentSpanId),
          name: span.name,
          kind: span.kind,
          attributes: attributesOf(span.attributes),
          links: (span.links ?? []).map((l) => ({ traceId: hex(l.traceId)!, spanId: hex(l.spanId)! })),
          startNanos: BigInt(span.startTimeUnixNano),
          endNanos: BigInt(span.endTimeUnixNano),
          serviceName,
        });
      }
    }
  }
  return out;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const contentTypes: string[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', () => {
      const type = request.headers['content-type'] ?? '';
      if (request.method !== 'POST' || request.url !== '/v1/traces') {
        response.writeHead(404).end();
        return;
      }
      contentTypes.push(type);
      const body = Buffer.concat(chunks);
      try {
        if (type.startsWith('application/x-protobuf')) {
          const messageType = protobufRequestType();
          spans.push(...spansOf(messageType.toObject(messageType.decode(body), { longs: String, bytes: Array })));
          response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
        } else {
          spans.push(...spansOf(JSON.parse(body.toString('utf8')) as ExportRequest));
          response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
        }
      } catch (err) {
        response.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ message: (err as Error).message }));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    contentTypes,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
