/** docs/contract.md §7: the metadata test definition grammar, its legacy spellings and its error messages. */
import { ValidationError } from '../../src/domain/errors.js';
import { aspectsRead, parseTestDefinition, parseTestDefinitionJson, propertiesRead, type Predicate } from '../../src/domain/testDefinition.js';
import { parseTestInfo } from '../../src/domain/testInfo.js';
import { parseTestResults, resultsToStore } from '../../src/domain/testResults.js';

const PROP = 'urn:li:structuredProperty:io.acryl.privacy.retentionTime';

function leaf(property: string, operator: string, values?: unknown[]): Record<string, unknown> {
  return values === undefined ? { property, operator } : { property, operator, values };
}

function rulesOf(rules: unknown, types: unknown = ['dataset']): Predicate {
  return parseTestDefinition({ on: { types }, rules }).rules;
}

/** The ValidationError a definition raises; fails the test when it parses. */
function errorOf(raw: unknown): ValidationError {
  try {
    typeof raw === 'string' ? parseTestDefinitionJson(raw) : parseTestDefinition(raw);
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationError);
    return err as ValidationError;
  }
  throw new Error('expected the definition to be rejected');
}

describe('the definition grammar', () => {
  test('a full definition parses into on.types, conditions and rules', () => {
    const def = parseTestDefinitionJson(
      JSON.stringify({
        on: { types: ['dataset'], conditions: [leaf('datasetKey.origin', 'equals', ['PROD'])] },
        rules: { or: [leaf('datasetProperties.description', 'exists'), leaf(`structuredProperties.${PROP}`, 'greater_than', ['30'])] },
      }),
    );
    expect(def.on.types).toEqual(['dataset']);
    expect(def.on.conditions).toMatchObject({ kind: 'and', children: [{ kind: 'leaf', operator: 'equals', values: ['PROD'] }] });
    expect(def.rules).toMatchObject({
      kind: 'or',
      children: [
        { kind: 'leaf', path: { kind: 'aspect', aspect: 'datasetProperties', fields: ['description'] }, operator: 'exists', values: [] },
        { kind: 'leaf', path: { kind: 'structuredProperty', propertyUrn: PROP }, operator: 'greater_than', values: ['30'] },
      ],
    });
  });

  test('an array is an AND, and/or/not nest', () => {
    const rules = rulesOf([{ not: { and: [leaf('urn', 'exists')] } }, { or: [] }]);
    expect(rules).toEqual({
      kind: 'and',
      children: [
        { kind: 'not', child: { kind: 'and', children: [expect.objectContaining({ kind: 'leaf', operator: 'exists' })] } },
        { kind: 'or', children: [] },
      ],
    });
  });

  test('urn and entityType are property paths of their own', () => {
    expect(rulesOf(leaf('urn', 'exists'))).toMatchObject({ path: { kind: 'urn' } });
    expect(rulesOf(leaf('entityType', 'equals', ['dataset']))).toMatchObject({ path: { kind: 'entityType' } });
  });

  test('entity type names match case-insensitively and are stored canonical, without duplicates', () => {
    expect(parseTestDefinition({ on: { types: ['Dataset', 'CHART', 'dataset'] }, rules: [] }).on.types).toEqual(['dataset', 'chart']);
  });

  test('JSON numbers and booleans among values are compared as text, numbers as doubles', () => {
    expect(rulesOf(leaf(`structuredProperties.${PROP}`, 'equals', [60, 'x', true]))).toMatchObject({ values: ['60.0', 'x', 'true'] });
  });

  test('operators are accepted in any case', () => {
    expect(rulesOf(leaf('urn', 'EXISTS'))).toMatchObject({ operator: 'exists' });
  });

  test('empty action lists are accepted (DataHub writes them)', () => {
    expect(() => parseTestDefinition({ on: { types: ['dataset'] }, rules: [], actions: { passing: [], failing: [] } })).not.toThrow();
  });
});

