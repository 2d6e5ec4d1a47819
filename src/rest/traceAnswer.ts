/**
 * The write trace's answer as JSON text in chunks, for a stream: 1,000 entities of 10
 * aspects are 1.26 MB. Written whole, its one socket write held the event loop for
 * milliseconds (on loopback the kernel delivers it to the reader within the write), its
 * text was built and encoded in one piece, and a client that read nothing held all of
 * it. A chunk is made when the socket takes the one before, an entity at a time, in
 * the turns the whole process shares (turns.ts). Each status's JSON is written once
 * per process: statuses are a handful of shared objects (domain/writeTrace.ts).
 */
import { isTraceError, type AspectTrace } from '../domain/writeTrace.js';
import { loopTurn } from '../platform/turns.js';

/** Bytes of a chunk: small enough for a short write, large enough that chunks are few. */
export const TRACE_CHUNK_BYTES = 64 * 1024;

/** Keys an object orders before the others (array indices). */
const INDEX_LIKE = /^(?:0|[1-9]\d{0,9})$/;

const statusJson = new WeakMap<AspectTrace, string>();

function jsonOf(trace: AspectTrace): string {
  let text = statusJson.get(trace);
  if (text === undefined) {
    text = JSON.stringify(trace);
    statusJson.set(trace, text);
  }
  return text;
}

/**
 * The text of `{urn: {aspect: status}}` (JSON.stringify's, byte for byte), in chunks of
 * about TRACE_CHUNK_BYTES; entities with nothing to show are left out.
 */
export async function* traceAnswerChunks(traces: ReadonlyMap<string, ReadonlyMap<string, AspectTrace>>, onlyErrors: boolean): AsyncGenerator<Buffer> {
  const aspectNames = new Map<string, string>();
  const nameJson = (aspect: string) => {
    let text = aspectNames.get(aspect);
    if (text === undefined) {
      text = JSON.stringify(aspect);
      aspectNames.set(aspect, text);
    }
    return text;
  };
  let chunk = '{';
  let first = true;
  for (const [urn, aspects] of traces) {
    let entity = '';
    let indexLike = false;
    for (const [aspect, trace] of aspects) {
      if (onlyErrors && !isTraceError(trace)) continue;
      indexLike ||= INDEX_LIKE.test(aspect);
      entity += `${entity === '' ? '{' : ','}${nameJson(aspect)}:${jsonOf(trace)}`;
    }
    if (entity === '') continue;
    // An object lists keys such as "7" first: the rare entity with one is written as one.
    if (indexLike) entity = JSON.stringify(Object.fromEntries([...aspects].filter(([, trace]) => !onlyErrors || isTraceError(trace)))).slice(0, -1);
    chunk += `${first ? '' : ','}${JSON.stringify(urn)}:${entity}}`;
    first = false;
    if (chunk.length >= TRACE_CHUNK_BYTES) {
      yield Buffer.from(chunk, 'utf8');
      chunk = '';
      const wait = loopTurn();
      if (wait) await wait;
    }
  }
  yield Buffer.from(`${chunk}}`, 'utf8');
}
