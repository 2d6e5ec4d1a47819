/**
 * The process's Prometheus metrics (prom-client): one registry and every family the
 * server exports, defined here so that each part of the server (a route, the store's
 * statements, the indexer, a job, the metadata-test evaluation, and whatever is added
 * later) counts into the same family. docs/operations.md lists them.
 *
 * Families that describe shared state (the database pool, the change log, the job
 * table, Meilisearch's task queue) are sampled when /metrics is scraped, by the
 * samplers the running server registers (metricSamplers.ts); everything else is
 * counted where it happens, with label values from small fixed sets.
 */
import client from 'prom-client';

export const metricsRegistry = new client.Registry();

/** Process memory, CPU, handles, GC pauses, and the event loop's delay (prom-client samples it with monitorEventLoopDelay). */
client.collectDefaultMetrics({ register: metricsRegistry, eventLoopMonitoringPrecision: 10 });

const registers = [metricsRegistry];

/** Request latencies: 1 ms to 30 s. */
const REQUEST_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** Statement and engine-call latencies: 0.1 ms to 10 s. */
const CALL_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 2.5, 10];

// HTTP, by the route's pattern (never the URL with its values).

export const httpRequestDuration = new client.Histogram({
  name: 'propgraph_http_request_duration_seconds',
  help: 'HTTP requests by route pattern: time from arrival to the end of the answer (_count is the number of requests)',
  labelNames: ['method', 'route'] as const,
  buckets: REQUEST_BUCKETS,
  registers,
});

export const httpRequests = new client.Counter({
  name: 'propgraph_http_requests_total',
  help: 'HTTP requests answered, by route pattern and status code',
  labelNames: ['method', 'route', 'status'] as const,
  registers,
});

export const httpRequestErrors = new client.Counter({
  name: 'propgraph_http_request_errors_total',
  help: 'HTTP answers with a 4xx (kind="client") or 5xx (kind="server") status, by route pattern',
  labelNames: ['method', 'route', 'kind'] as const,
  registers,
});

// The write path: how many writes each statement carried (group commit, services/aspects/groupCommit.ts).

export const writesPerStatement = new client.Histogram({
  name: 'propgraph_writes_per_statement',
  help: 'Writes (requests or job chunks) that shared one guarded statement and its commit; _count is the statements',
  buckets: [1, 2, 4, 8, 16, 32, 64, 128],
  registers,
});

// GraphQL, by operation.

export const graphqlOperationDuration = new client.Histogram({
  name: 'propgraph_graphql_operation_duration_seconds',
  help: 'GraphQL operations by name and type: time from arrival to the answer (_count is the number of operations)',
  labelNames: ['operation', 'type'] as const,
  buckets: REQUEST_BUCKETS,
  registers,
});

export const graphqlOperationErrors = new client.Counter({
  name: 'propgraph_graphql_operation_errors_total',
  help: 'GraphQL operations answered with errors, by name and type',
  labelNames: ['operation', 'type'] as const,
  registers,
});

// PostgreSQL.

export const dbStatementDuration = new client.Histogram({
  name: 'propgraph_db_statement_duration_seconds',
  help: 'Database statements by operation (a statement name, write, or the leading SQL keyword), pool wait included',
  labelNames: ['operation'] as const,
  buckets: CALL_BUCKETS,
  registers,
});

export const dbPoolConnections = new client.Gauge({
  name: 'propgraph_db_pool_connections',
  help: 'The pg pool: connections open (total), idle, and requests waiting for one (waiting); sampled at scrape',
  labelNames: ['state'] as const,
  registers,
});

// The change log and the search index.

export const changeLogPosition = new client.Gauge({
  name: 'propgraph_change_log_position',
  help: 'The highest change-log id written (every replica); sampled at scrape',
  registers,
});

export const indexAppliedPosition = new client.Gauge({
  name: 'propgraph_index_applied_position',
  help: 'The change-log id up to which every change is in the search index; sampled at scrape',
  registers,
});

