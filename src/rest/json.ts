/**
 * JSON for REST responses. Doubles in typed value objects are written with a decimal
 * part (`30.0`, not `30`, docs/contract.md §4) so that clients that compare types see a double, and
 * BigInts become strings. JSON.stringify runs natively, without a replacer: a replacer
 * is called for every key, which made a large aspect hold the event loop per response
 * (BENCHMARKS.md, "Figures that explained code choices"). The integers under `double` keys get their `.0` afterwards.
 */

/**
 * `"double":<integer>` where an object key stands. JSON.stringify escapes every quote
 * inside a string, so `{"double":` or `,"double":` never matches inside one; numbers it
 * writes with a fraction or an exponent (`1.5`, `1e+21`) are left as they are.
 */
const INTEGER_DOUBLE = /([{,]"double":)(-?\d+)(?=[,}])/g;

const bigintsAsStrings = (_key: string, value: unknown): unknown => (typeof value === 'bigint' ? value.toString() : value);

export function stringifyRest(value: unknown): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (err) {
    // A BigInt (a job or change id) is what makes JSON.stringify throw here; a cycle throws again below.
    if (!(err instanceof TypeError)) throw err;
    text = JSON.stringify(value, bigintsAsStrings);
  }
  if (text === undefined) return '';
  // Most large answers hold no typed values at all: a plain search is much cheaper than the pattern.
  return text.includes('"double":') ? text.replace(INTEGER_DOUBLE, '$1$2.0') : text;
}

/**
 * Whether a request body can be parsed with JSON.parse alone. Fastify's parser
 * (secure-json-parse) refuses `__proto__` and `constructor` keys by running two regular
 * expressions over the whole text after parsing it, a long turn for a 1,000-entity
 * batch (BENCHMARKS.md, "Figures that explained code choices"). Such a key is spelled out in the text either literally or with
 * `\u` escapes, so a text holding neither word and no `\u` escape cannot carry one; any
 * other text (and one starting with a byte-order mark) takes Fastify's parser.
 */
export function parsesPlainly(text: string): boolean {
  return text.charCodeAt(0) !== 0xfeff && !text.includes('\\u') && !text.includes('__proto__') && !text.includes('constructor');
}
