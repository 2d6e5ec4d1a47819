/**
 * The input limits of docs/contract.md §12 on every decoded part of an HTTP request, before any route
 * runs: the JSON body (REST and GraphQL alike), the query string and the path
 * parameters. The rules are domain/inputLimits.ts; this only applies them.
 */
import type { FastifyInstance } from 'fastify';
import { checkInputLimits, checkText } from '../domain/inputLimits.js';
import { turnForLargeBody } from './bodyTurns.js';

function checkStrings(values: unknown, what: string): void {
  if (!values || typeof values !== 'object') return;
  for (const [name, value] of Object.entries(values)) {
    checkText(name, `${what} name`);
    for (const item of Array.isArray(value) ? value : [value]) if (typeof item === 'string') checkText(item, `${what} ${name}`);
  }
}

export function installInputLimits(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    checkStrings(request.params, 'path parameter');
    checkStrings(request.query, 'query parameter');
    if (request.body !== undefined) checkInputLimits(request.body, 'request body');
    // Validation runs next, in the same turn otherwise (bodyTurns.ts).
    await turnForLargeBody(request);
  });
}