export const indexerLagChanges = new client.Gauge({
  name: 'propgraph_indexer_lag_changes',
  help: 'Changes committed and not yet in the search index; sampled at scrape',
  registers,
});

export const indexerLagSeconds = new client.Gauge({
  name: 'propgraph_indexer_lag_seconds',
  help: 'Age of the oldest change not yet in the search index (0 when none waits); sampled at scrape',
  registers,
});

export const indexedChanges = new client.Counter({
  name: 'propgraph_indexer_indexed_changes_total',
  help: 'Changes this process has applied to the search index',
  registers,
});

export const searchRequestDuration = new client.Histogram({
  name: 'propgraph_search_request_duration_seconds',
  help: 'Requests to Meilisearch by method and path pattern',
  labelNames: ['operation'] as const,
  buckets: CALL_BUCKETS,
  registers,
});

export const searchTasks = new client.Gauge({
  name: 'propgraph_search_tasks',
  help: 'Meilisearch tasks by status (enqueued, processing), engine-wide; absent when the engine does not answer; sampled at scrape',
  labelNames: ['status'] as const,
  registers,
});

// Authentication.

export const throttledLookups = new client.Counter({
  name: 'propgraph_auth_throttled_lookups_total',
  help: 'Tokens from client addresses past AUTH_FAILURES_PER_MINUTE looked up in a shared statement (outcome: queued, or refused with the queue full)',
  labelNames: ['outcome'] as const,
  registers,
});

export const sharedLookupStatements = new client.Counter({
  name: 'propgraph_auth_shared_lookup_statements_total',
  help: 'Statements that looked up the tokens of throttled addresses (each answers every token that waited)',
  registers,
});

// Each principal's share of the server (rest/serverShare.ts).

export const shareDelays = new client.Counter({
  name: 'propgraph_http_share_delays_total',
  help: "Requests held before they started because their principal had taken more than its share of the server's time while others waited",
  registers,
});

export const shareDelaySeconds = new client.Counter({
  name: 'propgraph_http_share_delay_seconds_total',
  help: 'Time requests were held for their principal to fall back within its share of the server',
  registers,
});

// Jobs.

export const jobs = new client.Gauge({
  name: 'propgraph_jobs',
  help: 'Jobs by kind and status (pending, running, done, failed), every replica; sampled at scrape',
  labelNames: ['kind', 'status'] as const,
  registers,
});

export const jobRemainingItems = new client.Gauge({
  name: 'propgraph_job_remaining_items',
  help: 'Items still to process in pending and running jobs, by kind (jobs whose total is known); sampled at scrape',
  labelNames: ['kind'] as const,
  registers,
});

export const jobRuns = new client.Counter({
  name: 'propgraph_job_runs_total',
  help: 'Job runs this process finished, by kind and outcome (done, yielded, failed, lease_lost)',
  labelNames: ['kind', 'outcome'] as const,
  registers,
});

// Metadata tests.

/** What set off an evaluation: a request (evaluate, batchEvaluate), a change the evaluator consumed (an entity's or a test's), or a run asked for. */
export type TestEvaluationTrigger = 'request' | 'change' | 'run';
export type TestEvaluationOutcome = 'pass' | 'fail' | 'out_of_scope';

const testsEvaluated = new client.Counter({
  name: 'propgraph_metadata_tests_evaluated_total',
  help: 'Metadata tests evaluated on an entity, by outcome and trigger',
  labelNames: ['outcome', 'trigger'] as const,
  registers,
});

/** Counts tests evaluated on an entity (one, or `count` of them with the same outcome): every evaluator calls this. */
export function countTestEvaluation(outcome: TestEvaluationOutcome, trigger: TestEvaluationTrigger, count = 1): void {
  if (count > 0) testsEvaluated.inc({ outcome, trigger }, count);
}
