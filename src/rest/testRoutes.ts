/**
 * The metadata test endpoint (seed 4.1, SPEC 7): `POST /gms/test?action=evaluate`
 * (also `/test`) with `{urn, push?, testUrns?}` (`tests` accepted as an alias), and
 * `action=batchEvaluate` with `{urns, push?, testUrns?}`. Responses are wrapped in
 * `{"value": ...}` as DataHub's Rest.li actions are.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ValidationError } from '../domain/errors.js';
import type { Services } from '../services/index.js';
import { stringParam, type Query } from './params.js';

export interface TestRouteOptions {
  readonly services: Services;
  readonly writeWaitForIndex: boolean;
}

interface EvaluateBody {
  readonly push: boolean;
  readonly testUrns?: readonly string[];
}

const ACTIONS = ['evaluate', 'batchEvaluate'];

function bodyObject(body: unknown, allowed: readonly string[]): Record<string, unknown> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new ValidationError('request body must be a JSON object', 'body');
  const obj = body as Record<string, unknown>;
  const extra = Object.keys(obj).find((k) => !allowed.includes(k));
  if (extra) throw new ValidationError(`Unknown field in request body: ${extra}; expected ${allowed.join(', ')}`, extra);
  return obj;
}

function stringList(value: unknown, field: string): string[] {
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) throw new ValidationError(`${field} must be a list of urn strings`, field);
  return value as string[];
}

/** push and testUrns (or its alias tests), shared by both actions. */
function commonFields(obj: Record<string, unknown>): EvaluateBody {
  if (obj.push !== undefined && obj.push !== null && typeof obj.push !== 'boolean') throw new ValidationError('push must be true or false', 'push');
  if (obj.testUrns !== undefined && obj.tests !== undefined) throw new ValidationError('give testUrns or its alias tests, not both', 'tests');
  const key = obj.testUrns !== undefined ? 'testUrns' : 'tests';
  const raw = obj[key];
  return { push: obj.push === true, ...(raw !== undefined && raw !== null ? { testUrns: stringList(raw, key) } : {}) };
}

export function parseEvaluateBody(body: unknown): EvaluateBody & { urn: string } {
  const obj = bodyObject(body, ['urn', 'push', 'testUrns', 'tests']);
  if (typeof obj.urn !== 'string') throw new ValidationError('urn is required and must be a string', 'urn');
  return { urn: obj.urn, ...commonFields(obj) };
}

export function parseBatchEvaluateBody(body: unknown): EvaluateBody & { urns: string[] } {
  const obj = bodyObject(body, ['urns', 'push', 'testUrns', 'tests']);
  if (obj.urns === undefined) throw new ValidationError('urns is required: a list of entity urns', 'urns');
  return { urns: stringList(obj.urns, 'urns'), ...commonFields(obj) };
}

export async function testRoutes(app: FastifyInstance, options: TestRouteOptions): Promise<void> {
  const tests = options.services.tests;
  const writeOptions = { async: !options.writeWaitForIndex };

  const handler = async (request: FastifyRequest) => {
    const action = stringParam(request.query as Query, 'action');
    if (action === 'evaluate') {
      const body = parseEvaluateBody(request.body);
      return { value: await tests.evaluate(request.caller, body, writeOptions) };
    }
    if (action === 'batchEvaluate') {
      const body = parseBatchEvaluateBody(request.body);
      const results = await tests.batchEvaluate(request.caller, body, writeOptions);
      return { value: Object.fromEntries(results.map((r) => [r.urn, r.results])) };
    }
    throw new ValidationError(
      action === undefined ? `Query parameter action is required: ${ACTIONS.join(' or ')}` : `Unknown action ${JSON.stringify(action)}: ${ACTIONS.join(' or ')}`,
      'action',
    );
  };

  // The token is checked by the authentication hook (rest/authentication.ts) before the body is read.
  for (const path of ['/gms/test', '/test']) app.post(path, handler);
}
