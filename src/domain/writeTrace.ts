/**
 * DataHub's API tracing (`traceparent` on write answers, `POST /openapi/v1/trace/write`),
 * without a trace store: the trace id itself says which writes it covers. Its first 16
 * hex digits are the answer's time in microseconds, as DataHub's are (the client
 * decodes them for its logs); the last 16 are the highest change-log id the request
 * wrote. Any replica can then answer a trace from the database alone: the search side
 * of a write is done once no change of that entity up to that id waits for the indexer.
 */
import { ValidationError } from './errors.js';
import { quoteInput } from './inputLimits.js';

export type TraceWriteStatus = 'ERROR' | 'PENDING' | 'ACTIVE_STATE' | 'HISTORIC_STATE' | 'NO_OP' | 'UNKNOWN' | 'TRACE_NOT_IMPLEMENTED';

export interface AspectTrace {
  readonly success: boolean;
  readonly primaryStorage: { readonly writeStatus: TraceWriteStatus };
  readonly searchStorage: { readonly writeStatus: TraceWriteStatus };
}

const hex16 = (n: bigint): string => n.toString(16).padStart(16, '0').slice(-16);

/** The trace id of a request that answered at `nowMicros` after writing changes up to `lastChange` (0: none). */
export function traceIdOf(lastChange: bigint, nowMicros: bigint): string {
  return hex16(nowMicros) + hex16(lastChange);
}

/** W3C trace context: version 00, the trace id, a span id, sampled. */
export function traceparentOf(traceId: string, spanId: string): string {
  return `00-${traceId}-${spanId}-01`;
}

/** The highest change id a trace id covers; a 400 naming the fix for anything but 32 hex digits. */
export function lastChangeOfTrace(traceId: string): bigint {
  if (!/^[0-9a-f]{32}$/i.test(traceId)) {
    throw new ValidationError(
      `traceId ${quoteInput(traceId)} is not a trace id: send the 32 hex digits after "00-" in the traceparent header of the write's answer`,
      'traceId',
    );
  }
  const lastChange = BigInt(`0x${traceId.slice(16)}`);
  // Change ids are PostgreSQL bigints: a larger one was never written here, and would not fit in the query.
  if (lastChange > MAX_CHANGE_ID) {
    throw new ValidationError(
      `traceId ${quoteInput(traceId)} is not a trace id of this server: its last 16 hex digits must be at most 7fffffffffffffff (a change id); ` +
        'send the 32 hex digits after "00-" in the traceparent header of the write\'s answer',
      'traceId',
    );
  }
  return lastChange;
}

/** The largest change id: a signed 64-bit integer. */
const MAX_CHANGE_ID = 2n ** 63n - 1n;

/**
 * The status of one traced aspect. A write propgraph answered was committed, so the
 * primary side is the aspect's presence now: ACTIVE_STATE while it exists, UNKNOWN
 * when it is gone (deleted since, or never written under this trace). The search side
 * is PENDING while a change of the entity up to the trace waits for the indexer; NO_OP
 * when search is disabled, since no index will take it and the client would otherwise
 * poll until its timeout (an hour by default).
 */
export function aspectTraceOf(facts: { readonly exists: boolean; readonly searchPending: boolean; readonly searchEnabled: boolean }): AspectTrace {
  const primary: TraceWriteStatus = facts.exists ? 'ACTIVE_STATE' : 'UNKNOWN';
  const search: TraceWriteStatus = !facts.searchEnabled ? 'NO_OP' : facts.searchPending ? 'PENDING' : primary;
  // A handful of distinct answers, shared: a trace of 10,000 aspects builds no 30,000 objects.
  const key = `${primary} ${search}`;
  let trace = TRACES.get(key);
  if (!trace) {
    trace = Object.freeze({ success: true, primaryStorage: Object.freeze({ writeStatus: primary }), searchStorage: Object.freeze({ writeStatus: search }) });
    TRACES.set(key, trace);
  }
  return trace;
}

const TRACES = new Map<string, AspectTrace>();

/** What `onlyIncludeErrors=true` keeps (DataHub's default): failed writes only. */
export const isTraceError = (trace: AspectTrace): boolean =>
  !trace.success || trace.primaryStorage.writeStatus === 'ERROR' || trace.searchStorage.writeStatus === 'ERROR';
