/** docs/contract.md §7: property path resolution, every operator both ways, logic, scope, and the regex bound. */
import { createBoundedMatcher, RegexBoundExceeded } from '../../src/domain/boundedRegex.js';
import { parseTestDefinition, type LeafPredicate, type Predicate } from '../../src/domain/testDefinition.js';
import { explainTest, failedComparisons } from '../../src/domain/testExplanation.js';
import { evaluatePredicate, evaluateTest, resolveProperty, type EntityDocument } from '../../src/domain/testRules.js';
import { nonEmpty } from '../support/nonEmpty.js';

const DATASET = 'urn:li:dataset:(urn:li:dataPlatform:hive,db.orders,PROD)';
const RETENTION = 'urn:li:structuredProperty:io.acryl.privacy.retentionTime';
const CLASS = 'urn:li:structuredProperty:io.acryl.privacy.classification';

const doc: EntityDocument = {
  urn: DATASET,
  entityType: 'dataset',
  aspects: new Map<string, unknown>([
    ['datasetKey', { platform: 'urn:li:dataPlatform:hive', name: 'db.orders', origin: 'PROD' }],
    ['datasetProperties', { name: 'fct_orders', description: 'Orders placed by customers', customProperties: { certified: 'true', empty: '' } }],
    ['globalTags', { tags: [{ tag: 'urn:li:tag:pii' }, { tag: 'urn:li:tag:gold' }] }],
    ['status', { removed: false }],
    ['schemaMetadata', { fields: [{ fieldPath: 'id', nullable: false }, { fieldPath: 'email', nullable: true }] }],
    [
      'structuredProperties',
      {
        properties: [
          { propertyUrn: RETENTION, values: [{ double: 60 }, { double: 365.5 }] },
          { propertyUrn: CLASS, values: [{ string: 'confidential' }] },
        ],
      },
    ],
  ]),
};

const match = createBoundedMatcher();

function rule(raw: unknown): Predicate {
  return parseTestDefinition({ on: { types: ['dataset'] }, rules: raw }).rules;
}

function holds(raw: unknown, on: EntityDocument = doc): boolean {
  return evaluatePredicate(rule(raw), on, match);
}

function leaf(property: string, operator: string, values?: unknown[]): Record<string, unknown> {
  return values === undefined ? { property, operator } : { property, operator, values };
}

describe('property paths', () => {
  const resolve = (property: string) => resolveProperty((rule(leaf(property, 'exists')) as LeafPredicate).path, doc);

  test('urn and entityType resolve to the entity itself', () => {
    expect(resolve('urn')).toEqual([DATASET]);
    expect(resolve('entityType')).toEqual(['dataset']);
  });

  test('an aspect path walks fields and flattens lists', () => {
    expect(resolve('datasetProperties.description')).toEqual(['Orders placed by customers']);
    expect(resolve('globalTags.tags.tag')).toEqual(['urn:li:tag:pii', 'urn:li:tag:gold']);
    expect(resolve('schemaMetadata.fields.nullable')).toEqual(['false', 'true']);
    expect(resolve('datasetKey.origin')).toEqual(['PROD']);
  });

  test('a path that names nothing resolves to no values', () => {
    expect(resolve('datasetProperties.externalUrl')).toEqual([]);
    expect(resolve('ownership.owners.owner')).toEqual([]);
  });

  test('a path never reaches the prototype of a stored object', () => {
    expect(resolve('datasetProperties.constructor')).toEqual([]);
    expect(resolve('datasetProperties.__proto__')).toEqual([]);
  });

  test('structured property values resolve as strings, numbers as doubles', () => {
    expect(resolve(`structuredProperties.${RETENTION}`)).toEqual(['60.0', '365.5']);
    expect(resolve(`structuredProperties.${CLASS}`)).toEqual(['confidential']);
    expect(resolve('structuredProperties.urn:li:structuredProperty:unset')).toEqual([]);
  });
});

