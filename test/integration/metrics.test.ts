/**
 * /metrics as a Prometheus scrape reads it (docs/operations.md): behind a token on the
 * API's port, without one on METRICS_PORT, and each family moving when its work
 * happens: a REST call, a GraphQL operation, a write that reaches the index, a hard
 * delete's cleanup job, an evaluation of metadata tests; labels are route patterns
 * and operation names, never a URL with its values.
 */
import { enc, http, indexCaughtUp, type HttpResponse } from '../support/http.js';
import { searchAvailableForTests, startTestServer, type TestServer } from '../support/server.js';
import { waitFor } from '../support/waitFor.js';

const V3 = '/openapi/v3';
const ROOT_TOKEN = 'metrics-suite-root-token-0123456789';
const AUTH = { authorization: `Bearer ${ROOT_TOKEN}` };
const ds = (name: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,${name},PROD)`;

/** One sample: the family's name, its labels, its value. */
interface Sample {
  readonly name: string;
  readonly labels: Record<string, string>;
  readonly value: number;
}

function parseScrape(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`not a Prometheus sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const pair of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[pair[1]!] = pair[2]!.replace(/\\(.)/g, '$1');
    samples.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return samples;
}

let server: TestServer;

async function scrape(): Promise<Sample[]> {
  const res = await http(server.url, 'GET', '/metrics', { headers: AUTH });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return parseScrape(res.text);
}

/** The sum of the samples of `name` whose labels include `labels`. */
function total(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  return samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)).reduce((sum, s) => sum + s.value, 0);
}

