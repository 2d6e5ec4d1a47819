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

/** An integer parameter, `undefined` when absent; its bounds are the service's to judge. */
export function intParam(query: Query, name: string): number | undefined {
  const v = single(query, name);
  if (v === undefined || v === '') return undefined;
  if (!/^-?\d{1,15}$/.test(v)) throw new ValidationError(`Query parameter ${name} must be an integer, got ${quoteInput(v)}`, name);
  return Number(v);
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

/** An aspect `version` (0, the latest, when absent): a whole number >= 0, as DataHub numbers versions. */
export function versionParam(query: Query): number {
  const v = single(query, 'version');
  if (v === undefined || v === '') return 0;
  if (!/^\d{1,15}$/.test(v)) throw new ValidationError(`Query parameter version must be a whole number >= 0 (0 is the latest, 1..n the earlier versions, oldest first), got ${quoteInput(v)}`, 'version');
  return Number(v);
}
