import type { FastifyRequest } from 'fastify';
import { LARGE_BODY_BYTES, noteBodyLength, turnForLargeBody } from '../../src/rest/bodyTurns.js';

/** Whether something queued on the event loop before `step` ran before `step` went on. */
async function othersRanFirst(step: () => Promise<void>): Promise<boolean> {
  let ran = false;
  setImmediate(() => {
    ran = true;
  });
  await step();
  return ran;
}

describe('turns for large request bodies', () => {
  test('a request with a large body lets what waits on the event loop run between its steps', async () => {
    const request = {} as FastifyRequest;
    noteBodyLength(request, LARGE_BODY_BYTES);
    expect(await othersRanFirst(() => turnForLargeBody(request))).toBe(true);
  });

  test('a request with a small body (nearly all of them) takes no extra turn', async () => {
    const small = {} as FastifyRequest;
    noteBodyLength(small, LARGE_BODY_BYTES - 1);
    expect(await othersRanFirst(() => turnForLargeBody(small))).toBe(false);
    const bodiless = {} as FastifyRequest;
    expect(await othersRanFirst(() => turnForLargeBody(bodiless))).toBe(false);
  });
});