describe('what a definition reads', () => {
  test('the aspects its conditions and rules name, structured properties as one aspect, and the properties by urn', () => {
    const def = parseTestDefinition({
      on: { types: ['dataset'], conditions: [leaf('datasetKey.origin', 'equals', ['PROD'])] },
      rules: { or: [leaf(`structuredProperties.${PROP}`, 'exists'), { not: leaf('globalTags.tags.tag', 'contains_any', ['urn:li:tag:x']) }, leaf('urn', 'exists')] },
    });
    expect(aspectsRead(def)).toEqual(['datasetKey', 'globalTags', 'structuredProperties']);
    expect(propertiesRead(def)).toEqual([PROP]);
  });
});

describe('legacy spellings', () => {
  test('query/operation/params.values stand for property/operator/values', () => {
    expect(rulesOf({ query: 'datasetProperties.name', operation: 'starts_with', params: { values: ['fct_'] } })).toMatchObject({
      kind: 'leaf',
      property: 'datasetProperties.name',
      operator: 'starts_with',
      values: ['fct_'],
    });
  });

  test('params.value and a single value are one-element lists', () => {
    expect(rulesOf({ query: 'urn', operation: 'contains_str', params: { value: 'hive' } })).toMatchObject({ values: ['hive'] });
    expect(rulesOf({ property: 'urn', operator: 'contains_str', value: 'hive' })).toMatchObject({ values: ['hive'] });
    expect(rulesOf({ property: 'urn', operator: 'contains_str', values: 'hive' })).toMatchObject({ values: ['hive'] });
    expect(rulesOf({ property: 'urn', operator: 'contains_str', value: ['hive', 'kafka'] })).toMatchObject({ values: ['hive', 'kafka'] });
  });

  test('negate: true wraps a leaf or a composite in not', () => {
    expect(rulesOf({ property: 'urn', operator: 'exists', negate: true })).toMatchObject({ kind: 'not', child: { kind: 'leaf' } });
    expect(rulesOf({ or: [leaf('urn', 'exists')], negate: true })).toMatchObject({ kind: 'not', child: { kind: 'or' } });
    expect(rulesOf({ property: 'urn', operator: 'exists', negate: false })).toMatchObject({ kind: 'leaf' });
  });

  test('match stands for on.conditions', () => {
    const def = parseTestDefinition({ on: { types: ['dataset'], match: [leaf('urn', 'exists')] }, rules: [] });
    expect(def.on.conditions).toMatchObject({ kind: 'and' });
  });
});

