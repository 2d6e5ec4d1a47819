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

/*
 * Issue #29: requests within every size limit that asked the server for too much, or
 * that a single token could use to degrade it for everyone.
 */

const hex = (digits: number) => fc.string({ unit: fc.constantFrom(...'0123456789abcdefABCDEF'), minLength: digits, maxLength: digits });

/** Item 6: trace ids of 32 hex digits whose last 16 exceed a signed 64-bit change id. */
export const traceIdPastChangeIds = fc.tuple(hex(16), fc.constantFrom(...'89abcdefABCDEF'), hex(15)).map(([time, high, rest]) => `${time}${high}${rest}`);

/** Item 1: write traces asking about more entities than a batch holds, or more entity-aspect pairs than the results budget. */
export const oversizedTrace = fc.oneof(
  fc.record({ entities: fc.integer({ min: 1001, max: 3000 }), aspects: fc.integer({ min: 1, max: 3 }) }),
  fc.record({ entities: fc.integer({ min: 101, max: 1000 }), aspects: fc.integer({ min: 11, max: 100 }) }).filter((t) => t.entities * t.aspects > 10_000),
).map(({ entities, aspects }) =>
  Object.fromEntries(Array.from({ length: entities }, (_, i) => [`urn:li:dataset:(urn:li:dataPlatform:hive,fuzz.trace${i},PROD)`, Array.from({ length: aspects }, (_, j) => `aspect${j}`)])),
);

/** Item 2: `_entities` representations naming a type that is no entity, or of no shape at all, 1 to 1,000 of them. */
export const nonEntityRepresentations = fc
  .tuple(
    fc.oneof(
      fc.constantFrom('Query', 'Mutation', '_Service', 'Entity', 'NumberValue', 'StructuredPropertiesEntry', 'Nope', '__Schema', '').map((t) => ({ __typename: t, urn: 'urn:li:dataset:(urn:li:dataPlatform:hive,x,PROD)' })),
      fc.string({ maxLength: 20 }).filter((t) => !['Dataset', 'Test', 'StructuredPropertyEntity'].includes(t)).map((t) => ({ __typename: t })),
      fc.jsonValue({ maxDepth: 2 }).filter((v) => !(v && typeof v === 'object' && !Array.isArray(v) && ['Dataset', 'Test', 'StructuredPropertyEntity'].includes(String((v as Record<string, unknown>).__typename)))),
    ),
    fc.integer({ min: 1, max: 1000 }),
  )
  .map(([representation, n]) => Array.from({ length: n }, () => representation));

const SEARCH_FIELDS = [
  (count: string) => `scrollAcrossEntities(input: {query: "*", count: ${count}}) { total }`,
  (count: string) => `listTests(input: {count: ${count}}) { total }`,
  (count: string) => `listJobs(input: {count: ${count}}) { count }`,
  (count: string) => `listAccessTokens(input: {count: ${count}}) { total }`,
];

/** Item 3: GraphQL operations whose summed `count` arguments (aliases, literal or variable) exceed the results budget. */
export const overBudgetOperation = fc
  .record({ fields: fc.array(fc.nat({ max: SEARCH_FIELDS.length - 1 }), { minLength: 11, maxLength: 50 }), viaVariable: fc.boolean(), count: fc.integer({ min: 1000, max: 100_000 }) })
  .map(({ fields, viaVariable, count }) => ({
    query: `${viaVariable ? 'query q($n: Int)' : 'query q'} { ${fields.map((f, i) => `a${i}: ${SEARCH_FIELDS[f]!(viaVariable ? '$n' : String(count))}`).join(' ')} }`,
    variables: viaVariable ? { n: count } : {},
  }));

/** Item 4: the same Bearer token spelled any way the header allows: the scheme in any case, any run of spaces and tabs, trailing whitespace. */
export const bearerSpelling = (token: string) =>
  fc
    .tuple(fc.constantFrom('Bearer', 'bearer', 'BEARER', 'bEaReR'), fc.array(fc.constantFrom(' ', '\t'), { minLength: 1, maxLength: 4 }), fc.array(fc.constantFrom(' ', '\t'), { maxLength: 2 }))
    .map(([scheme, gap, tail]) => `${scheme}${gap.join('')}${token}${tail.join('')}`);

/** Item 7: GraphQL documents nested past any parser's comfort, braces, brackets and parentheses mixed, under the token limit. */
export const deepDocument = fc.tuple(fc.integer({ min: 129, max: 4000 }), fc.constantFrom('selections', 'lists', 'objects', 'mixed')).map(([asked, kind]) => {
  // Within the 10,000-token limit: the nesting is what is refused, not the length.
  const depth = Math.min(asked, { selections: 700, lists: 4000, objects: 1300, mixed: 1100 }[kind]);
  if (kind === 'selections') return `{ ${'entity(urn: "u") { ... on Dataset { '.repeat(depth)}urn${' } }'.repeat(depth)} }`;
  if (kind === 'lists') return `{ entity(urn: ${'['.repeat(depth)}"u"${']'.repeat(depth)}) { urn } }`;
  if (kind === 'objects') return `{ scrollAcrossEntities(input: ${'{query: "*", orFilters: '.repeat(depth)}null${'}'.repeat(depth)}) { total } }`;
  return `{ a(b: ${'[{c: ('.repeat(depth)}1${')}]'.repeat(depth)}) }`;
});

/** Item 10: a Rest.li aspect whose JSON text holds a reserved prototype key somewhere. */
export function withReservedKey(body: Json, which: number, constructorForm: boolean): string {
  const marked = withInserted(body, which, 0, PLACEHOLDER, true);
  const reserved = constructorForm ? '{"constructor": {"prototype": {"polluted": true}}}' : '{"__proto__": {"polluted": true}}';
  return JSON.stringify(marked).replace(new RegExp(`"[^"]*${PLACEHOLDER}[^"]*"`), reserved);
}
