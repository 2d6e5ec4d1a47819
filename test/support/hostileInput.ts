/**
 * Generators of input that breaks the limits of docs/contract.md §12, for the fuzz suite: a lone
 * surrogate or U+0000 put into any string or key of an otherwise plausible body, and
 * JSON nested past 64 levels put in place of any string.
 */
import fc from 'fast-check';

export const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c));
export const badCharacter = fc.oneof(loneSurrogate, fc.constant('\u0000'));

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

interface Place {
  readonly isKey: boolean;
  /** The body with this string replaced by what `replace` makes of it. */
  readonly apply: (replace: (s: string) => string) => Json;
}

/** Every place a string sits in a JSON value: a value or a key. */
function stringPlaces(value: Json, out: Place[] = [], rebuild: (v: Json) => Json = (v) => v): Place[] {
  if (typeof value === 'string') out.push({ isKey: false, apply: (replace) => rebuild(replace(value)) });
  else if (Array.isArray(value)) value.forEach((item, i) => stringPlaces(item, out, (v) => rebuild(value.map((x, j) => (j === i ? v : x)))));
  else if (value && typeof value === 'object') {
    const entries = Object.entries(value);
    entries.forEach(([key, item], i) => {
      const withEntry = (k: string, v: Json) => rebuild(Object.fromEntries(entries.map(([k2, v2], j) => (j === i ? [k, v] : [k2, v2]))));
      out.push({ isKey: true, apply: (replace) => withEntry(replace(key), item) });
      stringPlaces(item, out, (v) => withEntry(key, v));
    });
  }
  return out;
}

/** `body` with `text` inserted at `position` of one of its strings (`which`, modulo their number); keys too unless `valuesOnly`. */
export function withInserted(body: Json, which: number, position: number, text: string, valuesOnly = false): Json {
  const places = stringPlaces(body).filter((p) => !valuesOnly || !p.isKey);
  if (places.length === 0) return [body, text];
  return places[which % places.length]!.apply((s) => s.slice(0, position % (s.length + 1)) + text + s.slice(position % (s.length + 1)));
}

const PLACEHOLDER = '\u2063deep\u2063';

/** JSON text of `body` with one of its strings replaced by arrays or objects nested `depth` levels. */
export function withDeepValue(body: Json, which: number, depth: number, objects: boolean): string {
  const marked = withInserted(body, which, 0, PLACEHOLDER, true);
  const deep = objects ? `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}` : `${'['.repeat(depth)}${']'.repeat(depth)}`;
  return JSON.stringify(marked).replace(new RegExp(`"[^"]*${PLACEHOLDER}[^"]*"`), deep);
}

export const deepNesting = fc.integer({ min: 65, max: 3000 });