describe('errors name the offending part', () => {
  test.each<[string, unknown, string, RegExp]>([
    ['text that is not JSON', '{"on": ', 'definition.json', /not valid JSON/],
    ['a definition that is not an object', [], '(root)', /must be an object with "on" and "rules"/],
    ['a missing on', { rules: [] }, 'on', /on: is required/],
    ['a missing on.types', { on: {}, rules: [] }, 'on.types', /on\.types: is required/],
    ['an empty on.types', { on: { types: [] }, rules: [] }, 'on.types', /at least one entity type/],
    ['an unknown entity type', { on: { types: ['dataset', 'table'] }, rules: [] }, 'on.types[1]', /unknown entity type "table"/],
    ['an unknown top-level field', { on: { types: ['dataset'] }, rules: [], rule: [] }, 'rule', /rule: is not a known field; did you mean 'rules'\?/],
    ['an unknown field in on', { on: { types: ['dataset'], condition: [] }, rules: [] }, 'on.condition', /on\.condition: is not a known field; did you mean 'conditions'\?/],
    ['missing rules', { on: { types: ['dataset'] } }, 'rules', /rules: is required/],
    ['a predicate that is a string', { on: { types: ['dataset'] }, rules: ['urn'] }, 'rules[0]', /must be a predicate/],
    ['a leaf without property', { on: { types: ['dataset'] }, rules: { or: [{ operator: 'exists' }] } }, 'rules.or[0]', /needs "property"/],
    [
      'a path into testResults, which tests write',
      { on: { types: ['dataset'] }, rules: [leaf('testResults.failing.test', 'exists')] },
      'rules[0].property',
      /a test cannot read testResults, which tests write/,
    ],
    [
      'an unknown operator',
      { on: { types: ['dataset'] }, rules: { or: [leaf('urn', 'exists'), leaf('urn', 'equal', ['x'])] } },
      'rules.or[1].operator',
      /unknown operator "equal"; one of equals, contains_any/,
    ],
    ['a missing operator', { on: { types: ['dataset'] }, rules: [{ property: 'urn' }] }, 'rules[0].operator', /is required/],
    ['values on a unary operator', { on: { types: ['dataset'] }, rules: [leaf('urn', 'exists', ['x'])] }, 'rules[0].values', /exists takes no values/],
    ['no values for equals', { on: { types: ['dataset'] }, rules: [leaf('urn', 'equals')] }, 'rules[0].values', /equals needs at least one value/],
    ['an empty values list', { on: { types: ['dataset'] }, rules: [leaf('urn', 'contains_any', [])] }, 'rules[0].values', /at least one value/],
    [
      'a non-number for greater_than',
      { on: { types: ['dataset'] }, rules: [leaf(`structuredProperties.${PROP}`, 'greater_than', ['30', 'thirty'])] },
      'rules[0].values[1]',
      /"thirty" is not a number/,
    ],
    [
      'a non-number for less_than_or_equal_to',
      { on: { types: ['dataset'] }, rules: [leaf(`structuredProperties.${PROP}`, 'less_than_or_equal_to', ['a year'])] },
      'rules[0].values[0]',
      /less_than_or_equal_to compares numbers; "a year" is not a number/,
    ],
    ['an object among values', { on: { types: ['dataset'] }, rules: [leaf('urn', 'equals', [{ a: 1 }])] }, 'rules[0].values[0]', /string, number or boolean/],
    ['an invalid regex', { on: { types: ['dataset'] }, rules: [leaf('urn', 'regex_match', ['ok', '(unclosed'])] }, 'rules[0].values[1]', /invalid regex "\(unclosed"/],
    ['a regex over the length limit', { on: { types: ['dataset'] }, rules: [leaf('urn', 'regex_match', ['a'.repeat(1001)])] }, 'rules[0].values[0]', /longer than the limit/],
    [
      'an aspect the targeted types do not have',
      { on: { types: ['dataset'] }, rules: [leaf('chartInfo.title', 'exists')] },
      'rules[0].property',
      /chartInfo is not an aspect of dataset/,
    ],
    ['an empty path segment', { on: { types: ['dataset'] }, rules: [leaf('datasetProperties..name', 'exists')] }, 'rules[0].property', /not a property path/],
    [
      'a structured property path that is not a property urn',
      { on: { types: ['dataset'] }, rules: [leaf('structuredProperties.urn:li:tag:pii', 'exists')] },
      'rules[0].property',
      /needs a structured property urn/,
    ],
    [
      'a structured property named by its qualified name',
      { on: { types: ['dataset'] }, rules: [leaf('structuredProperties.io.acryl.privacy.retentionTime', 'exists')] },
      'rules[0].property',
      /name a structured property by its urn, e\.g\. structuredProperties\.urn:li:structuredProperty:io\.acryl\.privacy\.retentionTime/,
    ],
    ['and beside or', { on: { types: ['dataset'] }, rules: { and: [], or: [] } }, 'rules', /has both "and" and "or"/],
    ['a field beside not', { on: { types: ['dataset'] }, rules: { not: [], property: 'urn' } }, 'rules.property', /unexpected beside "not"/],
    ['an and that is not a list', { on: { types: ['dataset'] }, rules: { and: leaf('urn', 'exists') } }, 'rules.and', /must be a list of predicates/],
    ['an unknown field in a leaf', { on: { types: ['dataset'] }, rules: [{ ...leaf('urn', 'exists'), negated: true }] }, 'rules[0].negated', /rules\[0\]\.negated: is not a known field; did you mean 'negate'\?/],
    ['property beside its legacy name', { on: { types: ['dataset'] }, rules: [{ ...leaf('urn', 'exists'), query: 'urn' }] }, 'rules[0].query', /not both/],
    ['values beside params', { on: { types: ['dataset'] }, rules: [{ ...leaf('urn', 'equals', ['a']), params: { values: ['b'] } }] }, 'rules[0].params', /only one of/],
    ['an unknown params field', { on: { types: ['dataset'] }, rules: [{ ...leaf('urn', 'equals'), params: { vals: ['b'] } }] }, 'rules[0].params.vals', /rules\[0\]\.params\.vals: is not a known field; did you mean 'values'\?/],
    ['a non-boolean negate', { on: { types: ['dataset'] }, rules: [{ ...leaf('urn', 'exists'), negate: 'yes' }] }, 'rules[0].negate', /true or false/],
    ['actions to run', { on: { types: ['dataset'] }, rules: [], actions: { passing: [{ type: 'ADD_TAGS' }] } }, 'actions.passing', /not supported/],
  ])('%s', (_name, raw, field, message) => {
    const err = errorOf(raw);
    expect(err.field).toBe(field);
    expect(err.message).toMatch(message);
    expect(err.message).toMatch(/^Invalid test definition: /);
  });

  test('nesting deeper than the limit is refused at the level that crosses it', () => {
    let rules: unknown = leaf('urn', 'exists');
    for (let i = 0; i < 40; i++) rules = { not: rules };
    const err = errorOf({ on: { types: ['dataset'] }, rules });
    expect(err.message).toMatch(/deeper than the limit of 32/);
    expect(err.field).toBe(`rules${'.not'.repeat(33)}`);
  });

  test('a definition text over the size limit is refused before parsing', () => {
    expect(errorOf(' '.repeat(100_001)).message).toMatch(/longer than the limit of 100000 characters/);
  });
});

