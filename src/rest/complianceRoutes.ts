/**
 * The compliance view of metadata tests over REST (docs/metadata-tests.md, "The
 * compliance report"): the report, a test's failing entities, why an entity fails, and
 * a run on demand answered 202 with the job to follow at `GET /v3/jobs/{id}`.
 */
import type { FastifyInstance } from 'fastify';
import { ValidationError } from '../domain/errors.js';
import { parseShape } from '../domain/shapes/shape.js';
import type { Services } from '../services/index.js';
import { testRunShape } from './bodies/testRun.js';
import { intParam, stringParam, type Query } from './params.js';

function required(query: Query, name: string): string {
  const value = stringParam(query, name);
  if (!value) throw new ValidationError(`Query parameter ${name} is required`, name);
  return value;
}

export async function complianceRoutes(app: FastifyInstance, options: { services: Services }): Promise<void> {
  const compliance = options.services.compliance;
  app.get('/tests/report', async (request) => {
    const q = request.query as Query;
    return compliance.report(request.caller, { urn: stringParam(q, 'urn') ?? null, days: intParam(q, 'days') ?? null });
  });
  app.get('/tests/failing', async (request) => {
    const q = request.query as Query;
    const page = await compliance.failing(request.caller, { urn: required(q, 'urn'), query: stringParam(q, 'query') ?? null, count: intParam(q, 'count') ?? null, scrollId: stringParam(q, 'scrollId') ?? null });
    return { total: page.total, ...(page.scrollId ? { scrollId: page.scrollId } : {}), entities: page.entities };
  });
  app.get('/tests/explain', async (request) => {
    const q = request.query as Query;
    return compliance.explain(request.caller, { test: required(q, 'test'), entity: required(q, 'urn') });
  });
  app.post('/tests/run', async (request, reply) => {
    const body = parseShape(testRunShape, request.body ?? {}, 'request body');
    const { jobId } = await compliance.run(request.caller, { testUrns: body.testUrns ?? null, query: body.query ?? null, types: body.types ?? null });
    return reply.code(202).send({ jobId, job: `/jobs/${jobId}` });
  });
}
