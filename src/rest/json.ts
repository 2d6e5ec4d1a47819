/**
 * JSON for REST responses. Doubles in typed value objects are written with a decimal
 * part (`30.0`, not `30`, SPEC 4) so that clients that compare types see a double;
 * JSON.stringify cannot do that, so such numbers pass through a per-process sentinel
 * string that is swapped for the literal afterwards. BigInts become strings.
 */
import { randomBytes } from 'node:crypto';
import { formatDouble } from '../domain/typedValue.js';

const SENTINEL = `\u0000${randomBytes(8).toString('hex')}:`;
const SENTINEL_PATTERN = new RegExp(`"\\\\u0000${SENTINEL.slice(1)}([^"]*)"`, 'g');

function replacer(this: unknown, key: string, value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (key === 'double' && typeof value === 'number' && Number.isFinite(value)) return SENTINEL + formatDouble(value);
  return value;
}

export function stringifyRest(value: unknown): string {
  const text = JSON.stringify(value, replacer);
  return text === undefined ? '' : text.replace(SENTINEL_PATTERN, '$1');
}
