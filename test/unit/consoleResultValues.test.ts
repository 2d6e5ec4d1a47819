/** The console's search results: which values a result shows (issue #41: a filtered value hid behind "and 1 more"). */
import { resultValues } from '../../src/console/lib/resultValues.js';

const held = (...names: string[]) => names.map((qualifiedName) => ({ structuredProperty: { definition: { qualifiedName } } }));
const names = (r: ReturnType<typeof resultValues>) => r.shown.map((p) => `${p.structuredProperty.definition.qualifiedName}${p.filtered ? '*' : ''}`);

describe('resultValues', () => {
  test('the properties filtered on come first, in the search order, and are never counted in "more"', () => {
    const r = resultValues(held('a', 'b', 'c', 'd', 'pii', 'tier'), ['tier', 'pii'], 4);
    expect(names(r)).toEqual(['tier*', 'pii*', 'a', 'b']);
    expect(r.more).toBe(2);
  });

  test('more filtered properties than the room: all of them are shown, and the others counted', () => {
    const r = resultValues(held('a', 'f1', 'f2', 'f3'), ['f1', 'f2', 'f3'], 2);
    expect(names(r)).toEqual(['f1*', 'f2*', 'f3*']);
    expect(r.more).toBe(1);
  });

  test('without filters, the first ones up to the room', () => {
    const r = resultValues(held('a', 'b', 'c'), [], 4);
    expect(names(r)).toEqual(['a', 'b', 'c']);
    expect(r.more).toBe(0);
  });
});
