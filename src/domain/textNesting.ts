/**
 * The nesting limit of inputLimits.ts, measured on JSON *text* before it is parsed
 * (issue #29). JSON.parse does not overflow on deep input, but it builds every level:
 * a 16 MiB body of `[` held the event loop for seconds, all of it wasted on a body the
 * walk afterwards refuses. This scan is linear, allocates nothing per level but two
 * numbers, jumps over strings with indexOf, and reports the same path and reason as
 * the walk, so an answer does not depend on which of the two saw the input first.
 * Malformed text is left to the parser, which says what is wrong with it.
 */
import { ValidationError } from './errors.js';
import { formatPath, INPUT_LIMITS, type InputViolation, type PathSegment } from './inputLimits.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;

/** The index of the quote closing the string that opens at `start`; the text's length when it is not closed. */
function stringEnd(text: string, start: number): number {
  let at = start;
  for (;;) {
    at = text.indexOf('"', at + 1);
    if (at < 0) return text.length;
    let slashes = 0;
    while (text.charCodeAt(at - 1 - slashes) === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return at;
  }
}

function keyOf(literal: string): string {
  try {
    return JSON.parse(literal) as string;
  } catch {
    return literal.slice(1, -1);
  }
}

/** The first container nested deeper than `limit` in JSON text, with its path; undefined when there is none (or the text is not JSON). */
export function jsonNestingViolation(text: string, limit: number = INPUT_LIMITS.nestingDepth): InputViolation | undefined {
  // Per open container: whether it is an array, and its current element (an index, or where its current key's literal starts and ends).
  const isArray: boolean[] = [];
  const index: number[] = [];
  const keyStart: number[] = [];
  const keyEnd: number[] = [];
  let depth = 0;
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      if (expectKey) {
        keyStart[depth - 1] = i;
        keyEnd[depth - 1] = end + 1;
        expectKey = false;
      }
      i = end;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (depth >= limit) {
        const path: PathSegment[] = [];
        for (let level = 0; level < depth; level++) path.push(isArray[level] ? index[level]! : keyOf(text.slice(keyStart[level], keyEnd[level])));
        return { path, reason: `is nested deeper than the limit of ${limit} levels of arrays and objects; flatten the value` };
      }
      isArray[depth] = c === OPEN_ARRAY;
      index[depth] = 0;
      depth++;
      expectKey = c === OPEN_OBJECT;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      if (depth === 0) return undefined;
      depth--;
      expectKey = false;
    } else if (c === COMMA && depth > 0) {
      if (isArray[depth - 1]) index[depth - 1]!++;
      else expectKey = true;
    }
  }
  return undefined;
}

/** Throws a ValidationError naming the path (under `root`) when JSON text nests deeper than the limit. */
export function checkJsonTextNesting(text: string, root: string): void {
  const found = jsonNestingViolation(text);
  if (found) throw new ValidationError(`${formatPath(found.path, root)} ${found.reason}`, formatPath(found.path, root));
}
