/** Filter trees compiled to Meilisearch filter strings, and the document forms they rely on. */
import fc from 'fast-check';
import { ValidationError } from '../../src/domain/errors.js';
import { parseLuceneQuery } from '../../src/domain/luceneQuery.js';
import { parseUrn } from '../../src/domain/urn.js';
import { compileFilter, quote, targetOf, type FieldTarget } from '../../src/search/compileFilter.js';
import { buildDocument, documentId, indexText, MAX_TEXT_BYTES, sortKey } from '../../src/search/documents.js';
import { afterCursorFilter, decodeCursor, encodeCursor } from '../../src/search/cursor.js';
import { searchFacts } from '../../src/domain/searchFacts.js';

const targets = new Map<string, FieldTarget>([
  ['n', { attr: 'sp.g7', reversedAttr: 'sp.r7', valueKind: 'number' }],
  ['s', { attr: 'sp.g8', reversedAttr: 'sp.r8', valueKind: 'text' }],
  ['name', { attr: 'name', valueKind: 'text' }],
  ['urn', { attr: 'urn', valueKind: 'text', equalityByKey: true }],
]);
const compile = (q: string) => compileFilter(parseLuceneQuery(q), targets);

describe('compileFilter', () => {
  test('numbers are compared as numbers, in canonical form', () => {
    expect(compile('n:>45.0')).toBe('sp.g7 > "45"');
    expect(compile('n:60')).toBe('sp.g7 = "60"');
    expect(compile('n:[1 TO 2}')).toBe('(sp.g7 >= "1" AND sp.g7 < "2")');
  });

  test('a number field refuses a value that is not a number', () => {
    expect(() => compile('n:abc')).toThrow(ValidationError);
    expect(() => compile('n:>1e999')).toThrow(/not a number/);
  });

  test('text equality keeps case; ordering comparisons use lower case as Meilisearch stores it', () => {
    expect(compile('s:Foo')).toBe('sp.g8 = "Foo"');
    expect(compile('s:>Foo')).toBe('sp.g8 > "foo"');
  });

  test('quotes and backslashes are escaped', () => {
    expect(compile('s:"a\\"b\\\\c"')).toBe('sp.g8 = "a\\"b\\\\c"');
    expect(quote('x"y')).toBe('"x\\"y"');
  });

  test('exists, boolean structure and NOT', () => {
    expect(compile('_exists_:n AND NOT (s:a OR s:b)')).toBe('(sp.g7 EXISTS AND (NOT (sp.g8 = "a" OR sp.g8 = "b")))');
  });

  test('URN equality goes through the exact sort key, one per URN, long ones included', () => {
    const urn = 'urn:li:dataset:(urn:li:dataPlatform:hive,Db.T,PROD)';
    expect(compileFilter({ kind: 'equals', field: 'urn', values: [urn] }, targets)).toBe(`_k IN ["${sortKey(urn)}"]`);
    const long = `urn:li:dataset:(urn:li:dataPlatform:hive,${'x'.repeat(300)},PROD)`;
    const longer = `urn:li:dataset:(urn:li:dataPlatform:hive,${'x'.repeat(300)}y,PROD)`;
    expect(sortKey(long)).not.toBe(sortKey(longer));
    expect(compileFilter({ kind: 'equals', field: 'urn', values: [long, longer] }, targets)).toBe(`_k IN ["${sortKey(long)}", "${sortKey(longer)}"]`);
  });

  test('text conditions: CONTAINS, STARTS WITH, and END_WITH as a prefix of the reversed text', () => {
    expect(compileFilter({ kind: 'text', field: 's', op: 'contains', value: 'oo' }, targets)).toBe('sp.g8 CONTAINS "oo"');
    expect(compileFilter({ kind: 'text', field: 's', op: 'startsWith', value: 'fo' }, targets)).toBe('sp.g8 STARTS WITH "fo"');
    expect(compileFilter({ kind: 'text', field: 's', op: 'endsWith', value: 'abc' }, targets)).toBe('sp.r8 STARTS WITH "cba"');
    expect(() => compileFilter({ kind: 'text', field: 'n', op: 'contains', value: '1' }, targets)).toThrow(/holds numbers/);
    expect(() => compileFilter({ kind: 'text', field: 'name', op: 'endsWith', value: 'x' }, targets)).toThrow(/END_WITH is not supported/);
  });

  test('name equality also matches a word, or all words, of the name', () => {
    const t = new Map<string, FieldTarget>([['name', targetOf({ kind: 'key', name: 'name' })]]);
    expect(compileFilter({ kind: 'equals', field: 'name', values: ['clicks'] }, t)).toBe('(name = "clicks" OR _nw = "clicks")');
    expect(compileFilter({ kind: 'equals', field: 'name', values: ['daily clicks'] }, t)).toBe('(name = "daily clicks" OR (_nw = "daily" AND _nw = "clicks"))');
  });

  test('booleans compare as true or false, and have no order', () => {
    const t = new Map<string, FieldTarget>([['removed', targetOf({ kind: 'key', name: 'removed' })]]);
    expect(compileFilter({ kind: 'equals', field: 'removed', values: ['TRUE'] }, t)).toBe('_removed = true');
    expect(() => compileFilter({ kind: 'equals', field: 'removed', values: ['yes'] }, t)).toThrow(ValidationError);
    expect(() => compileFilter({ kind: 'compare', field: 'removed', op: 'gt', value: 'false' }, t)).toThrow(/no order/);
  });

  test('several values become IN', () => {
    expect(compileFilter({ kind: 'equals', field: 'n', values: ['1', '2.50'] }, targets)).toBe('sp.g7 IN ["1", "2.5"]');
  });
});

