/**
 * The input limits every interface applies to what it decodes (docs/contract.md §12): JSON
 * nesting deeper than 64 levels, U+0000 and lone UTF-16 surrogates anywhere in a
 * string or a key are refused with the path at fault, before anything is stored.
 * PostgreSQL can store neither character, Meilisearch and JSON.stringify fail on
 * them, and deep nesting overflows the stack of every recursive reader afterwards.
 * The REST body parser, the query-string hook, GraphQL variables and literals, the
 * CLI's YAML files and decoded cursors all call this one module.
 */
import { ValidationError } from './errors.js';

export const INPUT_LIMITS = {
  /** Nested arrays and objects; a scalar at the top is depth 0, `[]` depth 1. */
  nestingDepth: 64,
  /** Characters of user input an error message quotes. */
  quotedCharacters: 200,
} as const;

export type PathSegment = string | number;

export interface InputViolation {
  /** Where: object keys and array indexes from the value's root. */
  readonly path: readonly PathSegment[];
  readonly reason: string;
}

/** A lone surrogate (one not part of a pair), or U+0000. */
const BAD_CHARACTER = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Any character that might be one of those: a cheap first look, as almost every text has none. */
const SUSPECT_CHARACTER = /[\u0000\ud800-\udfff]/;

/** Why a text cannot be taken as it is, or undefined when it can. */
export function textViolation(text: string): string | undefined {
  if (!SUSPECT_CHARACTER.test(text)) return undefined;
  const found = BAD_CHARACTER.exec(text);
  if (!found) return undefined;
  const at = `at character ${found.index + 1}`;
  if (found[0] === '\u0000') return `contains the character U+0000 (${at}), which cannot be stored; remove it`;
  const code = found[0].charCodeAt(0).toString(16).toUpperCase();
  return `contains a lone UTF-16 surrogate U+${code} (${at}), which is not valid Unicode text; send whole characters (a surrogate must be followed or preceded by its pair)`;
}

/**
 * Keys that name an object's prototype in JavaScript: `__proto__`, and `constructor`
 * holding a `prototype`. The REST body parser refuses them (secure-json-parse); JSON
 * decoded anywhere else (a Rest.li aspect, a definition's text) is held to the same rule
 * here, so no interface stores what another refuses.
 */
function reservedKey(key: string, value: unknown): string | undefined {
  if (key === '__proto__') return 'is the reserved key "__proto__" (it names an object\'s prototype); rename it';
  if (key === 'constructor' && value !== null && typeof value === 'object' && Object.prototype.hasOwnProperty.call(value, 'prototype')) {
    return 'is a "constructor" key holding "prototype" (it names an object\'s prototype); rename it';
  }
  return undefined;
}

/**
 * The first violation in a JSON-like value, walking it without recursion so that any
 * depth is measured safely. Keys are checked like strings, and for the reserved keys
 * above.
 */
export function findInputViolation(value: unknown): InputViolation | undefined {
  // Each node links to its parent; the path is spelled out only for a violation (a
  // 1,000-entity batch has tens of thousands of nodes, and copying every path was most
  // of the walk's time).
  interface Node {
    readonly value: unknown;
    readonly key: PathSegment | undefined;
    readonly parent: Node | undefined;
    readonly depth: number;
  }
  const pathOf = (node: Node | undefined, last?: PathSegment): PathSegment[] => {
    const path: PathSegment[] = last === undefined ? [] : [last];
    for (let n = node; n?.parent !== undefined; n = n.parent) path.push(n.key!);
    return path.reverse();
  };
  const stack: Node[] = [{ value, key: undefined, parent: undefined, depth: 0 }];
  while (stack.length > 0) {
    const item = stack.pop()!;
    const v = item.value;
    if (typeof v === 'string') {
      const reason = textViolation(v);
      if (reason) return { path: pathOf(item), reason };
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (item.depth >= INPUT_LIMITS.nestingDepth) {
      return { path: pathOf(item), reason: `is nested deeper than the limit of ${INPUT_LIMITS.nestingDepth} levels of arrays and objects; flatten the value` };
    }
    const depth = item.depth + 1;
    // Pushed last child first, so the first child is looked at first and the violation reported is the first in document order.
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], key: i, parent: item, depth });
    } else {
      const entries = Object.entries(v);
      for (const [key, child] of entries) {
        const reason = textViolation(key);
        if (reason) return { path: pathOf(item, key), reason: `has a key that ${reason}` };
        const reserved = reservedKey(key, child);
        if (reserved) return { path: pathOf(item, key), reason: reserved };
      }
      for (let i = entries.length - 1; i >= 0; i--) stack.push({ value: entries[i]![1], key: entries[i]![0], parent: item, depth });
    }
  }
  return undefined;
}

/** How many arrays and objects nest in `value` (0 for a scalar), counting at most `cap` levels. */
export function nestingDepth(value: unknown, cap: number = INPUT_LIMITS.nestingDepth + 1): number {
  let deepest = 0;
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const item = stack.pop()!;
    if (item.value === null || typeof item.value !== 'object') continue;
    const depth = item.depth + 1;
    deepest = Math.max(deepest, depth);
    if (depth >= cap) return depth;
    for (const child of Object.values(item.value)) stack.push({ value: child, depth });
  }
  return deepest;
}

const IDENTIFIER = /^[A-Za-z_$][\w$-]*$/;

/** `properties[0].values[1]`; keys that are not plain names are quoted; `root` names the empty path. */
export function formatPath(path: readonly PathSegment[], root = '(root)'): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (IDENTIFIER.test(segment)) out += out === '' ? segment : `.${segment}`;
    else out += `[${quoteInput(segment)}]`;
  }
  if (out === '') return root;
  const full = out.startsWith('[') && root !== '(root)' ? `${root}${out}` : out;
  // A path of 64 long keys would itself be a long quote of user input.
  return full.length <= 2 * INPUT_LIMITS.quotedCharacters ? full : `${full.slice(0, 100)}…${full.slice(-INPUT_LIMITS.quotedCharacters)}`;
}

/**
 * User input as an error message quotes it: JSON-quoted (so control characters and
 * lone surrogates show as escapes) and cut after INPUT_LIMITS.quotedCharacters.
 */
export function quoteInput(text: string, max: number = INPUT_LIMITS.quotedCharacters): string {
  if (text.length <= max) return JSON.stringify(text);
  return `${JSON.stringify(text.slice(0, max))}… (${text.length - max} more characters)`;
}

/**
 * User input as a log line carries it: unquoted (the line's own encoding escapes it)
 * and cut after INPUT_LIMITS.quotedCharacters, as quoteInput cuts it.
 */
export function clipInput(text: string, max: number = INPUT_LIMITS.quotedCharacters): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}… (${text.length - max} more characters)`;
}

/** Throws a ValidationError naming the path when `value` breaks an input limit. */
export function checkInputLimits(value: unknown, root: string): void {
  const found = findInputViolation(value);
  if (found) throw new ValidationError(`${formatPath(found.path, root)} ${found.reason}`, formatPath(found.path, root));
}

/** The same for one decoded text (a query parameter, a path segment, a cursor). */
export function checkText(text: string, what: string): void {
  const reason = textViolation(text);
  if (reason) throw new ValidationError(`${what} ${reason}`, what);
}
