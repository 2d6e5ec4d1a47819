/**
 * OpenTelemetry traces (docs/operations.md), received by a real OTLP/HTTP receiver: one
 * REST write's trace holds its HTTP span, the SQL statement that applied the write, and
 * leads (span links) to the indexer's work that put it in Meilisearch; a GraphQL
 * operation has its operation and root-resolver spans; a caller's traceparent is
 * continued; DataHub's write-trace header stays as it was.
 */
import { enc, http } from '../support/http.js';
import { expectEvery } from '../support/nonEmpty.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../support/otlpReceiver.js';
import { searchAvailableForTests, startTestServer, type TestServer } from '../support/server.js';
import { waitFor } from '../support/waitFor.js';

const V3 = '/openapi/v3';
const PROPERTY = 'urn:li:structuredProperty:tracing.tier';
const ds = (name: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,${name},PROD)`;

let receiver: OtlpReceiver;
let server: TestServer;

const durationMs = (span: ReceivedSpan) => Number(span.endNanos - span.startNanos) / 1e6;

/** The span tree under `root`, one line per span, indented by depth; runs of childless siblings of one name (task polls) on one line. */
function tree(spans: readonly ReceivedSpan[], root: ReceivedSpan, depth = 0): string[] {
  const lines = [`${'  '.repeat(depth)}${root.name} (${durationMs(root).toFixed(1)} ms)`];
  const children = spans.filter((s) => s.parentSpanId === root.spanId).sort((a, b) => (a.startNanos < b.startNanos ? -1 : 1));
  for (let i = 0; i < children.length; ) {
    const child = children[i]!;
    let run = 1;
    while (children[i + run]?.name === child.name && !spans.some((s) => s.parentSpanId === children[i + run - 1]!.spanId)) run++;
    if (run > 1) {
      const total = children.slice(i, i + run).reduce((sum, s) => sum + durationMs(s), 0);
      lines.push(`${'  '.repeat(depth + 1)}${child.name} ×${run} (${total.toFixed(1)} ms in all)`);
    } else lines.push(...tree(spans, child, depth + 1));
    i += run;
  }
  return lines;
}

function writeTraceSpans(request: ReceivedSpan): ReceivedSpan[] {
  return receiver.spans.filter((s) => s.traceId === request.traceId);
}

function ancestors(spans: readonly ReceivedSpan[], span: ReceivedSpan): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (let parent = spans.find((s) => s.spanId === span.parentSpanId); parent; parent = spans.find((s) => s.spanId === parent!.parentSpanId)) out.push(parent);
  return out;
}

const suite = searchAvailableForTests() ? describe : describe.skip;

suite('traces over OTLP/HTTP', () => {
  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    server = await startTestServer({ search: true, env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_SERVICE_NAME: 'propgraph-under-test' } });
    const defined = await http(server.url, 'POST', `${V3}/entity/structuredProperty/${enc(PROPERTY)}/propertyDefinition`, {
      query: { createIfNotExists: 'false' },
      json: { value: { qualifiedName: 'tracing.tier', valueType: 'urn:li:dataType:svc.string', entityTypes: ['urn:li:entityType:svc.dataset'] } },
    });
    expect(defined.status).toBe(200);
  });
  afterAll(async () => {
    await server?.stop();
    await receiver?.close();
  });

  test("one REST write's trace covers its SQL statement, and the indexer's update of it is linked", async () => {
    const urn = ds('tracing.write');
    const write = await http(server.url, 'POST', `${V3}/entity/dataset`, {
      json: [{ urn, status: { value: { removed: false } }, structuredProperties: { value: { properties: [{ propertyUrn: PROPERTY, values: [{ string: 'gold' }] }] } } }],
    });
    expect(write.status).toBe(200);
    // DataHub's write trace is untouched: its id names the write, and the request's span records it.
    const datahubTraceId = /^00-([0-9a-f]{32})-[0-9a-f]{16}-01$/.exec(write.headers.get('traceparent') ?? '')?.[1];
    expect(datahubTraceId).toBeDefined();

    const request = await waitFor('the write request span', 30_000, async () =>
      receiver.spans.find((s) => s.kind === 2 && s.attributes['http.route'] === '/openapi/v3/entity/:entityName' && s.attributes['datahub.write_trace_id'] === datahubTraceId),
    );
    expect(request.name).toBe('POST /openapi/v3/entity/:entityName');
    expect(request.attributes['http.response.status_code']).toBe(200);
    expect(request.serviceName).toBe('propgraph-under-test');
    expectEvery(receiver.contentTypes, (t) => t.startsWith('application/json'), 'the content types the receiver was sent');

    // The statement that applied the write, under the request's span.
    const statement = await waitFor(`the write statement span in\n${tree(receiver.spans, request).join('\n')}`, 30_000, async () =>
      receiver.spans.find((s) => s.traceId === request.traceId && s.name === 'pg write'),
    );
    expect(statement.attributes['db.query.text']).toMatch(/^\s*WITH /);
    // Every statement of the write carries its SQL (the load, the applying statement, the index wait's check), on the driver's spans.
    const statements = writeTraceSpans(request).filter((s) => s.attributes['db.system'] === 'postgresql');
    expect(statements.map((s) => s.name)).toContain('pg write');
    expectEvery(statements, (s) => s.name === `pg ${String(s.attributes['db.operation.name'])}` && /^\s*(WITH|SELECT|INSERT|UPDATE|DELETE|BEGIN|COMMIT|ROLLBACK)\b/i.test(String(s.attributes['db.query.text'])), "the write's statement spans");
    // The wait for the index is part of the write's trace.
    const wait = writeTraceSpans(request).find((s) => s.name === 'search.index wait');
    expect(wait?.attributes['propgraph.index_status']).toBe('indexed');
    expect(ancestors(receiver.spans, statement).map((s) => s.spanId)).toContain(request.spanId);
    expect(statement.attributes['db.system']).toBe('postgresql');

    // The indexer's work for the write: a span linked to the write's trace, sending the documents to Meilisearch.
    const indexed = await waitFor('the indexer span linked to the write', 30_000, async () =>
      receiver.spans.find((s) => s.name === 'search.index send' && s.links.some((l) => l.traceId === request.traceId)),
    );
    const send = await waitFor('the documents sent to Meilisearch', 30_000, async () =>
      receiver.spans.find((s) => s.parentSpanId === indexed.spanId && s.name === 'meilisearch POST /indexes/{index}/documents'),
    );
    expect(send.kind).toBe(3);
    const confirmed = await waitFor('the indexer confirming the batch', 30_000, async () =>
      receiver.spans.find((s) => s.name === 'search.index confirm' && s.links.some((l) => l.traceId === request.traceId)),
    );

    const writeTrace = receiver.spans.filter((s) => s.traceId === request.traceId);
    const indexerSpans = receiver.spans.filter((s) => s.traceId === indexed.traceId || s.traceId === confirmed.traceId);
    console.log(
      ['The write:', ...tree(writeTrace, request), 'The indexer, linked to it:', ...tree(indexerSpans, indexed), ...tree(indexerSpans, confirmed)].join('\n'),
    );
  });

  test('a GraphQL operation has its span and its root resolver span, with the statements under them', async () => {
    const answer = await http(server.url, 'POST', '/api/graphql', { json: { query: `query TraceProbe { dataset(urn: "${ds('tracing.write')}") { urn } }` } });
    expect(answer.status).toBe(200);
    const operation = await waitFor('the operation span', 30_000, async () => receiver.spans.find((s) => s.name === 'query TraceProbe'));
    expect(operation.attributes).toMatchObject({ 'graphql.operation.type': 'query', 'graphql.operation.name': 'TraceProbe' });
    const httpSpan = receiver.spans.find((s) => s.spanId === operation.parentSpanId);
    expect(httpSpan?.name).toBe('POST /api/graphql');
    const resolver = await waitFor('the resolver span', 30_000, async () => receiver.spans.find((s) => s.parentSpanId === operation.spanId && s.name === 'resolve Query.dataset'));
    const statements = receiver.spans.filter((s) => s.traceId === operation.traceId && s.attributes['db.system'] === 'postgresql');
    expectEvery(statements, (s) => ancestors(receiver.spans, s).some((a) => a.spanId === resolver.spanId), "the operation's statement spans");
  });

  test("a caller's traceparent is continued", async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const parent = '00f067aa0ba902b7';
    await http(server.url, 'GET', '/health/live', { headers: { traceparent: `00-${traceId}-${parent}-01` } });
    const span = await waitFor('the continued span', 30_000, async () => receiver.spans.find((s) => s.traceId === traceId));
    expect(span).toMatchObject({ name: 'GET /health/live', parentSpanId: parent });
  });
});
