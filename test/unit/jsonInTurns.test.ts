import { stringifyInTurns } from '../../src/platform/jsonInTurns.js';

/** Values whose JSON exercises each rule JSON.stringify follows. */
function corpus(): Array<[string, unknown]> {
  const nullPrototype = Object.assign(Object.create(null) as Record<string, unknown>, { urn: 'urn:li:dataset:x', n: 1 });
  const holes = [1, , 3]; // eslint-disable-line no-sparse-arrays
  class Point {
    constructor(
      readonly x: number,
      readonly y: number,
    ) {}
    get sum(): number {
      return this.x + this.y;
    }
  }
  return [
    ['primitives', [null, true, false, 0, -0, 1.5, 1e21, -1e-7, NaN, Infinity, -Infinity, '', 'a"b\\c\n\u0001\u2028', '\ud800 lone', '😀']],
    ['skipped and null members', { a: undefined, b: () => 1, c: Symbol('s'), d: [undefined, () => 1, Symbol('s')], e: 1 }],
    ['holes', holes],
    ['empty containers', { a: {}, b: [], c: [[]], d: [{}] }],
    ['keys to escape', { 'a"b': 1, '\n': 2, '😀': { '': 3 } }],
    ['integer-like keys first, as objects order them', { b: 1, 2: 'two', a: 0, 1: 'one' }],
    ['null prototype (graphql-js results)', { data: nullPrototype, list: [nullPrototype, nullPrototype] }],
    ['toJSON, called with the key', { at: new Date(0), list: [{ toJSON: (key: string) => `item ${key}` }], named: { toJSON: (key: string) => ({ key }) } }],
    ['toJSON returning an object with a toJSON of its own (not called again)', { a: { toJSON: () => ({ toJSON: 'kept', b: [1] }) } }],
    ['boxed primitives', [Object(1), Object('s'), Object(false), { n: Object(2) }]],
    ['class instances, getters left out', [new Point(1, 2), { p: new Point(3, 4) }]],
    ['a Map and a Set are empty objects', { m: new Map([[1, 2]]), s: new Set([1]) }],
    ['the same object twice is no cycle', (() => { const shared = { a: [1, { b: 2 }] }; return { x: shared, y: [shared, shared] }; })()],
    ['deep nesting', JSON.parse('['.repeat(200) + '1' + ']'.repeat(200))],
    [
      'a GraphQL answer of ten lists of 1,000 hits',
      { data: Object.fromEntries(Array.from({ length: 10 }, (_, a) => [`a${a}`, { total: 2000, searchResults: Array.from({ length: 1000 }, (_, i) => ({ entity: { urn: `urn:li:dataset:(urn:li:dataPlatform:hive,t${a}_${i},PROD)`, tags: i % 7 === 0 ? [] : null } })) }])) },
    ],
  ];
}

describe('stringifyInTurns', () => {
  test.each(corpus())('writes what JSON.stringify writes: %s', async (_name, value) => {
    expect(await stringifyInTurns(value)).toBe(JSON.stringify(value));
  });

  test.each([
    ['undefined', undefined],
    ['a function', () => 1],
    ['a symbol', Symbol('s')],
    ['a string', 'x'],
    ['null', null],
    ['a top-level toJSON', { toJSON: (key: string) => ({ key }) }],
  ])('at the top: %s as JSON.stringify', async (_name, value) => {
    expect(await stringifyInTurns(value)).toBe(JSON.stringify(value));
  });

  test('a cycle throws a TypeError, as natively', async () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = { back: [cyclic] };
    expect(() => JSON.stringify(cyclic)).toThrow(TypeError);
    await expect(stringifyInTurns(cyclic)).rejects.toThrow(TypeError);
  });

  test('a BigInt throws a TypeError, as natively, unless it has a toJSON', async () => {
    await expect(stringifyInTurns({ id: [1n] })).rejects.toThrow(TypeError);
    const withToJSON = Object.assign(Object(5n) as object, { toJSON: () => '5' });
    expect(await stringifyInTurns({ id: withToJSON })).toBe(JSON.stringify({ id: withToJSON }));
  });

  test('a large answer lets the event loop run before it is written', async () => {
    const value = corpus().at(-1)![1];
    let ran = false;
    setImmediate(() => {
      ran = true;
    });
    const text = await stringifyInTurns(value);
    expect(ran).toBe(true);
    expect(text).toBe(JSON.stringify(value));
  });
});
