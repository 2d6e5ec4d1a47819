/**
 * Issue #14: the GraphQL document limits, checked before graphql-js validates (its
 * field-merging check is quadratic), and the `_entities` work count.
 */
import { Kind, parse, type FragmentDefinitionNode, type OperationDefinitionNode } from 'graphql';
import { documentLimitError } from '../../src/graphql/documentGate.js';
import { entitiesWorkProblem } from '../../src/graphql/entitiesLimit.js';
import { DEFAULT_QUERY_LIMITS, measureSelection } from '../../src/graphql/limits.js';

const L = DEFAULT_QUERY_LIMITS;
const problem = (source: string) => documentLimitError(source)?.message;

describe('document limits', () => {
  test('an ordinary query is within every limit', () => {
    expect(problem('query q($u: String!) { dataset(urn: $u) { urn ...P } } fragment P on Dataset { structuredProperties { properties { values { ... on StringValue { stringValue } } } } }')).toBeUndefined();
  });

  test('a field spelled many times in one selection set resolves once: Apollo Client adds __typename to every set, and fragments merge', () => {
    // 200 spellings need 19,900 comparisons to check that they merge: within the limit.
    expect(problem(`{ ${'__typename '.repeat(200)}}`)).toBeUndefined();
    const spreads = Array.from({ length: 30 }, (_, i) => `...F${i}`).join(' ');
    const fragments = Array.from({ length: 30 }, (_, i) => `fragment F${i} on Query { __typename dataset(urn: "u") { urn __typename } }`).join(' ');
    expect(problem(`{ ${spreads} } ${fragments}`)).toBeUndefined();
  });

  test('cost counts what is resolved: each response name once per selection set, however often fragments spell it', () => {
    const cost = (source: string) => {
      const document = parse(source);
      const fragments = new Map(document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((d) => [d.name.value, d]));
      return measureSelection((document.definitions[0] as OperationDefinitionNode).selectionSet, (n) => fragments.get(n), L).cost;
    };
    const fields = 'urn name description platform { urn name }';
    const spreads = Array.from({ length: 20 }, (_, i) => `...F${i}`).join(' ');
    const fragments = Array.from({ length: 20 }, (_, i) => `fragment F${i} on Dataset { ${fields} }`).join(' ');
    expect(cost(`{ dataset(urn: "u") { ${spreads} } } ${fragments}`)).toBe(1 + 6);
    expect(cost(`{ dataset(urn: "u") { ${fields} } }`)).toBe(1 + 6);
    // Different response names are different fields: aliases resolve again.
    expect(cost(`{ a: dataset(urn: "u") { urn } b: dataset(urn: "v") { urn } }`)).toBe(4);
  });

  test('inline fragments and fragments on different object types exclude each other: a set costs its common fields and its costliest type', () => {
    const source = '{ entity(urn: "u") { urn ... on Dataset { name description } ... on Chart { title } ...T } } fragment T on Entity { type }';
    const document = parse(source);
    const fragments = new Map(document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((d) => [d.name.value, d]));
    const set = (document.definitions[0] as OperationDefinitionNode).selectionSet;
    const objects = new Set(['Dataset', 'Chart']);
    // entity + urn + type (Entity is an interface: every object may resolve it) + Dataset's two.
    expect(measureSelection(set, (n) => fragments.get(n), L, undefined, (name) => objects.has(name)).cost).toBe(5);
    // Without the schema every branch is counted.
    expect(measureSelection(set, (n) => fragments.get(n), L).cost).toBe(6);
  });

  test(`a field spelled so often in one set that checking its spellings merge takes over ${L.maxMergeComparisons} comparisons is refused, naming it`, () => {
    expect(problem(`{ ${'__typename '.repeat(300)}}`)).toBe(
      `Query spells __typename 300 times in one selection set (fragments merged in): checking that repeated fields merge takes more than the limit of ${L.maxMergeComparisons} comparisons; select each field once per selection set`,
    );
    expect(problem(`{ ${'... on Query { urn: __typename } '.repeat(300)}}`)).toMatch(/spells urn 300 times/);
  });

  test('spellings merged from fragments count too, each pair of fragments once', () => {
    const spreads = Array.from({ length: 40 }, (_, i) => `...F${i}`).join(' ');
    const fragments = Array.from({ length: 40 }, (_, i) => `fragment F${i} on Query { ${'dataset(urn: "u") { urn } '.repeat(20)}}`).join(' ');
    expect(problem(`{ ${spreads} } ${fragments}`)).toMatch(/spells dataset 800 times in one selection set/);
  });

  test('repeats in an unused fragment are refused too: graphql-js validates every fragment', () => {
    expect(problem(`{ __typename } fragment X on Query { ${'__typename '.repeat(300)}}`)).toMatch(/spells __typename 300 times/);
  });

  test(`more than ${L.maxFragmentSpreads} fragments merged into one selection set are refused`, () => {
    const n = L.maxFragmentSpreads + 1;
    const spreads = Array.from({ length: n }, (_, i) => `...F${i}`).join(' ');
    const fragments = Array.from({ length: n }, (_, i) => `fragment F${i} on Query { __typename }`).join(' ');
    expect(documentLimitError(`{ ${spreads} } ${fragments}`)?.message).toBe(`Query spreads more than the limit of ${L.maxFragmentSpreads} fragments in one selection set`);
  });

  test('fragments that double at every level are measured once each, and refused quickly', () => {
    const levels = Array.from({ length: 60 }, (_, i) => `fragment F${i} on Query { ...F${i + 1} ...F${i + 1} }`).join(' ');
    const started = performance.now();
    expect(problem(`{ ...F0 } ${levels} fragment F60 on Query { __typename }`)).toBeDefined();
    expect(performance.now() - started).toBeLessThan(1000);
  });

  test('depth, aliases and fields keep their limits and messages', () => {
    const deep = `{ ${'entity(urn: "x") { ... on GenericEntity { structuredProperties { properties { valueEntities { '.repeat(7)}urn${' } } } } }'.repeat(7)} }`;
    expect(problem(deep)).toMatch(new RegExp(`exceeds the limit of ${L.maxDepth}`));
    expect(problem(`{ ${Array.from({ length: L.maxAliases + 1 }, (_, i) => `a${i}: __typename`).join(' ')} }`)).toBe(`Query uses more than the limit of ${L.maxAliases} aliases in one selection set`);
  });

  test('a document that does not parse, or is over the token limit, is a parse error as Apollo reports it', () => {
    const unclosed = documentLimitError('{ unclosed');
    expect(unclosed?.toJSON()).toEqual({ message: 'Syntax Error: Expected Name, found <EOF>.', locations: [{ line: 1, column: 11 }], extensions: { code: 'GRAPHQL_PARSE_FAILED' } });
    expect(documentLimitError(`{ ${'a '.repeat(L.maxTokens)}}`)?.message).toBe(`Syntax Error: Document contains more that ${L.maxTokens} tokens. Parsing aborted.`);
  });
});

