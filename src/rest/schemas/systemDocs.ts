/**
 * Documentation of the routes besides the entity routes: health, jobs, access
 * tokens (rest/systemRoutes.ts, rest/tokenRoutes.ts), the metadata-test evaluation
 * (rest/testRoutes.ts) and system-update.
 */
import { DATASET_URN, JOB, JOB_SUMMARY, OTHER_DATASET_URN, TEST_URN, TOKEN_METADATA } from './examples.js';
import { bodyErrors, commonErrors, ERRORS, NO_BODY, ref, scopeNote, type RouteDoc } from './routeDoc.js';

const EVALUATION = { passing: [{ test: TEST_URN, type: 'SUCCESS' }], failing: [] };

const READINESS = { type: 'object', properties: { status: { type: 'string', enum: ['ready', 'not ready'] }, reason: { type: 'string' } }, required: ['status'] };

const TRACE_ID = '0000063e6c3c5a40000000000000002a';

export const SYSTEM_ROUTE_DOCS: Record<string, RouteDoc> = {
  'POST /openapi/v1/trace/write/{traceId}': {
    operationId: 'traceWrites',
    summary: 'Status of traced writes (DataHub API tracing)',
    description:
      'Every answer to a request that wrote carries `traceparent: 00-<trace id>-<span id>-01`. Asked with that trace id about entities and aspects, this says per aspect whether the write is stored (`primaryStorage`) and searchable (`searchStorage`): `ACTIVE_STATE`, `PENDING` while the search index has not caught up (DataHub\'s client polls again), `NO_OP` on the search side when search is disabled, `UNKNOWN` when the aspect is not stored. Exactly the entities and aspects asked about are answered, and, unless `onlyIncludeErrors=false`, only those whose write failed (as DataHub, whose client always sends `false`).' +
      scopeNote('read'),
    tags: ['Entities (v3)'],
    path: { traceId: { description: 'The 32 hex digits of the write answer\'s `traceparent` after `00-`.', schema: { type: 'string', pattern: '^[0-9a-fA-F]{32}$' }, example: TRACE_ID } },
    query: {
      onlyIncludeErrors: { description: 'Only aspects whose write failed (a committed write never does here); `false` for every status.', schema: { type: 'boolean', default: true } },
      detailed: { description: 'Accepted for DataHub\'s client; answers are always detailed.', schema: { type: 'boolean', default: false } },
    },
    body: {
      description: 'Per entity URN, the aspects to report on.',
      schema: ref('TraceRequest'),
      examples: { oneAspect: { summary: 'One aspect of a dataset', value: { [DATASET_URN]: ['status'] } } },
    },
    responses: {
      200: {
        description: 'Per URN and aspect, the write status (with `onlyIncludeErrors=false`).',
        schema: ref('TraceAnswer'),
        examples: {
          done: { summary: 'Stored and indexed', value: { [DATASET_URN]: { status: { success: true, primaryStorage: { writeStatus: 'ACTIVE_STATE' }, searchStorage: { writeStatus: 'ACTIVE_STATE' } } } } },
          pending: { summary: 'Index not caught up yet', value: { [DATASET_URN]: { status: { success: true, primaryStorage: { writeStatus: 'ACTIVE_STATE' }, searchStorage: { writeStatus: 'PENDING' } } } } },
        },
      },
      400: ERRORS.validation({
        traceId: { summary: 'Not a trace id', value: { error: 'Validation Error', message: 'traceId "xyz" is not a trace id: send the 32 hex digits after "00-" in the traceparent header of the write\'s answer' } },
      }),
      ...bodyErrors(),
      ...commonErrors('read', 'entities.traceWrites'),
    },
  },
  'GET /health': {
    operationId: 'health',
    summary: 'Health of the server and its components',
    description: 'Database, job queue and change log state. No token needed. 503 when a component is down.',
    tags: ['System'],
    public: true,
    rootOnly: true,
    responses: {
      200: {
        description: 'Everything works.',
        schema: { type: 'object', properties: { status: { type: 'string', enum: ['ok', 'degraded'] } }, additionalProperties: { type: 'object' } },
        examples: {
          ok: {
            summary: 'Healthy',
            value: {
              status: 'ok',
              database: { ok: true, kind: 'embedded' },
              jobs: { ok: true, pending: 0, running: 0, done: 3, failed: 0 },
              changeLog: { ok: true, pending: 0 },
            },
          },
        },
      },
      503: {
        description: 'A component is down.',
        schema: { type: 'object', additionalProperties: true },
        examples: { down: { summary: 'Database unreachable', value: { status: 'degraded', database: { ok: false, kind: 'postgres', error: 'connect ECONNREFUSED 127.0.0.1:5432' } } } },
      },
    },
  },
  'GET /health/live': {
    operationId: 'healthLive',
    summary: 'Liveness probe',
    description: 'Answers 200 while the process runs, also while it shuts down: an orchestrator restarts the server only when this fails. No token needed.',
    tags: ['System'],
    public: true,
    rootOnly: true,
    responses: {
      200: { description: 'The process is up.', schema: { type: 'object', properties: { status: { type: 'string', enum: ['live'] } } }, examples: { live: { summary: 'Up', value: { status: 'live' } } } },
    },
  },
  'GET /health/ready': {
    operationId: 'healthReady',
    summary: 'Readiness probe',
    description:
      'Answers 200 when the server should get traffic: the database answers, every migration this version ships is applied, and the server is not shutting down. Search being unreachable does not make it unready (everything but search still works). 503 otherwise, with the reason. No token needed.',
    tags: ['System'],
    public: true,
    rootOnly: true,
    responses: {
      200: { description: 'Ready for traffic.', schema: READINESS, examples: { ready: { summary: 'Ready', value: { status: 'ready' } } } },
      503: {
        description: 'Not ready: the reason says why.',
        schema: READINESS,
        examples: {
          stopping: { summary: 'Shutting down', value: { status: 'not ready', reason: 'shutting down' } },
          database: { summary: 'Database unreachable', value: { status: 'not ready', reason: 'the database does not answer: connect ECONNREFUSED 127.0.0.1:5432' } },
        },
      },
    },
  },
  'GET /metrics': {
    operationId: 'metrics',
    summary: 'Prometheus metrics',
    description:
      'The server\'s metrics in the Prometheus text format: requests per route and GraphQL operation, database statements and pool, indexer lag, Meilisearch\'s task queue, jobs, evaluated metadata tests, memory and event-loop delay (docs/operations.md lists every family). Needs a token of any scope here; with `METRICS_PORT` set, the same is served without a token on that port.' +
      scopeNote('read'),
    tags: ['System'],
    rootOnly: true,
    responses: {
      200: {
        description: 'The metrics, text format 0.0.4.',
        contentType: 'text/plain',
        schema: { type: 'string' },
        examples: { scrape: { summary: 'A few lines', value: '# TYPE propgraph_http_requests_total counter\npropgraph_http_requests_total{method="GET",route="/openapi/v3/entity/:entityName",status="200"} 12\n' } },
      },
      ...commonErrors('read', 'metrics'),
    },
  },
  'GET /openapi/v3/jobs': {
    operationId: 'listJobs',
    summary: 'List background jobs',
    description:
      'Jobs remove the values of hard-deleted properties (and of outdated versions) in batches, apply bulk edits, run metadata tests and rebuild the search index; `remaining` shows how far one got. A listing never carries a job\'s inputs or its whole result (read one job by its id for those). Jobs that ended more than `JOB_RETENTION_DAYS` ago are deleted.' + scopeNote('read'),
    tags: ['Jobs'],
    query: {
      status: { description: 'Only jobs in this state.', schema: { type: 'string', enum: ['pending', 'running', 'done', 'failed'] } },
      kind: { description: 'Only jobs of this kind (`cleanup-property-values`, `migrate-property-values`, `bulk-edit-values`, ...).', schema: { type: 'string' } },
      propertyUrn: { description: "Only jobs about this structured property (its cleanup, its migration).", schema: { type: 'string' } },
      count: { description: 'At most this many (capped at 1000).', schema: { type: 'integer', minimum: 1, default: 100 } },
    },
    responses: {
      200: {
        description: 'The jobs, newest first.',
        schema: { type: 'object', properties: { jobs: { type: 'array', items: ref('JobSummary') } } },
        examples: { jobs: { summary: 'A cleanup under way', value: { jobs: [JOB_SUMMARY] } } },
      },
      400: ERRORS.validation({ status: { summary: 'Unknown status', value: { error: 'Validation Error', message: 'status must be one of pending, running, done, failed' } } }),
      ...commonErrors('read', 'jobs.list'),
    },
  },
  'GET /openapi/v3/jobs/{id}': {
    operationId: 'getJob',
    summary: 'Read one background job',
    description: 'Progress of one job, e.g. the one a hard delete started.' + scopeNote('read'),
    tags: ['Jobs'],
    path: { id: { description: 'The job id.', schema: { type: 'string' }, example: '1' } },
    responses: {
      200: { description: 'The job.', schema: ref('Job'), examples: { job: { summary: 'A cleanup under way', value: JOB } } },
      404: ERRORS.notFound({ job: { summary: 'No such job', value: { error: 'Not Found', message: 'Job 99 does not exist' } } }),
      ...commonErrors('read', 'jobs.get'),
    },
  },
  'POST /openapi/v3/tokens': {
    operationId: 'createAccessToken',
    summary: 'Issue an access token',
    description:
      'Creates a token and answers its secret **once**; the server keeps only a hash. Scopes: `read` (queries), `write` (definitions and values), `admin` (tokens, tests, hard deletes). A person signed in through OpenID Connect may issue `personal` tokens for themselves (up to their own scope) whatever their scope; machine tokens need admin.' +
      scopeNote('admin'),
    tags: ['Access tokens'],
    body: {
      description: 'The token to issue.',
      schema: ref('CreateAccessToken'),
      examples: {
        loader: { summary: 'A write token for a loader, expiring', value: { name: 'loader', scope: 'write', description: 'nightly load', expiresAt: 1893456000000 } },
        reader: { summary: 'A read-only token', value: { name: 'dashboard', scope: 'read' } },
        personal: { summary: 'A signed-in person\'s own token for a script', value: { name: 'my notebook', scope: 'write', type: 'personal', expiresAt: 1893456000000 } },
      },
    },
    responses: {
      200: {
        description: 'The secret (shown only now) and the token metadata.',
        schema: { type: 'object', properties: { accessToken: { type: 'string' }, metadata: ref('AccessToken') } },
        examples: { created: { summary: 'Issued', value: { accessToken: 'pgt_38A1F-xM7rr-w71H7DuLJtwwr5oQaHSeHsiR3nJB0i0', metadata: TOKEN_METADATA } } },
      },
      400: ERRORS.validation({ scope: { summary: 'Unknown scope', value: { error: 'Validation Error', message: 'scope must be one of read, write, admin' } } }),
      ...bodyErrors(),
      ...commonErrors('admin', 'tokens.create'),
    },
  },
  'GET /openapi/v3/tokens': {
    operationId: 'listAccessTokens',
    summary: 'List access tokens',
    description: 'Every token with its state (a signed-in person without admin: their own); never a secret.' + scopeNote('admin'),
    tags: ['Access tokens'],
    responses: {
      200: {
        description: 'The tokens.',
        schema: { type: 'object', properties: { tokens: { type: 'array', items: ref('AccessToken') } } },
        examples: { tokens: { summary: 'Two tokens', value: { tokens: [{ ...TOKEN_METADATA, id: 'root', name: 'root', scope: 'admin', createdBy: 'bootstrap', expiresAt: null }, TOKEN_METADATA] } } },
      },
      ...commonErrors('admin', 'tokens.list'),
    },
  },
  'DELETE /openapi/v3/tokens/{id}': {
    operationId: 'revokeAccessToken',
    summary: 'Revoke an access token',
    description: 'The token stops working at once on this server and within two seconds on other replicas. A signed-in person may revoke their own tokens without admin.' + scopeNote('admin'),
    tags: ['Access tokens'],
    path: { id: { description: 'The token id (from the list, not the secret).', schema: { type: 'string' }, example: TOKEN_METADATA.id } },
    responses: {
      200: NO_BODY('Revoked; empty body.'),
      404: ERRORS.notFound({ token: { summary: 'No such token', value: { error: 'Not Found', message: 'Access token nope does not exist' } } }),
      ...commonErrors('admin', 'tokens.revoke'),
    },
  },
  'POST /test': {
    operationId: 'evaluateTests',
    summary: 'Evaluate metadata tests on entities',
    description:
      'DataHub\'s `POST /gms/test?action=evaluate` (served at `/test` and `/gms/test`). `action=evaluate` runs every test whose `on.types` include the entity\'s type and whose conditions hold (or only `testUrns`) on one entity; `action=batchEvaluate` on several. `push: true` also stores the outcome as the entity\'s `testResults` aspect. Answers are wrapped in `{"value": ...}` like DataHub\'s Rest.li actions. See docs/metadata-tests.md.' +
      scopeNote('read') +
      ' (write with `push: true`)',
    tags: ['Metadata tests'],
    query: {
      action: { description: 'What to run.', schema: { type: 'string', enum: ['evaluate', 'batchEvaluate'] }, required: true, example: 'evaluate' },
    },
    body: {
      description: '`{urn, push?, testUrns?}` for evaluate, `{urns, push?, testUrns?}` for batchEvaluate (`tests` is accepted for `testUrns`).',
      schema: { anyOf: [ref('EvaluateRequest'), ref('BatchEvaluateRequest')] },
      examples: {
        evaluate: { summary: 'action=evaluate: one entity', value: { urn: DATASET_URN } },
        evaluatePush: { summary: 'action=evaluate: one entity, store the results', value: { urn: DATASET_URN, push: true, testUrns: [TEST_URN] } },
        batchEvaluate: { summary: 'action=batchEvaluate: several entities', value: { urns: [DATASET_URN, OTHER_DATASET_URN] } },
      },
    },
    responses: {
      200: {
        description: 'evaluate: `{"value": {passing, failing}}`; batchEvaluate: `{"value": {<urn>: {passing, failing}}}`.',
        schema: { type: 'object', properties: { value: { oneOf: [ref('EvaluationResult'), { type: 'object', additionalProperties: ref('EvaluationResult') }] } } },
        examples: {
          evaluate: { summary: 'evaluate', value: { value: EVALUATION } },
          batchEvaluate: {
            summary: 'batchEvaluate',
            value: { value: { [DATASET_URN]: EVALUATION, [OTHER_DATASET_URN]: { passing: [], failing: [{ test: TEST_URN, type: 'FAILURE' }] } } },
          },
        },
      },
      400: ERRORS.validation({
        action: { summary: 'No action', value: { error: 'Validation Error', message: 'Query parameter action is required: evaluate or batchEvaluate' } },
        field: { summary: 'Unknown field', value: { error: 'Validation Error', message: 'foo is not a known field; expected one of urn, push, testUrns, tests' } },
      }),
      404: ERRORS.notFound({ entity: { summary: 'Unknown entity', value: { error: 'Not Found', message: `Entity ${DATASET_URN} does not exist` } } }),
      ...bodyErrors(),
      ...commonErrors('write', 'tests.evaluate'),
    },
  },
  // Served once the search module's route is merged (its absence here documents nothing).
  'POST /openapi/v3/system/update': {
    operationId: 'systemUpdate',
    summary: 'Rebuild the search indexes from the database',
    description:
      'Queues a rebuild of every search index from the database and answers 202 with the job to follow at `GET /openapi/v3/jobs/{id}`. A rebuild already queued or running is returned instead of a second one.' +
      scopeNote('admin'),
    tags: ['System'],
    responses: {
      202: {
        description: 'The rebuild job.',
        schema: { type: 'object', properties: { jobId: { type: 'string' }, created: { type: 'boolean' }, job: { type: 'string' } } },
        examples: { queued: { summary: 'Queued', value: { jobId: '7', created: true, job: '/jobs/7' } } },
      },
      ...commonErrors('admin', 'search.requestRebuild'),
    },
  },
  'GET /openapi/v3/system/backup': {
    operationId: 'backup',
    summary: 'Take a backup of the database',
    description:
      'A consistent snapshot of the whole database, taken while the server keeps serving (one repeatable-read transaction), streamed as a gzip file: a header (propgraph version, migrations, PostgreSQL version), every table in PostgreSQL\'s COPY text format, and an end line with the row counts and a SHA-256 checksum. `propgraph backup --out FILE` saves and checks it; `propgraph restore --from FILE` loads it. See docs/operations.md, "Backup, restore and move".' +
      scopeNote('admin'),
    tags: ['System'],
    responses: {
      200: {
        description: 'The backup file (gzip). A download cut short has no end line, and restore refuses it.',
        contentType: 'application/gzip',
        schema: { type: 'string', format: 'binary' },
      },
      ...commonErrors('admin', 'backup.start'),
    },
  },
};