describe('operators', () => {
  const sp = `structuredProperties.${RETENTION}`;
  test.each<[string, Record<string, unknown>, boolean]>([
    ['equals: a resolved value is among the values', leaf('datasetKey.origin', 'equals', ['DEV', 'PROD']), true],
    ['equals: no resolved value is among the values', leaf('datasetKey.origin', 'equals', ['DEV']), false],
    ['equals: a number property compares in the 60.0 form', leaf(sp, 'equals', ['60.0']), true],
    ['equals: a JSON number value is written as a double', leaf(sp, 'equals', [60]), true],
    ['equals: the text 60 is not 60.0', leaf(sp, 'equals', ['60']), false],
    ['contains_any: one of several resolved values matches', leaf('globalTags.tags.tag', 'contains_any', ['urn:li:tag:gold']), true],
    ['contains_any: none matches', leaf('globalTags.tags.tag', 'contains_any', ['urn:li:tag:bronze']), false],
    ['contains_str: a value contains the text', leaf('datasetProperties.description', 'contains_str', ['customer']), true],
    ['contains_str: no value contains it', leaf('datasetProperties.description', 'contains_str', ['supplier']), false],
    ['starts_with: a value starts with the text', leaf('datasetProperties.name', 'starts_with', ['dim_', 'fct_']), true],
    ['starts_with: none does', leaf('datasetProperties.name', 'starts_with', ['dim_']), false],
    ['regex_match: the whole value matches', leaf('datasetProperties.name', 'regex_match', ['fct_[a-z]+']), true],
    ['regex_match: a partial match is not a match', leaf('datasetProperties.name', 'regex_match', ['fct']), false],
    ['regex_match: (?i) makes it case-insensitive', leaf('datasetProperties.name', 'regex_match', ['(?i)FCT_.*']), true],
    ['regex_match: case matters otherwise', leaf('datasetProperties.name', 'regex_match', ['FCT_.*']), false],
    ['greater_than: some value is greater', leaf(sp, 'greater_than', ['300']), true],
    ['greater_than: no value is greater', leaf(sp, 'greater_than', ['365.5']), false],
    ['greater_than: compares as numbers, not text', leaf(sp, 'greater_than', ['9']), true],
    ['greater_than: text values never compare', leaf(`structuredProperties.${CLASS}`, 'greater_than', ['0']), false],
    ['less_than: some value is less', leaf(sp, 'less_than', ['61']), true],
    ['less_than: no value is less', leaf(sp, 'less_than', ['60']), false],
    ['less_than_or_equal_to: a value equal to the bound holds (issue #41: "<= 365")', leaf(sp, 'less_than_or_equal_to', ['60']), true],
    ['less_than_or_equal_to: no value is at most', leaf(sp, 'less_than_or_equal_to', ['59.5']), false],
    ['greater_than_or_equal_to: a value equal to the bound holds', leaf(sp, 'greater_than_or_equal_to', ['365.5']), true],
    ['greater_than_or_equal_to: no value is at least', leaf(sp, 'greater_than_or_equal_to', ['366']), false],
    ['greater_than_or_equal_to: text values never compare', leaf(`structuredProperties.${CLASS}`, 'greater_than_or_equal_to', ['0']), false],
    ['exists: a non-empty value', leaf('datasetProperties.description', 'exists'), true],
    ['exists: no value', leaf('datasetProperties.externalUrl', 'exists'), false],
    ['exists: an empty string does not exist', leaf('datasetProperties.customProperties.empty', 'exists'), false],
    ['exists: a structured property with values', leaf(sp, 'exists'), true],
    ['exists: a structured property without values', leaf('structuredProperties.urn:li:structuredProperty:unset', 'exists'), false],
    ['is_true: "true"', leaf('datasetProperties.customProperties.certified', 'is_true'), true],
    ['is_true: the boolean false', leaf('status.removed', 'is_true'), false],
    ['is_true: no value', leaf('datasetProperties.externalUrl', 'is_true'), false],
    ['is_false: the boolean false', leaf('status.removed', 'is_false'), true],
    ['is_false: no value counts as false', leaf('datasetProperties.externalUrl', 'is_false'), true],
    ['is_false: "true"', leaf('datasetProperties.customProperties.certified', 'is_false'), false],
    ['urn: compared like any value', leaf('urn', 'contains_str', ['dataPlatform:hive']), true],
    ['entityType: compared like any value', leaf('entityType', 'equals', ['chart']), false],
  ])('%s', (_name, predicate, expected) => {
    expect(holds(predicate)).toBe(expected);
  });
});

