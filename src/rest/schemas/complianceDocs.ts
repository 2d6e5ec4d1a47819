/** Documentation of the compliance routes (rest/complianceRoutes.ts, docs/metadata-tests.md). */
import { DATASET_URN, TEST_INFO, TEST_URN } from './examples.js';
import { bodyErrors, commonErrors, ERRORS, ref, scopeNote, type RouteDoc } from './routeDoc.js';

const TEST_VIEW = { urn: TEST_URN, name: TEST_INFO.name, category: TEST_INFO.category, definition: TEST_INFO.definition };
const REPORT = {
  generatedAt: '2026-01-12T09:30:00.000Z',
  tests: [
    {
      test: TEST_VIEW,
      passing: 1820,
      failing: 140,
      notApplicable: 40,
      trend: [
        { day: '2026-01-11', passing: 1790, failing: 170, notApplicable: 40 },
        { day: '2026-01-12', passing: 1820, failing: 140, notApplicable: 40 },
      ],
    },
  ],
};
const TEST_PARAM = { description: 'The test: `urn:li:test:<id>`.', schema: { type: 'string' }, required: true, example: TEST_URN } as const;
const UNKNOWN_TEST = { summary: 'No such test', value: { error: 'Not Found', message: 'Test urn:li:test:nope does not exist or is soft deleted' } };

export const COMPLIANCE_ROUTE_DOCS: Record<string, RouteDoc> = {
  'GET /openapi/v3/tests/report': {
    operationId: 'testReport',
    summary: 'The compliance report of metadata tests',
    description:
      'Per live test: how many entities pass, fail, and are not applicable (entities of the types it targets that are in neither list), from the stored results; and the trend, a count per day (UTC) recorded by the evaluator, today being the counts now.' +
      scopeNote('read'),
    tags: ['Metadata tests'],
    query: {
      urn: { description: 'One test; absent: every live test.', schema: { type: 'string' }, example: TEST_URN },
      days: { description: 'Days of trend, today included.', schema: { type: 'integer', minimum: 1, maximum: 366, default: 30 } },
    },
    responses: {
      200: { description: 'The report.', schema: { type: 'object', properties: { generatedAt: { type: 'string' }, tests: { type: 'array', items: { type: 'object' } } } }, examples: { report: { summary: 'One test', value: REPORT } } },
      400: ERRORS.validation({ days: { summary: 'Too many days', value: { error: 'Validation Error', message: 'days must be a whole number from 1 to 366, got 400' } } }),
      404: ERRORS.notFound({ test: UNKNOWN_TEST }),
      ...commonErrors('read', 'compliance.report'),
    },
  },
  'GET /openapi/v3/tests/failing': {
    operationId: 'testFailingEntities',
    summary: 'The entities failing a metadata test',
    description:
      'A page of the entities whose stored results fail the test, in URN order; with `query`, a search among them (keywords and the query syntax of `GET /entity/{entityName}`). Pass `scrollId` back for the next page.' +
      scopeNote('read'),
    tags: ['Metadata tests'],
    query: {
      urn: TEST_PARAM,
      query: { description: 'Search among the failing entities.', schema: { type: 'string' }, example: 'orders' },
      count: { description: 'Page size (capped at 1000).', schema: { type: 'integer', minimum: 0, default: 20 } },
      scrollId: { description: 'The cursor of the previous page.', schema: { type: 'string' } },
    },
    responses: {
      200: {
        description: 'How many fail, and a page of them.',
        schema: { type: 'object', properties: { total: { type: 'integer' }, scrollId: { type: 'string' }, entities: { type: 'array', items: { type: 'object', properties: { urn: { type: 'string' }, entityType: { type: 'string' } } } } } },
        examples: { page: { summary: 'A first page', value: { total: 140, scrollId: 'dXJuOmxpOmRhdGFzZXQ', entities: [{ urn: DATASET_URN, entityType: 'dataset' }] } } },
      },
      400: ERRORS.validation({ urn: { summary: 'No test', value: { error: 'Validation Error', message: 'Query parameter urn is required' } } }),
      404: ERRORS.notFound({ test: UNKNOWN_TEST }),
      ...commonErrors('read', 'compliance.failing'),
    },
  },
  'GET /openapi/v3/tests/explain': {
    operationId: 'explainTest',
    summary: 'Why a metadata test gives its outcome on an entity',
    description: 'Each predicate of the test with whether it held on the entity, and for each comparison what the entity has at its path (the first 20 values).' + scopeNote('read'),
    tags: ['Metadata tests'],
    query: { test: TEST_PARAM, urn: { description: 'The entity.', schema: { type: 'string' }, required: true, example: DATASET_URN } },
    responses: {
      200: {
        description: 'The outcome and the predicates.',
        schema: { type: 'object' },
        examples: {
          failing: {
            summary: 'A failed rule',
            value: { outcome: 'FAILURE', rules: { kind: 'and', holds: false, children: [{ kind: 'leaf', holds: false, property: 'structuredProperties.urn:li:structuredProperty:io.acryl.privacy.retentionTime', operator: 'exists', values: [], actual: [] }] } },
          },
        },
      },
      404: ERRORS.notFound({ test: UNKNOWN_TEST }),
      ...commonErrors('read', 'compliance.explain'),
    },
  },
  'POST /openapi/v3/tests/run': {
    operationId: 'runTests',
    summary: 'Run metadata tests now, over every entity they select or a search',
    description:
      'Queues a job that evaluates the tests (all, or `testUrns`) on every entity they select, or on the entities a `query` finds, and stores what changed; follow it at `GET /openapi/v3/jobs/{id}`. Results are kept current without this (see docs/metadata-tests.md); a run is for results written by hand, or a check after an outage.' +
      scopeNote('write'),
    tags: ['Metadata tests'],
    body: {
      description: 'What to run; an empty object runs every test everywhere.',
      schema: ref('TestRunRequest'),
      examples: { all: { summary: 'Every test, everywhere', value: {} }, one: { summary: 'One test over a search', value: { testUrns: [TEST_URN], query: 'orders', types: ['dataset'] } } },
    },
    responses: {
      202: {
        description: 'The job.',
        schema: { type: 'object', properties: { jobId: { type: 'string' }, job: { type: 'string' } } },
        examples: { queued: { summary: 'Queued', value: { jobId: '12', job: '/jobs/12' } } },
      },
      400: ERRORS.validation({ test: { summary: 'Unknown test', value: { error: 'Validation Error', message: 'Unknown or soft-deleted test in testUrns: urn:li:test:nope' } } }),
      ...bodyErrors(),
      ...commonErrors('write', 'compliance.run'),
    },
  },
};