describe('search documents', () => {
  test('a dataset document holds its key fields and current values, texts also reversed', () => {
    const urn = parseUrn('urn:li:dataset:(urn:li:dataPlatform:hive,db.orders,PROD)');
    const facts = searchFacts(urn, false, new Map([['datasetProperties', { name: 'Orders', description: 'Every order, daily' }]]));
    const doc = buildDocument({ urn, facts, values: [{ generation: 4n, values: [{ double: 60 }] }, { generation: 9n, values: [{ string: 'abc' }] }], times: { created: 1000, modified: 2000 } });
    expect(doc).toEqual({
      id: documentId(urn.value),
      urn: urn.value,
      _k: sortKey(urn.value),
      // Sort keys: created, last written, and the display name before the key's name.
      _ct: 1000,
      _mt: 2000,
      _nm: 'orders',
      _type: 'dataset',
      _removed: false,
      name: 'db.orders',
      _nw: ['db', 'orders'],
      platform: 'urn:li:dataPlatform:hive',
      origin: 'PROD',
      displayName: 'Orders',
      description: 'Every order, daily',
      // No test results stored: neither passing nor failing tests.
      hasPassingTests: false,
      hasFailingTests: false,
      sp: { g4: [60], g9: ['abc'], r9: ['cba'] },
    });
    expect(doc.id).toMatch(/^[0-9a-f]{64}$/);
  });

  test("a dataset document holds DataHub's search fields of its tags, owners, domains, container, sub types, terms, custom properties and test results", () => {
    const urn = parseUrn('urn:li:dataset:(urn:li:dataPlatform:hive,db.orders,PROD)');
    const aspects = new Map<string, unknown>([
      ['globalTags', { tags: [{ tag: 'urn:li:tag:pii' }, { tag: 'urn:li:tag:gold' }] }],
      ['ownership', { owners: [{ owner: 'urn:li:corpuser:jdoe', type: 'DATAOWNER' }] }],
      ['domains', { domains: ['urn:li:domain:finance'] }],
      ['container', { container: 'urn:li:container:abc' }],
      ['subTypes', { typeNames: ['Table'] }],
      ['glossaryTerms', { terms: [{ urn: 'urn:li:glossaryTerm:Revenue' }], auditStamp: { time: 0, actor: 'urn:li:corpuser:x' } }],
      ['datasetProperties', { customProperties: { team: 'sales', tier: 'gold' } }],
      ['testResults', { passing: [], failing: [{ test: 'urn:li:test:owner', type: 'FAILURE' }] }],
    ]);
    const doc = buildDocument({ urn, facts: searchFacts(urn, false, aspects), values: [] });
    expect(doc).toMatchObject({
      tags: ['urn:li:tag:pii', 'urn:li:tag:gold'],
      owners: ['urn:li:corpuser:jdoe'],
      domains: ['urn:li:domain:finance'],
      container: 'urn:li:container:abc',
      typeNames: ['Table'],
      glossaryTerms: ['urn:li:glossaryTerm:Revenue'],
      customProperties: ['team=sales', 'tier=gold'],
      failingTests: ['urn:li:test:owner'],
      hasFailingTests: true,
      hasPassingTests: false,
    });
    expect(doc).not.toHaveProperty('passingTests');
  });

  test('a definition document holds what definitions are filtered by, in short forms', () => {
    const urn = parseUrn('urn:li:structuredProperty:io.acryl.retention');
    const definition = {
      qualifiedName: 'io.acryl.retention',
      displayName: 'Retention',
      valueType: 'urn:li:dataType:datahub.number',
      entityTypes: ['urn:li:entityType:svc.dataset', 'urn:li:entityType:datahub.schemaField'],
      cardinality: 'MULTIPLE',
    };
    const facts = searchFacts(urn, true, new Map<string, unknown>([['propertyDefinition', definition], ['structuredPropertySettings', { showInSearchFilters: true }]]));
    const doc = buildDocument({ urn, facts, values: [] });
    expect(doc).toMatchObject({
      _type: 'structuredProperty',
      _removed: true,
      qualifiedName: 'io.acryl.retention',
      displayName: 'Retention',
      valueType: 'number',
      entityTypes: ['dataset', 'schemaField'],
      cardinality: 'MULTIPLE',
      showInSearchFilters: true,
    });
  });

  test('a schema field document names its dataset and the dataset platform', () => {
    const urn = parseUrn('urn:li:schemaField:(urn:li:dataset:(urn:li:dataPlatform:hive,db.orders,PROD),customer_id)');
    expect(buildDocument({ urn, facts: searchFacts(urn, false, new Map()), values: [] })).toMatchObject({
      name: 'customer_id',
      _nw: ['customer', 'id'],
      fieldPath: 'customer_id',
      parent: 'urn:li:dataset:(urn:li:dataPlatform:hive,db.orders,PROD)',
      platform: 'urn:li:dataPlatform:hive',
    });
  });

  test('sort keys order like the URNs (UTF-8 byte order) and are lower-case hex', () => {
    const urnText = fc.string({ unit: 'grapheme', maxLength: 60 }).map((s) => `urn:li:dataset:${s}`);
    fc.assert(
      fc.property(urnText, urnText, (a, b) => {
        const byBytes = Buffer.compare(Buffer.from(a), Buffer.from(b));
        const byKey = sortKey(a) < sortKey(b) ? -1 : sortKey(a) > sortKey(b) ? 1 : 0;
        expect(byKey).toBe(byBytes);
        expect(sortKey(a)).toMatch(/^[0-9a-f]+$/);
      }),
    );
  });

  test('long URNs get short, distinct keys', () => {
    const long = (tail: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,${'x'.repeat(1500)}${tail},PROD)`;
    expect(sortKey(long('a')).length).toBeLessThanOrEqual(400);
    expect(sortKey(long('a'))).not.toBe(sortKey(long('b')));
  });

  test('long texts are cut on a character boundary', () => {
    const cut = indexText('é'.repeat(300));
    expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(MAX_TEXT_BYTES);
    expect(cut).toBe('é'.repeat(MAX_TEXT_BYTES / 2));
  });
});

describe('scroll cursors', () => {
  test('round-trip and continue after the last key in the scroll direction', () => {
    const c = { order: 'desc' as const, after: 'abc123' };
    expect(decodeCursor(encodeCursor(c))).toEqual(c);
    expect(afterCursorFilter(c)).toBe('_k < "abc123"');
    expect(afterCursorFilter({ order: 'asc', after: 'ff' })).toBe('_k > "ff"');
  });

  test('a relevance cursor is a position among the ranked hits', () => {
    const c = { order: 'relevance' as const, offset: 40 };
    expect(decodeCursor(encodeCursor(c))).toEqual(c);
  });

  test.each(['', 'not a cursor!', Buffer.from('a:XYZ').toString('base64url'), Buffer.from('x:ab').toString('base64url')])('rejects %j', (s) => {
    expect(() => decodeCursor(s)).toThrow(ValidationError);
  });
});