describe('and, or, not', () => {
  const yes = leaf('urn', 'exists');
  const no = leaf('datasetProperties.externalUrl', 'exists');

  test.each<[string, unknown, boolean]>([
    ['a list holds when every predicate holds', [yes, yes], true],
    ['a list fails when one fails', [yes, no], false],
    ['and is the same as a list', { and: [yes, no] }, false],
    ['or holds when one holds', { or: [no, yes] }, true],
    ['or fails when none holds', { or: [no, no] }, false],
    ['not inverts', { not: no }, true],
    ['not of a list inverts the AND', { not: [yes, no] }, true],
    ['legacy negate inverts', { ...yes, negate: true }, false],
    ['an empty AND holds', [], true],
    ['an empty OR fails', { or: [] }, false],
    ['nesting composes', { or: [{ and: [yes, { not: yes }] }, { not: { or: [no] } }] }, true],
  ])('%s', (_name, raw, expected) => {
    expect(holds(raw)).toBe(expected);
  });
});

describe('scope and outcome', () => {
  const test_ = (raw: unknown) => parseTestDefinition(raw);

  test('a test on other entity types is out of scope', () => {
    expect(evaluateTest(test_({ on: { types: ['chart'] }, rules: [] }), doc, match)).toEqual({ outcome: 'OUT_OF_SCOPE' });
  });

  test('a test whose conditions do not hold is out of scope', () => {
    const def = test_({ on: { types: ['dataset'], conditions: [leaf('datasetKey.origin', 'equals', ['DEV'])] }, rules: [] });
    expect(evaluateTest(def, doc, match).outcome).toBe('OUT_OF_SCOPE');
  });

  test('a test in scope succeeds when its rules hold and fails when they do not', () => {
    const on = { types: ['dataset'], conditions: [leaf('datasetKey.origin', 'equals', ['PROD'])] };
    expect(evaluateTest(test_({ on, rules: [leaf('datasetProperties.description', 'exists')] }), doc, match).outcome).toBe('SUCCESS');
    expect(evaluateTest(test_({ on, rules: [leaf('datasetProperties.externalUrl', 'exists')] }), doc, match).outcome).toBe('FAILURE');
  });
});

describe('the regex bound', () => {
  const pathological: EntityDocument = {
    urn: DATASET,
    entityType: 'dataset',
    aspects: new Map([['datasetProperties', { description: `${'a'.repeat(40)}!` }]]),
  };
  const evil = leaf('datasetProperties.description', 'regex_match', ['(a+)+']);

  test('a catastrophically backtracking match exceeds its bound instead of running on', () => {
    const bounded = createBoundedMatcher({ matchTimeoutMs: 20, budgetMs: 1000 });
    expect(() => evaluatePredicate(rule(evil), pathological, bounded)).toThrow(RegexBoundExceeded);
  });

  test('a test whose regex exceeds its bound fails, even under not', () => {
    const bounded = createBoundedMatcher({ matchTimeoutMs: 20, budgetMs: 1000 });
    const result = evaluateTest(parseTestDefinition({ on: { types: ['dataset'] }, rules: { not: evil } }), pathological, bounded);
    expect(result.outcome).toBe('FAILURE');
    expect(result.boundExceeded?.reason).toMatch(/timed out after 20 ms/);
  });

  test('a match that timed out once (a paused machine) is tried once more before the test fails', () => {
    const def = parseTestDefinition({ on: { types: ['dataset'] }, rules: [leaf('datasetProperties.name', 'regex_match', ['fct_.*'])] });
    let calls = 0;
    const pausedOnce = (re: RegExp, inputs: readonly string[]) => {
      if (++calls === 1) throw new RegexBoundExceeded(re.source, 'timed out after 100 ms', true);
      return match(re, inputs);
    };
    expect(evaluateTest(def, doc, pausedOnce)).toEqual({ outcome: 'SUCCESS' });
    expect(calls).toBe(2);
    const alwaysSlow = (re: RegExp) => {
      throw new RegexBoundExceeded(re.source, 'timed out after 100 ms', true);
    };
    expect(evaluateTest(def, doc, alwaysSlow).outcome).toBe('FAILURE');
  });

  test('once the budget is spent, further matches are not run', () => {
    const bounded = createBoundedMatcher({ matchTimeoutMs: 20, budgetMs: 20 });
    expect(() => evaluatePredicate(rule(evil), pathological, bounded)).toThrow(RegexBoundExceeded);
    expect(() => bounded(/^a$/, ['a'])).toThrow(/budget of 20 ms is spent/);
  });

  test('a pattern matches when any of the values matches', () => {
    expect(match(/^b$/, ['a', 'b'])).toBe(true);
    expect(match(/^c$/, ['a', 'b'])).toBe(false);
    expect(match(/^c$/, [])).toBe(false);
  });

  test('inputs longer than the input limit are not matched', () => {
    const bounded = createBoundedMatcher({ maxInputLength: 10 });
    expect(() => bounded(/^a*$/, ['a', 'a'.repeat(11)])).toThrow(/longer than 10 characters/);
    expect(bounded(/^a*$/, ['b', 'a'.repeat(10)])).toBe(true);
  });
});

