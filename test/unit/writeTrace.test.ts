/** DataHub's write tracing without a trace store (issue #13, domain/writeTrace.ts). */
import { ValidationError } from '../../src/domain/errors.js';
import { aspectTraceOf, isTraceError, lastChangeOfTrace, traceIdOf, traceparentOf } from '../../src/domain/writeTrace.js';
import { thrown } from './thrown.js';

describe('trace ids', () => {
  test('begin with 16 hex digits of microseconds, as DataHub\'s do, and end with the last change id', () => {
    const id = traceIdOf(1234n, 1_784_822_401_000_000n);
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect(BigInt(`0x${id.slice(0, 16)}`)).toBe(1_784_822_401_000_000n);
    expect(lastChangeOfTrace(id)).toBe(1234n);
  });

  test('a request that changed nothing covers no change', () => {
    expect(lastChangeOfTrace(traceIdOf(0n, 1n))).toBe(0n);
  });

  test('traceparent is W3C trace context: version 00, trace id, span id, sampled', () => {
    expect(traceparentOf('0'.repeat(32), 'a'.repeat(16))).toBe(`00-${'0'.repeat(32)}-${'a'.repeat(16)}-01`);
  });

  test.each(['xyz', '', '0'.repeat(31), 'g'.repeat(32)])('%j is refused naming traceId and where to find one', (text) => {
    const err = thrown(() => lastChangeOfTrace(text));
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.message).toContain('send the 32 hex digits after "00-" in the traceparent header');
  });
});

test.each(['0123456789abcdef8000000000000000', 'ffffffffffffffffffffffffffffffff'])('a trace id %j whose last 16 hex digits exceed a signed 64-bit change id is refused naming traceId (issue #29)', (text) => {
  const err = thrown(() => lastChangeOfTrace(text));
  expect(err).toBeInstanceOf(ValidationError);
  expect((err as ValidationError).field).toBe('traceId');
  expect(err.message).toContain('at most 7fffffffffffffff');
  expect(lastChangeOfTrace('0123456789abcdef7fffffffffffffff')).toBe(2n ** 63n - 1n);
});

describe('aspect trace status', () => {
  test('stored and indexed: ACTIVE_STATE on both sides', () => {
    expect(aspectTraceOf({ exists: true, searchPending: false, searchEnabled: true })).toEqual({ success: true, primaryStorage: { writeStatus: 'ACTIVE_STATE' }, searchStorage: { writeStatus: 'ACTIVE_STATE' } });
  });

  test('stored, index not caught up: search PENDING (the client polls again)', () => {
    expect(aspectTraceOf({ exists: true, searchPending: true, searchEnabled: true }).searchStorage.writeStatus).toBe('PENDING');
  });

  test('not stored: UNKNOWN, still a success (the client stops waiting without raising)', () => {
    expect(aspectTraceOf({ exists: false, searchPending: false, searchEnabled: true })).toEqual({ success: true, primaryStorage: { writeStatus: 'UNKNOWN' }, searchStorage: { writeStatus: 'UNKNOWN' } });
  });

  test('search disabled: NO_OP on the search side, never PENDING, so the client stops waiting', () => {
    expect(aspectTraceOf({ exists: true, searchPending: true, searchEnabled: false })).toEqual({ success: true, primaryStorage: { writeStatus: 'ACTIVE_STATE' }, searchStorage: { writeStatus: 'NO_OP' } });
  });

  test('onlyIncludeErrors keeps failed writes only: an unsuccessful one or one in ERROR', () => {
    const ok = aspectTraceOf({ exists: false, searchPending: true, searchEnabled: true });
    expect(isTraceError(ok)).toBe(false);
    expect(isTraceError({ ...ok, success: false })).toBe(true);
    expect(isTraceError({ ...ok, searchStorage: { writeStatus: 'ERROR' } })).toBe(true);
  });
});
