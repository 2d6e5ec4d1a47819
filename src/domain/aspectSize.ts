/**
 * The size bound on one aspect (LIMITS.aspectJsonLength). Every read of an aspect parses
 * and serialises it whole on the server's one event loop, so its size bounds what one
 * read costs everyone else. Measured on the value before it is stored, without building
 * its JSON text: the walk stops as soon as the bound is passed, so an oversized value
 * costs no more to refuse than one at the bound.
 */
import { ValidationError } from './errors.js';
import { LIMITS } from './limits.js';

/** Whether the JSON text of `value` is longer than `limit` characters (escapes aside). */
export function jsonLongerThan(value: unknown, limit: number): boolean {
  let length = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'string') length += v.length + 2;
    else if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') length += String(v).length;
    else if (Array.isArray(v)) {
      length += Math.max(v.length - 1, 0) + 2;
      if (length > limit) return true;
      for (const item of v) stack.push(item);
    } else if (v !== null && typeof v === 'object') {
      const entries = Object.entries(v);
      length += Math.max(entries.length - 1, 0) + 2;
      for (const [key, item] of entries) {
        length += key.length + 3;
        stack.push(item);
      }
    } else length += 4;
    if (length > limit) return true;
  }
  return false;
}

/** Refuses an aspect value whose JSON would be longer than the limit, naming it. */
export function checkAspectSize(aspect: string, value: unknown, limit: number = LIMITS.aspectJsonLength): void {
  if (jsonLongerThan(value, limit)) {
    throw new ValidationError(`${aspect} is larger than the limit of ${limit} characters of JSON for one aspect`, aspect);
  }
}
