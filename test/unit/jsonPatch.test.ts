/** JSON Patch (RFC 6902) with DataHub's arrayPrimaryKeys extension (docs/contract.md §3). */
import { ValidationError } from '../../src/domain/errors.js';
import { MAX_PATCH_OPERATIONS, applyPatch, parsePatchDocument, type PatchDocument, type PatchOperation } from '../../src/domain/jsonPatch.js';
import { thrown } from './thrown.js';

const A = 'urn:li:structuredProperty:io.acryl.a';
const B = 'urn:li:structuredProperty:io.acryl.b';
const C = 'urn:li:structuredProperty:io.acryl.c';

function plain(...patch: PatchOperation[]): PatchDocument {
  return { patch, arrayPrimaryKeys: {} };
}

function keyed(...patch: PatchOperation[]): PatchDocument {
  return { patch, arrayPrimaryKeys: { properties: ['propertyUrn'] } };
}

function aspect(): { properties: Array<{ propertyUrn: string; values: unknown[] }> } {
  return {
    properties: [
      { propertyUrn: A, values: [{ string: 'a' }] },
      { propertyUrn: B, values: [{ double: 1 }] },
    ],
  };
}

function patchFailure(doc: unknown, document: PatchDocument): ValidationError {
  const err = thrown(() => applyPatch(doc, document));
  expect(err).toBeInstanceOf(ValidationError);
  return err as ValidationError;
}

function parseFailure(input: unknown): ValidationError {
  const err = thrown(() => parsePatchDocument(input));
  expect(err).toBeInstanceOf(ValidationError);
  return err as ValidationError;
}

describe('patch document', () => {
  test('a bare RFC 6902 array is a patch without keyed arrays', () => {
    expect(parsePatchDocument([{ op: 'remove', path: '/a' }])).toEqual({ patch: [{ op: 'remove', path: '/a' }], arrayPrimaryKeys: {} });
  });

  test('a patch object with arrayPrimaryKeys names the key field of each keyed array', () => {
    const doc = parsePatchDocument({ patch: [{ op: 'add', path: `/properties/${A}`, value: {} }], arrayPrimaryKeys: { properties: ['propertyUrn'] } });

    expect(doc.arrayPrimaryKeys).toEqual({ properties: ['propertyUrn'] });
  });

  test('forceGenericPatch is accepted beside the patch', () => {
    expect(parsePatchDocument({ patch: [], forceGenericPatch: true }).patch).toEqual([]);
  });

  test('an unknown field in the patch body is refused', () => {
    expect(parseFailure({ patch: [], extra: 1 }).message).toBe('extra is not a known field; expected one of patch, arrayPrimaryKeys, forceGenericPatch');
  });

  test('a body without a patch list is refused', () => {
    expect(parseFailure({}).message).toBe('patch is required: a list of operations such as [{"op": "remove", "path": "/properties/<urn>"}]');
  });

  test('a body that is not an object is refused', () => {
    expect(parseFailure('add').message).toBe('patch body must be a JSON object, not "add"');
  });

  test.each(['move', 'copy', 'merge'])('the operation %s is refused', (op) => {
    expect(parseFailure([{ op, path: '/a', from: '/b' }]).message).toBe(`patch[0].op must be one of add, remove, replace, test, not "${op}"`);
  });

  test('a path that is not a JSON pointer is refused', () => {
    expect(parseFailure([{ op: 'remove', path: 'a' }]).message).toBe('patch[0].path must be a JSON pointer such as /properties/<urn>');
  });

  test('add without a value is refused', () => {
    expect(parseFailure([{ op: 'add', path: '/a' }]).message).toBe('patch[0].value is required for add');
  });

  test('add with a null value is accepted', () => {
    expect(parsePatchDocument([{ op: 'add', path: '/a', value: null }]).patch).toEqual([{ op: 'add', path: '/a', value: null }]);
  });

  test('an operation that is not an object is refused', () => {
    expect(parseFailure(['add']).message).toBe('patch[0] must be a JSON object, not "add"');
  });

  test('an arrayPrimaryKeys entry may name several key fields, a nested one with U+241F', () => {
    expect(parsePatchDocument({ patch: [], arrayPrimaryKeys: { properties: ['propertyUrn', 'attribution\u241Fsource'] } }).arrayPrimaryKeys).toEqual({
      properties: ['propertyUrn', 'attribution\u241Fsource'],
    });
  });

  test('an arrayPrimaryKeys entry naming more than four key fields is refused', () => {
    expect(parseFailure({ patch: [], arrayPrimaryKeys: { properties: ['a', 'b', 'c', 'd', 'e'] } }).message).toBe(
      'arrayPrimaryKeys.properties must name at most 4 key fields, e.g. ["propertyUrn", "attribution\u241Fsource"]',
    );
  });

  test('more operations than the limit are refused', () => {
    const ops = Array.from({ length: MAX_PATCH_OPERATIONS + 1 }, () => ({ op: 'remove', path: '/a' }));

    expect(parseFailure(ops).message).toBe(`patch has more than the limit of ${MAX_PATCH_OPERATIONS} entries`);
  });
});