function has(samples: Sample[], name: string, labels: Record<string, string> = {}): boolean {
  return samples.some((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
}

async function ok(res: Promise<HttpResponse>): Promise<HttpResponse> {
  const r = await res;
  if (r.status !== 200) throw new Error(`expected 200, got ${r.status}: ${r.text}`);
  return r;
}

async function defineProperty(name: string): Promise<string> {
  const urn = `urn:li:structuredProperty:${name}`;
  await ok(
    http(server.url, 'POST', `${V3}/entity/structuredProperty/${enc(urn)}/propertyDefinition`, {
      headers: AUTH,
      query: { createIfNotExists: 'false' },
      json: { value: { qualifiedName: name, valueType: 'urn:li:dataType:svc.string', entityTypes: ['urn:li:entityType:svc.dataset'] } },
    }),
  );
  return urn;
}

async function writeDataset(urn: string, propertyUrn: string, value: string): Promise<void> {
  await ok(
    http(server.url, 'POST', `${V3}/entity/dataset`, {
      headers: AUTH,
      json: [{ urn, status: { value: { removed: false } }, structuredProperties: { value: { properties: [{ propertyUrn, values: [{ string: value }] }] } } }],
    }),
  );
}

const suite = searchAvailableForTests() ? describe : describe.skip;

suite('/metrics', () => {
  beforeAll(async () => {
    server = await startTestServer({ search: true, env: { AUTH_ENABLED: 'true', ROOT_TOKEN, METRICS_PORT: '0' } });
  });
  afterAll(async () => {
    await server?.stop();
  });

  test('needs a token on the API port, and none on METRICS_PORT, which serves nothing else', async () => {
    expect((await http(server.url, 'GET', '/metrics')).status).toBe(401);
    expect(server.metricsUrl).toBeDefined();
    const open = await fetch(server.metricsUrl!);
    expect(open.status).toBe(200);
    expect(await open.text()).toContain('# TYPE propgraph_http_requests_total counter');
    const other = await fetch(new URL('/health', server.metricsUrl!));
    expect(other.status).toBe(404);
    expect(await other.json()).toEqual({ error: 'Not Found', message: 'This port serves only GET /metrics' });
  });

  test('a REST call counts under its route pattern, never its URL', async () => {
    const urn = ds('metrics.rest');
    const route = '/openapi/v3/entity/:entityName/:urn';
    const before = await scrape();
    const read = await http(server.url, 'GET', `${V3}/entity/dataset/${enc(urn)}`, { headers: AUTH });
    expect(read.status).toBe(404);
    const after = await scrape();
    const labels = { method: 'GET', route };
    expect(total(after, 'propgraph_http_request_duration_seconds_count', labels) - total(before, 'propgraph_http_request_duration_seconds_count', labels)).toBe(1);
    expect(total(after, 'propgraph_http_requests_total', { ...labels, status: '404' }) - total(before, 'propgraph_http_requests_total', { ...labels, status: '404' })).toBe(1);
    expect(total(after, 'propgraph_http_request_errors_total', { ...labels, kind: 'client' }) - total(before, 'propgraph_http_request_errors_total', { ...labels, kind: 'client' })).toBe(1);
    expect(after.some((s) => Object.values(s.labels).some((v) => v.includes('metrics.rest')))).toBe(false);

    // A path no route serves is counted without its text.
    await http(server.url, 'GET', '/no/such/path/metrics.secret', { headers: AUTH });
    const unmatched = await scrape();
    expect(has(unmatched, 'propgraph_http_requests_total', { route: '(no route)', status: '404' })).toBe(true);
    expect(unmatched.some((s) => Object.values(s.labels).some((v) => v.includes('metrics.secret')))).toBe(false);
  });

  test('a GraphQL operation counts under its name and type, and its errors too', async () => {
    const before = await scrape();
    const query = (document: string) => http(server.url, 'POST', '/api/graphql', { headers: AUTH, json: { query: document } });
    expect((await query('query MetricsProbe { listTests(input: {start: 0, count: 1}) { total } }')).status).toBe(200);
    await query('query MetricsBroken { dataset(urn: "not a urn") { urn } }');
    const after = await scrape();
    const probe = { operation: 'MetricsProbe', type: 'query' };
    const broken = { operation: 'MetricsBroken', type: 'query' };
    expect(total(after, 'propgraph_graphql_operation_duration_seconds_count', probe) - total(before, 'propgraph_graphql_operation_duration_seconds_count', probe)).toBe(1);
    expect(total(after, 'propgraph_graphql_operation_errors_total', probe)).toBe(0);
    expect(total(after, 'propgraph_graphql_operation_errors_total', broken) - total(before, 'propgraph_graphql_operation_errors_total', broken)).toBe(1);
  });

  test('a write that reaches the index moves the statement, indexer, search and pool families', async () => {
    const property = await defineProperty('metrics.indexed');
    const before = await scrape();
    await writeDataset(ds('metrics.indexed'), property, 'one');
    await indexCaughtUp(server.url);
    const after = await waitFor('the indexer to count the write', 30_000, async () => {
      const now = await scrape();
      return total(now, 'propgraph_indexer_indexed_changes_total') > total(before, 'propgraph_indexer_indexed_changes_total') ? now : undefined;
    });
    // The write's own statement, and the reads around it (the write path's load, the page the indexer read).
    const write = { operation: 'write' };
    expect(total(after, 'propgraph_db_statement_duration_seconds_count', write)).toBeGreaterThan(total(before, 'propgraph_db_statement_duration_seconds_count', write));
    for (const read of [{ operation: 'select' }, { operation: 'read_entity_page' }]) {
      expect(total(after, 'propgraph_db_statement_duration_seconds_count', read)).toBeGreaterThan(total(before, 'propgraph_db_statement_duration_seconds_count', read));
    }
    expect(total(after, 'propgraph_db_pool_connections', { state: 'total' })).toBeGreaterThan(0);
    expect(has(after, 'propgraph_db_pool_connections', { state: 'waiting' })).toBe(true);
    // Caught up: nothing waits, and the index has applied everything the log holds.
    expect(total(after, 'propgraph_indexer_lag_changes')).toBe(0);
    expect(total(after, 'propgraph_indexer_lag_seconds')).toBe(0);
    expect(total(after, 'propgraph_change_log_position')).toBeGreaterThan(total(before, 'propgraph_change_log_position'));
    expect(total(after, 'propgraph_index_applied_position')).toBe(total(after, 'propgraph_change_log_position'));
    // The documents went to Meilisearch, whose queue is sampled.
    const documents = { operation: 'POST /indexes/{index}/documents' };
    expect(total(after, 'propgraph_search_request_duration_seconds_count', documents)).toBeGreaterThan(total(before, 'propgraph_search_request_duration_seconds_count', documents));
    expect(has(after, 'propgraph_search_tasks', { status: 'enqueued' })).toBe(true);
    expect(has(after, 'propgraph_search_tasks', { status: 'processing' })).toBe(true);
  });

  test('a hard delete runs its cleanup job, counted by kind and status', async () => {
    const property = await defineProperty('metrics.deleted');
    await writeDataset(ds('metrics.deleted'), property, 'gone');
    const before = await scrape();
    await ok(http(server.url, 'DELETE', `${V3}/entity/structuredProperty/${enc(property)}`, { headers: AUTH }));
    const kind = 'cleanup-property-values';
    const after = await waitFor('the cleanup job to be done', 60_000, async () => {
      const now = await scrape();
      return total(now, 'propgraph_jobs', { kind, status: 'done' }) > total(before, 'propgraph_jobs', { kind, status: 'done' }) ? now : undefined;
    });
    expect(total(after, 'propgraph_job_runs_total', { kind, outcome: 'done' }) - total(before, 'propgraph_job_runs_total', { kind, outcome: 'done' })).toBe(1);
    expect(total(after, 'propgraph_job_remaining_items', { kind })).toBe(0);
  });

  test('evaluating metadata tests counts each test by outcome', async () => {
    const urn = ds('metrics.evaluated');
    await ok(http(server.url, 'POST', `${V3}/entity/dataset`, { headers: AUTH, json: [{ urn, status: { value: { removed: false } } }] }));
    for (const [id, rules] of [
      ['metrics-pass', [{ property: 'status.removed', operator: 'exists' }]],
      ['metrics-fail', [{ property: 'datasetProperties.description', operator: 'exists' }]],
    ] as const) {
      await ok(
        http(server.url, 'POST', `${V3}/entity/test/${enc(`urn:li:test:${id}`)}/testInfo`, {
          headers: AUTH,
          query: { createIfNotExists: 'false' },
          json: { value: { name: id, category: 'Metrics', definition: { type: 'JSON', json: JSON.stringify({ on: { types: ['dataset'] }, rules }) } } },
        }),
      );
    }
    const before = await scrape();
    await ok(http(server.url, 'POST', '/gms/test', { headers: AUTH, query: { action: 'evaluate' }, json: { urn, testUrns: ['urn:li:test:metrics-pass', 'urn:li:test:metrics-fail'] } }));
    const after = await scrape();
    const moved = (outcome: string) =>
      total(after, 'propgraph_metadata_tests_evaluated_total', { outcome, trigger: 'request' }) - total(before, 'propgraph_metadata_tests_evaluated_total', { outcome, trigger: 'request' });
    expect(moved('pass')).toBe(1);
    expect(moved('fail')).toBe(1);
  });

  test('process memory and event-loop delay are there', async () => {
    const samples = await scrape();
    expect(total(samples, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(has(samples, 'nodejs_eventloop_lag_p99_seconds')).toBe(true);
    expect(has(samples, 'nodejs_heap_size_used_bytes')).toBe(true);
  });
});
