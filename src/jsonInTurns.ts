/**
 * JSON.stringify in turns of the event loop (loopTurns.ts), for answers of a megabyte:
 * one native JSON.stringify of ten lists of 1,000 hits held every other request for
 * milliseconds on end. The text is the one JSON.stringify writes, byte for byte. The
 * value is walked container by container (toJSON, boxed primitives, skipped and `null`
 * members, a cycle or a BigInt throwing as natively), but what is small is written
 * natively, in one call: a container of a few dozen values, and a run of an array's
 * items (the bulk of any answer: a run of hits, `{"entity":{"urn":...}}`), as many as
 * the runs before took a quarter of a millisecond for (so one item of a list, however
 * large, is one call). Walking every hit instead cost three times the CPU of
 * JSON.stringify, counting the values of each hit two and a half; this costs about two.
 */
import { loopTurn } from './loopTurns.js';

interface Open {
  /** The container as walked; `keys` is null for an array. */
  readonly value: Record<string, unknown> | unknown[];
  readonly keys: string[] | null;
  /** Its key in its parent. */
  readonly key: string;
  readonly parts: string[];
  index: number;
}

/** Values of a container written natively in one call. */
const SMALL = 64;

/** How long one native call on a run of items should take. */
const RUN_MS = 0.25;

/** Items of the first run, and at most of any. */
const FIRST_RUN = 8;
const LONGEST_RUN = 4096;

/** toJSON applied (with the member's key, as natively) and boxed primitives unboxed. */
function prepared(key: string, value: unknown): unknown {
  let v = value;
  if ((typeof v === 'object' && v !== null) || typeof v === 'bigint') {
    const toJSON = (v as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function') v = toJSON.call(v, key);
  }
  if (typeof v === 'object' && v !== null) {
    if (v instanceof Number) return Number(v);
    if (v instanceof String) return String(v);
    if (v instanceof Boolean || v instanceof BigInt) return v.valueOf();
  }
  return v;
}

/**
 * What is left of `budget` after counting `member` and the values of its tree, or -1
 * when it holds more, or something that JSON.stringify, given it alone, would write
 * otherwise than in its place: a toJSON (it is called with another key), a BigInt (it
 * may have a toJSON of its own).
 */
function leftAfter(member: unknown, budget: number): number {
  if (typeof member === 'bigint') return -1;
  if (typeof member !== 'object' || member === null) return budget - 1;
  if (typeof (member as { toJSON?: unknown }).toJSON === 'function') return -1;
  let left = budget - 1;
  // Counting only: an inherited key counted here is written by neither.
  for (const key in member) {
    left = leftAfter((member as Record<string, unknown>)[key], left);
    if (left < 0) return -1;
  }
  return left;
}

/** Whether JSON.stringify writes an item of a slice as it writes it in its list: it has no toJSON to be given its index, and is no BigInt (which may have one). */
function sameInSlice(item: unknown): boolean {
  if (typeof item === 'bigint') return false;
  return typeof item !== 'object' || item === null || typeof (item as { toJSON?: unknown }).toJSON !== 'function';
}

/**
 * JSON.stringify(value), taking turns of the event loop between small steps; undefined
 * where JSON.stringify returns undefined (a function, a symbol, undefined).
 */
export async function stringifyInTurns(value: unknown): Promise<string | undefined> {
  const stack: Open[] = [];
  const open = new Set<unknown>();
  let result: string | undefined;
  let runLength = FIRST_RUN;

  /** The text of a member, or undefined (left out of an object, `null` in an array); a large container is opened instead. */
  const textOf = (key: string, raw: unknown): string | undefined | Open => {
    const v = prepared(key, raw);
    if (v === null) return 'null';
    if (typeof v !== 'object') return typeof v === 'function' ? undefined : JSON.stringify(v);
    // A toJSON returned by a toJSON is not called again, whereas JSON.stringify(v) would call it: leftAfter says -1.
    if (leftAfter(v, SMALL) >= 0) return JSON.stringify(v);
    if (open.has(v)) throw new TypeError('Converting circular structure to JSON');
    open.add(v);
    const frame: Open = { value: v as Record<string, unknown> | unknown[], keys: Array.isArray(v) ? null : Object.keys(v), key, parts: [], index: 0 };
    stack.push(frame);
    return frame;
  };

  const add = (parent: Open | undefined, key: string, text: string | undefined): void => {
    if (parent === undefined) result = text;
    else if (parent.keys === null) parent.parts.push(text ?? 'null');
    else if (text !== undefined) parent.parts.push(`${JSON.stringify(key)}:${text}`);
  };

  /** Past a run of items from `top.index` on, written as one part; false when the next item must be walked. */
  const runOfItems = (top: Open, list: unknown[]): boolean => {
    const last = Math.min(list.length, top.index + runLength);
    let end = top.index;
    while (end < last && sameInSlice(list[end])) end++;
    if (end === top.index) return false;
    const started = performance.now();
    top.parts.push(JSON.stringify(list.slice(top.index, end)).slice(1, -1));
    const ms = performance.now() - started;
    // The next run as long as this one's pace allows within RUN_MS.
    runLength = Math.max(1, Math.min(LONGEST_RUN, Math.floor(((end - top.index) * RUN_MS) / Math.max(ms, 0.001))));
    top.index = end;
    return true;
  };

  const first = textOf('', value);
  if (typeof first !== 'object') return first;
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    const list = top.keys === null ? (top.value as unknown[]) : null;
    const length = list ? list.length : top.keys!.length;
    if (top.index < length) {
      if (list === null || !runOfItems(top, list)) {
        const key = list ? String(top.index) : top.keys![top.index]!;
        const member = list ? list[top.index] : (top.value as Record<string, unknown>)[key];
        top.index++;
        const text = textOf(key, member);
        if (typeof text !== 'object') add(top, key, text);
      }
      const wait = loopTurn();
      if (wait) await wait;
      continue;
    }
    stack.pop();
    open.delete(top.value);
    add(stack[stack.length - 1], top.key, list ? `[${top.parts.join(',')}]` : `{${top.parts.join(',')}}`);
  }
  return result;
}