describe('object members (RFC 6902)', () => {
  test('add sets a new member', () => {
    expect(applyPatch({ a: 1 }, plain({ op: 'add', path: '/b', value: 2 }))).toEqual({ a: 1, b: 2 });
  });

  test('add replaces an existing member', () => {
    expect(applyPatch({ a: 1 }, plain({ op: 'add', path: '/a', value: 2 }))).toEqual({ a: 2 });
  });

  test('replace changes an existing member', () => {
    expect(applyPatch({ a: 1 }, plain({ op: 'replace', path: '/a', value: 3 }))).toEqual({ a: 3 });
  });

  test('replace of a missing member fails', () => {
    expect(patchFailure({ a: 1 }, plain({ op: 'replace', path: '/b', value: 3 })).message).toBe('patch[0] (replace /b): b does not exist');
  });

  test('remove deletes an existing member', () => {
    expect(applyPatch({ a: 1, b: 2 }, plain({ op: 'remove', path: '/a' }))).toEqual({ b: 2 });
  });

  test('remove of a missing member fails', () => {
    expect(patchFailure({ a: 1 }, plain({ op: 'remove', path: '/b' })).message).toBe('patch[0] (remove /b): b does not exist');
  });

  test('remove of a member named like an Object.prototype method fails when the document lacks it', () => {
    expect(patchFailure({ a: 1 }, plain({ op: 'remove', path: '/toString' })).message).toBe('patch[0] (remove /toString): toString does not exist');
  });

  test('replace of a member named like an Object.prototype method fails when the document lacks it', () => {
    expect(patchFailure({ a: 1 }, plain({ op: 'replace', path: '/hasOwnProperty', value: 1 })).field).toBe('patch[0].path');
  });

  test('test passes when the member equals the value, key order aside', () => {
    expect(applyPatch({ a: { x: 1, y: 2 } }, plain({ op: 'test', path: '/a', value: { y: 2, x: 1 } }))).toEqual({ a: { x: 1, y: 2 } });
  });

  test('test fails when the member differs from the value', () => {
    expect(patchFailure({ a: 1 }, plain({ op: 'test', path: '/a', value: 2 })).message).toBe('patch[0] (test /a): test failed');
  });

  test('add into a nested object follows the path', () => {
    expect(applyPatch({ a: { b: {} } }, plain({ op: 'add', path: '/a/b/c', value: 1 }))).toEqual({ a: { b: { c: 1 } } });
  });

  test('a path through a missing member fails', () => {
    expect(patchFailure({ a: 1 }, plain({ op: 'add', path: '/x/y', value: 1 })).message).toBe('patch[0] (add /x/y): path segment x does not exist');
  });

  test('a path through a scalar fails', () => {
    expect(patchFailure({ a: 1 }, plain({ op: 'add', path: '/a/b', value: 1 })).message).toBe('patch[0] (add /a/b): parent is not an object or array');
  });

  test('the empty path replaces the whole document', () => {
    expect(applyPatch({ a: 1 }, plain({ op: 'replace', path: '', value: { b: 2 } }))).toEqual({ b: 2 });
  });

  test('the empty path cannot be removed', () => {
    expect(patchFailure({ a: 1 }, plain({ op: 'remove', path: '' })).message).toBe('patch[0] (remove ): cannot remove the whole aspect');
  });

  test('~1 in a path segment stands for "/"', () => {
    expect(applyPatch({}, plain({ op: 'add', path: '/a~1b', value: 1 }))).toEqual({ 'a/b': 1 });
  });

  test('~0 in a path segment stands for "~"', () => {
    expect(applyPatch({}, plain({ op: 'add', path: '/a~0b', value: 1 }))).toEqual({ 'a~b': 1 });
  });

  test('~01 decodes to "~1", not "/"', () => {
    expect(applyPatch({}, plain({ op: 'add', path: '/~01', value: 1 }))).toEqual({ '~1': 1 });
  });

  test.each(['__proto__', 'constructor', 'prototype'])('a path through the reserved segment %s is refused', (segment) => {
    expect(patchFailure({}, plain({ op: 'add', path: `/${segment}/polluted`, value: true })).message).toBe(
      `patch[0] (add /${segment}/polluted): reserved path segment`,
    );
  });

  test('adding under __proto__ does not pollute Object.prototype', () => {
    thrown(() => applyPatch({}, plain({ op: 'add', path: '/__proto__/polluted', value: true })));

    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('array indexes (RFC 6902)', () => {
  test('add at an index inserts before the element there', () => {
    expect(applyPatch({ l: [1, 3] }, plain({ op: 'add', path: '/l/1', value: 2 }))).toEqual({ l: [1, 2, 3] });
  });

  test('add at "-" appends', () => {
    expect(applyPatch({ l: [1] }, plain({ op: 'add', path: '/l/-', value: 2 }))).toEqual({ l: [1, 2] });
  });

  test('add at the array length appends', () => {
    expect(applyPatch({ l: [1] }, plain({ op: 'add', path: '/l/1', value: 2 }))).toEqual({ l: [1, 2] });
  });

  test('add past the array length fails', () => {
    expect(patchFailure({ l: [1] }, plain({ op: 'add', path: '/l/2', value: 2 })).message).toBe('patch[0] (add /l/2): index out of range');
  });

  test('replace at an index changes that element', () => {
    expect(applyPatch({ l: [1, 2] }, plain({ op: 'replace', path: '/l/0', value: 9 }))).toEqual({ l: [9, 2] });
  });

  test('remove at an index deletes that element', () => {
    expect(applyPatch({ l: [1, 2, 3] }, plain({ op: 'remove', path: '/l/1' }))).toEqual({ l: [1, 3] });
  });

  test('remove past the end fails', () => {
    expect(patchFailure({ l: [1] }, plain({ op: 'remove', path: '/l/1' })).field).toBe('patch[0].path');
  });

  test('an index with a leading zero is not an array index', () => {
    expect(patchFailure({ l: [1, 2] }, plain({ op: 'replace', path: '/l/01', value: 0 })).message).toBe('patch[0] (replace /l/01): 01 is not an array index');
  });

  test('a negative index is not an array index', () => {
    expect(patchFailure({ l: [1, 2] }, plain({ op: 'remove', path: '/l/-1' })).field).toBe('patch[0].path');
  });

  test('test compares the element at an index', () => {
    expect(applyPatch({ l: [1, 2] }, plain({ op: 'test', path: '/l/1', value: 2 }))).toEqual({ l: [1, 2] });
  });
});

describe('keyed arrays (arrayPrimaryKeys)', () => {
  test('add with a new key appends the entry', () => {
    const result = applyPatch(aspect(), keyed({ op: 'add', path: `/properties/${C}`, value: { propertyUrn: C, values: [{ string: 'c' }] } }));

    expect(result.properties.map((p) => p.propertyUrn)).toEqual([A, B, C]);
  });

  test('add with an existing key replaces that entry in place', () => {
    const result = applyPatch(aspect(), keyed({ op: 'add', path: `/properties/${A}`, value: { propertyUrn: A, values: [{ string: 'z' }] } }));

    expect(result.properties).toEqual([
      { propertyUrn: A, values: [{ string: 'z' }] },
      { propertyUrn: B, values: [{ double: 1 }] },
    ]);
  });

  test('add fills in the key field when the value omits it', () => {
    const result = applyPatch(aspect(), keyed({ op: 'add', path: `/properties/${C}`, value: { values: [] } }));

    expect(result.properties[2]).toEqual({ values: [], propertyUrn: C });
  });

  test('add whose value names another key than the path is refused', () => {
    expect(patchFailure(aspect(), keyed({ op: 'add', path: `/properties/${C}`, value: { propertyUrn: A, values: [] } })).message).toBe(
      `patch[0] (add /properties/${C}): value.propertyUrn must equal the path key ${C}`,
    );
  });

  test('add of a value that is not an object is refused', () => {
    expect(patchFailure(aspect(), keyed({ op: 'add', path: `/properties/${C}`, value: 'c' })).message).toBe(
      `patch[0] (add /properties/${C}): value must be an object keyed by propertyUrn`,
    );
  });

  test('remove deletes the entry with that key and leaves the others untouched', () => {
    const result = applyPatch(aspect(), keyed({ op: 'remove', path: `/properties/${A}` }));

    expect(result.properties).toEqual([{ propertyUrn: B, values: [{ double: 1 }] }]);
  });

  test('remove of a missing key is a no-op', () => {
    expect(applyPatch(aspect(), keyed({ op: 'remove', path: `/properties/${C}` }))).toEqual(aspect());
  });

  test('replace of an existing key replaces that entry', () => {
    const result = applyPatch(aspect(), keyed({ op: 'replace', path: `/properties/${B}`, value: { propertyUrn: B, values: [{ double: 2 }] } }));

    expect(result.properties[1]).toEqual({ propertyUrn: B, values: [{ double: 2 }] });
  });

  test('replace of a missing key fails', () => {
    expect(patchFailure(aspect(), keyed({ op: 'replace', path: `/properties/${C}`, value: { propertyUrn: C, values: [] } })).message).toBe(
      `patch[0] (replace /properties/${C}): no element with propertyUrn ${C}`,
    );
  });

  test('test passes for an entry equal to the value', () => {
    expect(applyPatch(aspect(), keyed({ op: 'test', path: `/properties/${A}`, value: { propertyUrn: A, values: [{ string: 'a' }] } }))).toEqual(aspect());
  });

  test('test fails for a missing key', () => {
    expect(patchFailure(aspect(), keyed({ op: 'test', path: `/properties/${C}`, value: {} })).message).toBe(`patch[0] (test /properties/${C}): test failed`);
  });

  test('a path below a keyed entry reaches into that entry', () => {
    const result = applyPatch(aspect(), keyed({ op: 'add', path: `/properties/${B}/values/-`, value: { double: 2 } }));

    expect(result.properties[1]!.values).toEqual([{ double: 1 }, { double: 2 }]);
  });

  test('a key containing "/" is addressed with ~1', () => {
    const slashed = 'urn:li:structuredProperty:team/retention';
    const result = applyPatch({ properties: [{ propertyUrn: slashed, values: [] }] }, keyed({ op: 'remove', path: '/properties/urn:li:structuredProperty:team~1retention' }));

    expect(result.properties).toEqual([]);
  });

  test('without arrayPrimaryKeys a urn segment is not an array index', () => {
    expect(patchFailure(aspect(), plain({ op: 'remove', path: `/properties/${A}` })).message).toBe(
      `patch[0] (remove /properties/${A}): ${A} is not an array index`,
    );
  });

  test('adding to a keyed array of an empty aspect creates the entry', () => {
    const result = applyPatch({ properties: [] as unknown[] }, keyed({ op: 'add', path: `/properties/${A}`, value: { propertyUrn: A, values: [] } }));

    expect(result.properties).toEqual([{ propertyUrn: A, values: [] }]);
  });
});

describe('atomicity', () => {
  test('a successful patch leaves its input unmodified', () => {
    const input = aspect();

    applyPatch(input, keyed({ op: 'remove', path: `/properties/${A}` }));

    expect(input).toEqual(aspect());
  });

  test('a failing operation after a successful one leaves the input unmodified', () => {
    const input = aspect();

    thrown(() => applyPatch(input, keyed({ op: 'remove', path: `/properties/${A}` }, { op: 'test', path: `/properties/${B}`, value: {} })));

    expect(input).toEqual(aspect());
  });

  test('the failing operation is named by its index', () => {
    expect(patchFailure({ a: 1 }, plain({ op: 'add', path: '/b', value: 1 }, { op: 'remove', path: '/c' })).field).toBe('patch[1].path');
  });

  test('operations apply in order, each seeing the result of the one before', () => {
    expect(applyPatch({}, plain({ op: 'add', path: '/a', value: {} }, { op: 'add', path: '/a/b', value: 1 }))).toEqual({ a: { b: 1 } });
  });

  test('a value added by a patch is a copy: later changes to the patch do not reach the result', () => {
    const value = { x: 1 };
    const result = applyPatch({}, plain({ op: 'replace', path: '', value }));
    value.x = 2;

    expect(result).toEqual({ x: 1 });
  });
});

describe('nesting depth', () => {
  test('an operation whose path and value together nest deeper than 64 levels is refused', () => {
    let value: unknown = 1;
    for (let i = 0; i < 60; i++) value = { a: value };
    const path = '/' + Array.from({ length: 5 }, () => 'a').join('/');
    expect(parseFailure([{ op: 'add', path, value }]).message).toBe(
      'patch[0] would nest the aspect deeper than the limit of 64 levels of arrays and objects; flatten the value',
    );
    expect(parsePatchDocument([{ op: 'add', path: '/a/a/a/a', value }]).patch).toHaveLength(1);
  });
});

/** structuredProperties' own keys (the registry's): property URN, then the attribution's source. */
const PROPERTY_KEYS = { properties: { keys: [['propertyUrn'], ['attribution', 'source']] } };
const SEP = '\u241F';

describe("composite keys, as DataHub's newer clients address a property with its attribution", () => {
  const attributed = (urn: string, source: string, value: string) => ({ propertyUrn: urn, values: [{ string: value }], attribution: { time: 1, actor: 'urn:li:corpuser:x', source } });
  const sent = (...patch: PatchOperation[]): PatchDocument => ({ patch, arrayPrimaryKeys: { properties: ['propertyUrn', `attribution${SEP}source`] } });

  test('add at /properties/<urn>/<source> appends a new property with its attribution', () => {
    const result = applyPatch(aspect(), sent({ op: 'add', path: `/properties/${C}/urn:li:dataHubIngestionSource:s`, value: attributed(C, 'urn:li:dataHubIngestionSource:s', 'c') }), PROPERTY_KEYS);

    expect(result.properties.map((p) => p.propertyUrn)).toEqual([A, B, C]);
    expect(result.properties[2]).toEqual(attributed(C, 'urn:li:dataHubIngestionSource:s', 'c'));
  });

  test('an element without attribution has the empty source: /properties/<urn>/ addresses it', () => {
    const result = applyPatch(aspect(), sent({ op: 'remove', path: `/properties/${A}/` }), PROPERTY_KEYS);

    expect(result.properties.map((p) => p.propertyUrn)).toEqual([B]);
  });

  test('a property set from another source is a second entry: one entry per property and source, as DataHub keeps them', () => {
    const result = applyPatch(aspect(), sent({ op: 'add', path: `/properties/${A}/s2`, value: attributed(A, 's2', 'z') }), PROPERTY_KEYS);

    expect(result.properties).toEqual([...aspect().properties, attributed(A, 's2', 'z')]);
  });

  test('the same source sets the entry again in place', () => {
    const once = applyPatch(aspect(), sent({ op: 'add', path: `/properties/${A}/s2`, value: attributed(A, 's2', 'z') }), PROPERTY_KEYS);
    const twice = applyPatch(once, sent({ op: 'add', path: `/properties/${A}/s2`, value: attributed(A, 's2', 'y') }), PROPERTY_KEYS);

    expect(twice.properties).toEqual([...aspect().properties, attributed(A, 's2', 'y')]);
  });

  test("a value without attribution, added at a source's path, is stored with that source (the writer's time and actor from `fill`), so the same source replaces it next time", () => {
    const bare = (value: string) => ({ propertyUrn: C, values: [{ string: value }] });
    const fill = { attribution: { time: 5, actor: 'urn:li:corpuser:writer' } };
    const once = applyPatch(aspect(), sent({ op: 'add', path: `/properties/${C}/urn:li:dataHubIngestionSource:s`, value: bare('c') }), PROPERTY_KEYS, fill);
    expect(once.properties[2]).toEqual({ ...bare('c'), attribution: { time: 5, actor: 'urn:li:corpuser:writer', source: 'urn:li:dataHubIngestionSource:s' } });
    const twice = applyPatch(once, sent({ op: 'add', path: `/properties/${C}/urn:li:dataHubIngestionSource:s`, value: bare('d') }), PROPERTY_KEYS, fill);
    expect(twice.properties.filter((p) => p.propertyUrn === C)).toEqual([{ ...bare('d'), attribution: { time: 5, actor: 'urn:li:corpuser:writer', source: 'urn:li:dataHubIngestionSource:s' } }]);
  });

  test('an empty source leaves a value unattributed; an attribution naming another source than the path is refused', () => {
    expect(applyPatch(aspect(), sent({ op: 'add', path: `/properties/${C}/`, value: { propertyUrn: C, values: [] } }), PROPERTY_KEYS).properties[2]).toEqual({ propertyUrn: C, values: [] });
    const err = thrown(() => applyPatch(aspect(), sent({ op: 'add', path: `/properties/${C}/s1`, value: attributed(C, 's2', 'x') }), PROPERTY_KEYS));
    expect(err.message).toMatch(/value.attribution.source must equal the path key s1/);
  });

  test('remove at /properties/<urn>/<source> of another source is a no-op', () => {
    expect(applyPatch(aspect(), sent({ op: 'remove', path: `/properties/${A}/elsewhere` }), PROPERTY_KEYS)).toEqual(aspect());
  });

  test("without arrayPrimaryKeys the aspect's own keys apply", () => {
    const result = applyPatch(aspect(), plain({ op: 'remove', path: `/properties/${B}/` }), PROPERTY_KEYS);

    expect(result.properties.map((p) => p.propertyUrn)).toEqual([A]);
  });
});

describe("group paths, as DataHub's older clients send a plain list", () => {
  test('remove at /properties/<urn> removes the property from every source, then add sets it', () => {
    const ops = plain({ op: 'remove', path: `/properties/${A}` }, { op: 'add', path: `/properties/${A}`, value: { propertyUrn: A, values: [{ string: 'new' }] } });

    const result = applyPatch(aspect(), ops, PROPERTY_KEYS);

    expect(result.properties).toEqual([
      { propertyUrn: B, values: [{ double: 1 }] },
      { propertyUrn: A, values: [{ string: 'new' }] },
    ]);
  });

  test('add at a group path replaces the group in place', () => {
    const result = applyPatch(aspect(), plain({ op: 'add', path: `/properties/${B}`, value: { values: [{ double: 7 }] } }), PROPERTY_KEYS);

    expect(result.properties[1]).toEqual({ values: [{ double: 7 }], propertyUrn: B });
  });

  test('a keyed array absent from the aspect is an empty one', () => {
    expect(applyPatch({} as { properties?: unknown[] }, plain({ op: 'add', path: `/properties/${A}`, value: { values: [] } }), PROPERTY_KEYS)).toEqual({ properties: [{ values: [], propertyUrn: A }] });
  });
});

describe("a definition's arrays, as StructuredPropertyPatchBuilder addresses them", () => {
  const DEFINITION_KEYS = { entityTypes: { keys: [] }, allowedValues: { keys: [['value', '*']] } };
  const DATASET = 'urn:li:entityType:datahub.dataset';
  const CHART = 'urn:li:entityType:datahub.chart';
  const definition = () => ({ entityTypes: [DATASET], allowedValues: [{ value: { double: 30 } }, { value: { double: 60 } }] });

  test('add /entityTypes/<urn> adds the entity type once', () => {
    const twice = plain({ op: 'add', path: `/entityTypes/${CHART}`, value: CHART }, { op: 'add', path: `/entityTypes/${CHART}`, value: CHART });

    expect(applyPatch(definition(), twice, DEFINITION_KEYS).entityTypes).toEqual([DATASET, CHART]);
  });

  test('remove /entityTypes/<urn> removes it', () => {
    expect(applyPatch(definition(), plain({ op: 'remove', path: `/entityTypes/${DATASET}` }), DEFINITION_KEYS).entityTypes).toEqual([]);
  });

  test('add /allowedValues/<value> adds an allowed value; a number key matches 30 and 30.0 alike', () => {
    const added = applyPatch(definition(), plain({ op: 'add', path: '/allowedValues/90', value: { value: { double: 90 }, description: 'long' } }), DEFINITION_KEYS);
    expect(added.allowedValues).toEqual([{ value: { double: 30 } }, { value: { double: 60 } }, { value: { double: 90 }, description: 'long' }]);

    const removed = applyPatch(definition(), plain({ op: 'remove', path: '/allowedValues/30.0' }), DEFINITION_KEYS);
    expect(removed.allowedValues).toEqual([{ value: { double: 60 } }]);
  });
});
