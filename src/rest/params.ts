/** Small parsers for query parameters: each turns untrusted text into a typed value or a 400. */
import { ValidationError } from '../domain/errors.js';
import { quoteInput } from '../domain/inputLimits.js';

export type Query = Record<string, string | string[] | undefined>;

function single(query: Query, name: string): string | undefined {
  const v = query[name];
  return Array.isArray(v) ? v[v.length - 1] : v;
}

export function boolParam(query: Query, name: string, fallback: boolean): boolean {
  const v = single(query, name);
  if (v === undefined || v === '') return fallback;
  if (/^true$/i.test(v)) return true;
  if (/^false$/i.test(v)) return false;
  throw new ValidationError(`Query parameter ${name} must be true or false, got ${quoteInput(v)}`, name);
}

/** `undefined` when absent, so the server default applies. */
export function optionalBoolParam(query: Query, name: string): boolean | undefined {
  return single(query, name) === undefined ? undefined : boolParam(query, name, false);
}

export function intParam(query: Query, name: string, fallback: number, min: number, max: number): number {
  const v = single(query, name);
  if (v === undefined || v === '') return fallback;
  if (!/^-?\d+$/.test(v)) throw new ValidationError(`Query parameter ${name} must be an integer, got ${quoteInput(v)}`, name);
  const n = Number(v);
  if (n < min) throw new ValidationError(`Query parameter ${name} must be at least ${min}`, name);
  // Larger page sizes are capped silently, as DataHub does.
  return Math.min(n, max);
}

export function stringParam(query: Query, name: string): string | undefined {
  return single(query, name);
}

/** A repeatable parameter (`aspects=a&aspects=b`), also accepting comma-separated values. */
export function listParam(query: Query, name: string): string[] | undefined {
  const v = query[name];
  if (v === undefined) return undefined;
  return (Array.isArray(v) ? v : [v]).flatMap((s) => s.split(',')).map((s) => s.trim()).filter(Boolean);
}
