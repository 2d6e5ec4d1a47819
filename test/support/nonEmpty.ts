/**
 * Assertions over each item of a collection that fail when it is empty. `.every` over an
 * empty list is true, and a loop over one runs no assertion: a test whose collection
 * came back empty passed without checking anything (issue #43: the tracing suite's check
 * of the statements' spans went on passing after the spans it filtered for were renamed).
 * test/unit/vacuousAssertions.test.ts requires these wherever a test asserts over each
 * item of a collection that is not a literal.
 */

/** The items of `items`, which must be at least one: `for (const x of nonEmpty(xs)) expect(...)`. */
export function nonEmpty<T>(items: Iterable<T>, what = 'the collection'): T[] {
  const list = [...items];
  if (list.length === 0) throw new Error(`${what} is empty: an assertion over each of its items would check nothing`);
  return list;
}

/** Every item of `items`, which must be at least one, `holds`; the failure lists the items that do not. */
export function expectEvery<T>(items: Iterable<T>, holds: (item: T) => boolean, what?: string): void {
  expect(nonEmpty(items, what).filter((item) => !holds(item))).toEqual([]);
}