describe('the testInfo aspect', () => {
  const definition = { type: 'JSON', json: JSON.stringify({ on: { types: ['dataset'] }, rules: [] }) };

  test('a valid testInfo is kept exactly as given', () => {
    const raw = { name: 'Has owner', category: 'Governance', definition, lastUpdatedTimestamp: 1 };
    expect(parseTestInfo(raw).info).toBe(raw);
  });

  test.each<[string, unknown, string, RegExp]>([
    ['a missing name', { category: 'c', definition }, 'name', /name is required/],
    ['a missing category', { name: 'n', definition }, 'category', /category is required/],
    ['a missing definition', { name: 'n', category: 'c' }, 'definition', /definition is required/],
    ['a definition type other than JSON', { name: 'n', category: 'c', definition: { ...definition, type: 'YAML' } }, 'definition.type', /definition\.type must be "JSON", not "YAML"/],
    ['a missing definition json', { name: 'n', category: 'c', definition: { type: 'JSON' } }, 'definition.json', /json is required/],
    ['an unknown field', { name: 'n', category: 'c', definition, owner: 'x' }, 'owner', /^owner is not a known field; expected one of name, category/],
    [
      'an invalid definition',
      { name: 'n', category: 'c', definition: { type: 'JSON', json: '{"on": {"types": ["dataset"]}, "rules": [{"property": "urn", "operator": "nope"}]}' } },
      'rules[0].operator',
      /Invalid test definition: rules\[0\]\.operator: unknown operator "nope"/,
    ],
  ])('%s is refused', (_name, raw, field, message) => {
    try {
      parseTestInfo(raw);
      throw new Error('expected a ValidationError');
    } catch (err) {
      expect(err).toBeInstanceOf(ValidationError);
      expect((err as ValidationError).field).toBe(field);
      expect((err as ValidationError).message).toMatch(message);
    }
  });
});