describe('explaining an outcome', () => {
  const definition = (raw: unknown) => parseTestDefinition(raw as Record<string, unknown>);

  test('a failing test shows each predicate, whether it held and what the entity has at its path', () => {
    const def = definition({
      on: { types: ['dataset'], conditions: [leaf('datasetKey.origin', 'equals', ['PROD'])] },
      rules: [leaf('datasetProperties.description', 'contains_str', ['Orders']), leaf('globalTags.tags.tag', 'contains_any', ['urn:li:tag:certified'])],
    });
    const explained = explainTest(def, doc, match);
    expect(explained.outcome).toBe('FAILURE');
    expect(explained.conditions?.holds).toBe(true);
    expect(explained.rules).toEqual({
      kind: 'and',
      holds: false,
      children: [
        { kind: 'leaf', holds: true, property: 'datasetProperties.description', operator: 'contains_str', values: ['Orders'], actual: ['Orders placed by customers'] },
        { kind: 'leaf', holds: false, property: 'globalTags.tags.tag', operator: 'contains_any', values: ['urn:li:tag:certified'], actual: ['urn:li:tag:pii', 'urn:li:tag:gold'] },
      ],
    });
  });

  test('the outcome is the one evaluateTest gives, out of scope included', () => {
    const defs = [
      { on: { types: ['chart'] }, rules: [] },
      { on: { types: ['dataset'], conditions: [leaf('datasetKey.origin', 'equals', ['DEV'])] }, rules: [] },
      { on: { types: ['dataset'] }, rules: { or: [leaf('urn', 'starts_with', ['urn:li:chart']), { not: leaf('status.removed', 'is_true') }] } },
    ].map(definition);
    for (const def of nonEmpty(defs)) expect(explainTest(def, doc, match).outcome).toBe(evaluateTest(def, doc, match).outcome);
  });

  test('a regex that exceeds its bound is shown as undecided, and the test fails', () => {
    const def = definition({ on: { types: ['dataset'] }, rules: [leaf('datasetProperties.description', 'regex_match', ['(a+)+$'])] });
    const slow = { ...doc, aspects: new Map([['datasetProperties', { description: `${'a'.repeat(40)}!` }]]) };
    const explained = explainTest(def, slow, createBoundedMatcher({ matchTimeoutMs: 20 }));
    expect(explained.outcome).toBe('FAILURE');
    expect(explained.boundExceeded).toMatch(/bound stopped/);
    expect(explained.rules?.children?.[0]?.holds).toBeNull();
  });
});

describe('the comparisons that made a test fail', () => {
  const failed = (rules: unknown) =>
    failedComparisons(explainTest(parseTestDefinition({ on: { types: ['dataset'] }, rules }), doc, match)).map((c) => `${c.expected ? '' : 'not '}${c.property} ${c.operator}`);

  test('the comparisons of an and that did not hold', () => {
    expect(failed([leaf('urn', 'exists'), leaf('datasetProperties.externalUrl', 'exists'), leaf('globalTags.tags.tag', 'contains_any', ['urn:li:tag:x'])])).toEqual([
      'datasetProperties.externalUrl exists',
      'globalTags.tags.tag contains_any',
    ]);
  });

  test('every comparison of an or (none held)', () => {
    expect(failed({ or: [leaf('datasetProperties.externalUrl', 'exists'), leaf('urn', 'starts_with', ['urn:li:chart'])] })).toEqual(['datasetProperties.externalUrl exists', 'urn starts_with']);
  });

  test('under a not, the comparisons that held', () => {
    expect(failed({ not: { or: [leaf('status.removed', 'is_true'), leaf('globalTags.tags.tag', 'contains_any', ['urn:li:tag:pii'])] } })).toEqual(['not globalTags.tags.tag contains_any']);
  });

  test('a passing test has none', () => {
    expect(failed([leaf('urn', 'exists')])).toEqual([]);
  });
});
