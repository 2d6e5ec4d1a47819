/**
 * JSON.stringify in turns of the event loop (turns.ts), for answers of a megabyte:
 * one native JSON.stringify of ten lists of 1,000 hits held every other request for
 * milliseconds on end. The text is the one JSON.stringify writes, byte for byte. The
 * value is walked container by container (toJSON, boxed primitives, skipped and `null`
 * members, a cycle or a BigInt throwing as natively), but what is small is written
 * natively, in one call: a container of a few dozen values, and a run of an array's
 * items (the bulk of any answer: a run of hits, `{"entity":{"urn":...}}`), as many as
 * the runs before took a quarter of a millisecond for (so one item of a list, however
 * large, is one call). Walking every hit instead cost several times the CPU of
 * JSON.stringify; this costs little more than it (BENCHMARKS.md, "Figures that
 * explained code choices"). The write path's applying statement writes its inputs with
 * it too (store/writeApply.ts).
 */
import { loopTurn } from './turns.js';

interface Open {
  /** The container as walked; `keys` is null for an array. */
  readonly value: Record<string, unknown> | unknown[];
  readonly keys: string[] | null;
  index: number;
  /** Members written so far: a comma goes before every one but the first. */
  written: number;
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
 * where JSON.stringify returns undefined (a function, a symbol, undefined). The text is
 * written front to back into one list of pieces, joined once at the end: a list of parts
 * per container, joined as each closed, copied a large answer's text once per level of
 * nesting, and cost as much again as the native writing of the runs.
 */
export async function stringifyInTurns(value: readonly unknown[]): Promise<string>;
export async function stringifyInTurns(value: unknown): Promise<string | undefined>;
export async function stringifyInTurns(value: unknown): Promise<string | undefined> {
  const stack: Open[] = [];
  const open = new Set<unknown>();
  const out: string[] = [];
  let runLength = FIRST_RUN;

  /** What goes before a member of `parent`: its comma, and its key in an object. */
  const prefix = (parent: Open, key: string): string => {
    const comma = parent.written++ > 0 ? ',' : '';
    return parent.keys === null ? comma : `${comma}${JSON.stringify(key)}:`;
  };

  /**
   * Writes a member (or the top value, with no parent): small ones natively, in one call;
   * a large container is opened instead, its members written by the loop below. A member
   * JSON.stringify leaves out is left out of an object and `null` in an array.
   */
  const write = (parent: Open | undefined, key: string, raw: unknown): void => {
    const v = prepared(key, raw);
    let text: string | undefined;
    if (v === null) text = 'null';
    else if (typeof v !== 'object') text = typeof v === 'function' ? undefined : JSON.stringify(v);
    // A toJSON returned by a toJSON is not called again, whereas JSON.stringify(v) would call it: leftAfter says -1.
    else if (leftAfter(v, SMALL) >= 0) text = JSON.stringify(v);
    else {
      if (open.has(v)) throw new TypeError('Converting circular structure to JSON');
      open.add(v);
      const isArray = Array.isArray(v);
      out.push(`${parent ? prefix(parent, key) : ''}${isArray ? '[' : '{'}`);
      stack.push({ value: v as Record<string, unknown> | unknown[], keys: isArray ? null : Object.keys(v), index: 0, written: 0 });
      return;
    }
    if (parent === undefined) {
      if (text !== undefined) out.push(text);
    } else if (parent.keys === null) out.push(`${prefix(parent, key)}${text ?? 'null'}`);
    else if (text !== undefined) out.push(`${prefix(parent, key)}${text}`);
  };

  /** Past a run of items from `top.index` on, written as one piece; false when the next item must be walked. */
  const runOfItems = (top: Open, list: unknown[]): boolean => {
    const last = Math.min(list.length, top.index + runLength);
    let end = top.index;
    while (end < last && sameInSlice(list[end])) end++;
    if (end === top.index) return false;
    const started = performance.now();
    const items = JSON.stringify(list.slice(top.index, end));
    out.push(`${top.written > 0 ? ',' : ''}${items.slice(1, -1)}`);
    top.written += end - top.index;
    const ms = performance.now() - started;
    // The next run as long as this one's pace allows within RUN_MS.
    runLength = Math.max(1, Math.min(LONGEST_RUN, Math.floor(((end - top.index) * RUN_MS) / Math.max(ms, 0.001))));
    top.index = end;
    return true;
  };

  write(undefined, '', value);
  if (stack.length === 0) return out.length === 0 ? undefined : out[0];
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    const list = top.keys === null ? (top.value as unknown[]) : null;
    const length = list ? list.length : top.keys!.length;
    if (top.index < length) {
      if (list === null || !runOfItems(top, list)) {
        const key = list ? String(top.index) : top.keys![top.index]!;
        const member = list ? list[top.index] : (top.value as Record<string, unknown>)[key];
        top.index++;
        write(top, key, member);
      }
      const wait = loopTurn();
      if (wait) await wait;
      continue;
    }
    stack.pop();
    open.delete(top.value);
    out.push(list ? ']' : '}');
  }
  return out.join('');
}