describe('the testResults aspect', () => {
  const ok = { passing: [{ test: 'urn:li:test:a', type: 'SUCCESS' }], failing: [{ test: 'urn:li:test:b', type: 'FAILURE' }] };

  test('a well-formed aspect parses', () => {
    expect(parseTestResults(ok)).toEqual(ok);
  });

  test.each<[string, unknown, RegExp]>([
    ['a missing list', { passing: [] }, /failing is required/],
    ['a wrong type for the list', { passing: [{ test: 'urn:li:test:a', type: 'FAILURE' }], failing: [] }, /passing\[0\]\.type must be "SUCCESS", not "FAILURE"/],
    ['a test that is not a test urn', { passing: [], failing: [{ test: 'urn:li:tag:a', type: 'FAILURE' }] }, /failing\[0\]\.test "urn:li:tag:a" is not a test urn; write urn:li:test:<id>/],
    ['a test listed twice', { passing: [{ test: 'urn:li:test:a', type: 'SUCCESS' }], failing: [{ test: 'urn:li:test:a', type: 'FAILURE' }] }, /more than once/],
    ['an unknown field', { ...ok, skipped: [] }, /^skipped is not a known field; expected one of passing, failing$/],
  ])('%s is refused', (_name, raw, message) => {
    expect(() => parseTestResults(raw)).toThrow(message);
  });

  const stamp = { time: 1_700_000_000_000, actor: 'urn:li:corpuser:__propgraph_system' };
  const earlier = { time: 1_600_000_000_000, actor: 'urn:li:corpuser:someone' };

  test('a run of every test replaces the stored results; a new outcome is stamped with when it was computed', () => {
    expect(resultsToStore(parseTestResults(ok), { passing: ['urn:li:test:c'], failing: [] }, 'all', stamp)).toEqual({
      passing: [{ test: 'urn:li:test:c', type: 'SUCCESS', lastComputed: stamp }],
      failing: [],
    });
  });

  test('a run of some tests replaces only their results, dropping those now out of scope', () => {
    const stored = parseTestResults(ok);
    const next = resultsToStore(stored, { passing: [], failing: ['urn:li:test:c'] }, new Set(['urn:li:test:a', 'urn:li:test:c']), stamp);
    expect(next).toEqual({ passing: [], failing: [{ test: 'urn:li:test:b', type: 'FAILURE' }, { test: 'urn:li:test:c', type: 'FAILURE', lastComputed: stamp }] });
  });

  test('an unchanged outcome keeps its entry and its time, and results that say the same need no write', () => {
    const stored = { passing: [{ test: 'urn:li:test:a', type: 'SUCCESS' as const, lastComputed: earlier }], failing: [{ test: 'urn:li:test:b', type: 'FAILURE' as const, lastComputed: earlier }] };
    expect(resultsToStore(stored, { passing: ['urn:li:test:a'], failing: ['urn:li:test:b'] }, 'all', stamp)).toBeNull();
    expect(resultsToStore(stored, { passing: ['urn:li:test:a', 'urn:li:test:b'], failing: [] }, 'all', stamp)).toEqual({
      passing: [
        { test: 'urn:li:test:a', type: 'SUCCESS', lastComputed: earlier },
        { test: 'urn:li:test:b', type: 'SUCCESS', lastComputed: stamp },
      ],
      failing: [],
    });
  });

  test('no results where none were stored is no write (an entity no test selects gets no empty aspect)', () => {
    expect(resultsToStore(undefined, { passing: [], failing: [] }, 'all', stamp)).toBeNull();
  });

  test('a test that is gone loses its result when every test runs', () => {
    const stored = { passing: [{ test: 'urn:li:test:gone', type: 'SUCCESS' as const }], failing: [] };
    expect(resultsToStore(stored, { passing: [], failing: [] }, 'all', stamp)).toEqual({ passing: [], failing: [] });
  });
});

describe('input limits inside the definition text', () => {
  test('a U+0000 escaped in the JSON text is refused with its path in the definition', () => {
    const json = JSON.stringify({ on: { types: ['dataset'] }, rules: [{ property: 'urn', operator: 'equals', values: ['a\u0000'] }] });
    expect(() => parseTestDefinitionJson(json)).toThrow(/^Invalid test definition: rules\[0\]\.values\[0\]: contains the character U\+0000/);
  });

  test('nesting deeper than 64 levels is refused', () => {
    const json = `{"on": {"types": ["dataset"]}, "rules": ${'['.repeat(70)}${']'.repeat(70)}}`;
    expect(() => parseTestDefinitionJson(json)).toThrow(/nested deeper than the limit of 64 levels/);
  });
});
