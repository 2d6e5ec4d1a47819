/**
 * The metadata test endpoint (docs/contract.md §7): `POST /gms/test?action=evaluate`
 * (also `/test`) with `{urn, push?, testUrns?}` (`tests` accepted as an alias), and
 * `action=batchEvaluate` with `{urns, push?, testUrns?}`. Responses are wrapped in
 * `{"value": ...}` as DataHub's Rest.li actions are.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ValidationError } from '../domain/errors.js';
import { quoteInput } from '../domain/inputLimits.js';
import { parseShape } from '../domain/shapes/shape.js';
import type { Services } from '../services/index.js';
import { batchEvaluateShape, evaluateShape } from './bodies/evaluate.js';
import { stringParam, type Query } from './params.js';

export interface TestRouteOptions {
  readonly services: Services;
  readonly writeWaitForIndex: boolean;
}

const ACTIONS = ['evaluate', 'batchEvaluate'];

/** push and testUrns (or its alias tests), as the services take them. */
function testSelection(body: { push?: boolean | null; testUrns?: string[] | null; tests?: string[] | null }) {
  const testUrns = body.testUrns ?? body.tests;
  return { push: body.push === true, ...(testUrns != null ? { testUrns } : {}) };
}

export async function testRoutes(app: FastifyInstance, options: TestRouteOptions): Promise<void> {
  const tests = options.services.tests;
  const writeOptions = { async: !options.writeWaitForIndex };

  const handler = async (request: FastifyRequest) => {
    const action = stringParam(request.query as Query, 'action');
    if (action === 'evaluate') {
      const body = parseShape(evaluateShape, request.body, 'request body');
      return { value: request.receipts.resultOf(await tests.evaluate(request.caller, { urn: body.urn, ...testSelection(body) }, writeOptions)) };
    }
    if (action === 'batchEvaluate') {
      const body = parseShape(batchEvaluateShape, request.body, 'request body');
      const results = request.receipts.resultOf(await tests.batchEvaluate(request.caller, { urns: body.urns, ...testSelection(body) }, writeOptions));
      return { value: Object.fromEntries(results.map((r) => [r.urn, r.results])) };
    }
    throw new ValidationError(
      action === undefined ? `Query parameter action is required: ${ACTIONS.join(' or ')}` : `Unknown action ${quoteInput(action)}: ${ACTIONS.join(' or ')}`,
      'action',
    );
  };

  // The token is checked by the authentication hook (rest/authentication.ts) before the body is read.
  for (const path of ['/gms/test', '/test']) app.post(path, handler);
}