describe('_entities work', () => {
  const QUERY = 'query q($r: [_Any!]!) { _entities(representations: $r) { ... on Test { urn name } } }';
  const reps = (n: number) => Array.from({ length: n }, (_, i) => ({ __typename: 'Test', urn: `urn:li:test:t${i}` }));
  function check(source: string, variables: Record<string, unknown>) {
    const document = parse(source);
    const operation = document.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)!;
    const fragments = new Map(document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((d) => [d.name.value, d]));
    return entitiesWorkProblem(operation, (n) => fragments.get(n), variables);
  }

  test(`up to ${L.maxRepresentations} representations are allowed; more are refused with the count`, () => {
    expect(check(QUERY, { r: reps(L.maxRepresentations) })).toBeUndefined();
    expect(check(QUERY, { r: reps(3000) })).toBe(`_entities may resolve at most ${L.maxRepresentations} representations per request; this request has 3000`);
  });

  test('fields selected per representation count once per representation against the field limit', () => {
    const perEntity = Math.floor(L.maxCost / 1000) + 1;
    const selection = Array.from({ length: perEntity }, (_, i) => `f${i}: urn`).join(' ');
    expect(check(`query q($r: [_Any!]!) { _entities(representations: $r) { ... on Test { ${selection} } } }`, { r: reps(1000) })).toBe(
      `Query selects more than the limit of ${L.maxCost} fields: _entities selects ${perEntity} fields on each of 1000 representations`,
    );
  });

  test('representations written in the document, and _entities inside a fragment, are counted too', () => {
    const inline = `{ _entities(representations: [${reps(1001).map((r) => `{__typename: "Test", urn: "${r.urn}"}`).join(', ')}]) { __typename } }`;
    expect(check(inline, {})).toMatch(/this request has 1001/);
    expect(check('query q($r: [_Any!]!) { ...E } fragment E on Query { _entities(representations: $r) { __typename } }', { r: reps(1001) })).toMatch(/this request has 1001/);
  });

  test('an operation without _entities is not affected', () => {
    expect(check('{ __typename }', {})).toBeUndefined();
  });
});

describe('the results budget (issue #29, item 3)', () => {
  const operation = (source: string) => parse(source).definitions[0] as OperationDefinitionNode;
  const results = (source: string, variables?: Record<string, unknown>) => measureSelection(operation(source).selectionSet, () => undefined, L, variables).results;

  test('counts are summed over fields and aliases, from an argument or an input object, each capped at the page size', () => {
    expect(results('{ a: listTests(input: {count: 10}) { total } b: listTests(input: {count: 20}) { total } listJobs(input: {count: 5}) { count } }')).toBe(35);
    expect(results('{ scrollAcrossEntities(input: {query: "*", count: 50000}) { total } }')).toBe(1000);
    expect(results('{ listTests(input: {}) { total } __typename }')).toBe(0);
  });

  test('variables count once they are known: a count, or an input holding one; the gate alone counts literals', () => {
    const source = 'query q($n: Int, $i: ListTestsInput) { a: listTests(input: {count: $n}) { total } b: listTests(input: $i) { total } }';
    expect(results(source, { n: 700, i: { count: 300 } })).toBe(1000);
    expect(results(source)).toBe(0);
    expect(results(source, { n: 'many', i: 'x' })).toBe(0);
  });

  test(`over ${L.maxResults} results is refused naming the limit, at the gate when the counts are literals`, () => {
    expect(problem(`{ ${Array.from({ length: 10 }, (_, i) => `a${i}: listTests(input: {count: 1000}) { total }`).join(' ')} }`)).toBeUndefined();
    expect(problem(`{ ${Array.from({ length: 11 }, (_, i) => `a${i}: listTests(input: {count: 1000}) { total }`).join(' ')} }`)).toBe(
      `Query asks for 11000 results (the count of every field it resolves that takes one, each alias counted), more than the limit of ${L.maxResults} per request; ask for fewer, or page with the next cursor`,
    );
  });

  test('a document nested deeper than the limit is refused before it is parsed, with where', () => {
    expect(problem(`{ ${'a { '.repeat(200)}b${' }'.repeat(200)} }`)).toBe(`Query nests braces, brackets and parentheses deeper than the limit of ${L.maxNesting} levels (line 1, column ${2 + 4 * 127 + 3})`);
  });
});
