/**
 * Typed value objects (docs/contract.md §3): `{"double": n}` for number properties and
 * `{"string": s}` for string, rich_text, date and urn properties. The definition
 * decides the type; the value's own shape is only checked against it.
 */
import { INPUT_LIMITS } from './inputLimits.js';
import { valueType, type DataType, type ValueRules } from './registry/valueTypes.js';

export type TypedValue = { string: string } | { double: number };

export function isDoubleValue(v: TypedValue): v is { double: number } {
  return 'double' in v;
}

/** The scalar inside a typed value. */
export function scalarOf(v: TypedValue): string | number {
  return isDoubleValue(v) ? v.double : v.string;
}

/** Decimal text of a double with a decimal part, as DataHub prints doubles (`60.0`). */
export function formatDouble(n: number): string {
  return Number.isInteger(n) && Math.abs(n) < 1e21 ? `${n}.0` : String(n);
}

/** User input in a message, cut after INPUT_LIMITS.quotedCharacters. */
function bounded(text: string): string {
  const max = INPUT_LIMITS.quotedCharacters;
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length - max} more characters)`;
}

/** DataHub's rendering of a value in error messages: `{string=baz}`, `{double=30.0}`. */
export function describeValue(v: unknown): string {
  if (v && typeof v === 'object' && !Array.isArray(v)) {
    const entries = Object.entries(v as Record<string, unknown>);
    return `{${entries.map(([k, x]) => `${k}=${typeof x === 'number' ? formatDouble(x) : bounded(typeof x === 'string' ? x : (JSON.stringify(x) ?? String(x)))}`).join(', ')}}`;
  }
  return bounded(JSON.stringify(v) ?? String(v));
}

/**
 * A value in our own messages as people write it in a definition, a file or a form:
 * numbers plain (`1825`), text quoted (`"high"`). DataHub's `{double=1825.0}` stays only in
 * the value-write messages DataHub's clients know (describeValue).
 */
export function valueAsWritten(v: unknown): string {
  if (v && typeof v === 'object' && !Array.isArray(v)) {
    const o = v as Record<string, unknown>;
    const keys = Object.keys(o);
    if (keys.length === 1 && keys[0] === 'double' && typeof o.double === 'number') return String(o.double);
    if (keys.length === 1 && keys[0] === 'string' && typeof o.string === 'string') return JSON.stringify(bounded(o.string));
  }
  return bounded(JSON.stringify(v) ?? String(v));
}

/** Values in a message listing them: the first few, then how many more. */
export function describeValues(values: readonly unknown[], shown = 10): string {
  const listed = values.slice(0, shown).map(describeValue).join(', ');
  return values.length > shown ? `[${listed}, … (${values.length - shown} more)]` : `[${listed}]`;
}

/** The value as a string, numbers with a decimal part: the form used in facets and test rules. */
export function valueAsString(v: TypedValue): string {
  return isDoubleValue(v) ? formatDouble(v.double) : v.string;
}

function parseNumber(x: unknown): number | undefined {
  if (typeof x === 'number' && Number.isFinite(x)) return x;
  if (typeof x === 'string' && x.trim() !== '' && /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(x.trim())) {
    const n = Number(x);
    return Number.isFinite(n) ? n : undefined;
  }
  return undefined;
}

export type { ValueRules };

export type CoerceResult = { ok: true; value: TypedValue } | { ok: false; reason: string };

/**
 * Turns an untrusted value object into the canonical typed value for `type`, or says
 * why it cannot be one. A numeric string is accepted for a number property.
 */
export function coerceTypedValue(input: unknown, type: DataType, rules: ValueRules = {}): CoerceResult {
  if (!input || typeof input !== 'object' || Array.isArray(input)) {
    return { ok: false, reason: 'a value must be an object like {"string": ...} or {"double": ...}' };
  }
  const keys = Object.keys(input);
  if (keys.length !== 1 || (keys[0] !== 'string' && keys[0] !== 'double')) {
    return { ok: false, reason: 'a value must have exactly one key, "string" or "double"' };
  }
  const raw = (input as Record<string, unknown>)[keys[0]!];
  const info = valueType(type);
  if (info.stored === 'double') {
    const n = parseNumber(raw);
    return n === undefined ? { ok: false, reason: `should be a ${info.noun}` } : { ok: true, value: { double: n } };
  }
  if (keys[0] !== 'string' || typeof raw !== 'string') return { ok: false, reason: `should be a ${info.noun}` };
  if (raw.length > info.maxLength) return { ok: false, reason: `is longer than the limit of ${info.maxLength} characters` };
  const problem = info.problem?.(raw, rules);
  return problem ? { ok: false, reason: problem } : { ok: true, value: { string: raw } };
}

export function sameValue(a: TypedValue, b: TypedValue): boolean {
  return isDoubleValue(a) ? isDoubleValue(b) && a.double === b.double : !isDoubleValue(b) && a.string === b.string;
}
