/**
 * Turns of the event loop for large request bodies. A 1,000-entity batch is parsed,
 * walked for the input limits and validated before any of its work awaits the
 * database; run back to back, those steps held every other request (a /health probe,
 * a small search) for a long turn each time (BENCHMARKS.md, "Figures that explained
 * code choices"). A large body's request instead lets the event loop run once between
 * them, at its turn in the process's one queue (src/platform/turns.ts). Small bodies, nearly every
 * request, take no extra turn.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { afterTurn, nextTurn } from '../platform/turns.js';

/** Bodies from this size on take their turns (a few hundred entities, or one large aspect). */
export const LARGE_BODY_BYTES = 64 * 1024;

const large = new WeakSet<FastifyRequest>();

/** Called by the body parser with the body's length. */
export function noteBodyLength(request: FastifyRequest, length: number): void {
  if (length >= LARGE_BODY_BYTES) large.add(request);
}

/** The body parser's `done`, called at the request's turn when its body is large. */
export function doneInTurn<A extends unknown[]>(request: FastifyRequest, done: (...args: A) => void): (...args: A) => void {
  return large.has(request) ? (...args: A) => afterTurn(() => done(...args)) : done;
}

/** Lets the event loop run what is waiting before `request`'s next step, when its body is large. */
export async function turnForLargeBody(request: FastifyRequest): Promise<void> {
  if (large.has(request)) await nextTurn();
}

/**
 * A turn after validation (Fastify's own step, between preValidation and preHandler).
 * A callback hook: every request passes here, and a small body's costs no promise.
 */
export function installBodyTurns(app: FastifyInstance): void {
  app.addHook('preHandler', (request, _reply, done) => {
    if (large.has(request)) afterTurn(done);
    else done();
  });
}
