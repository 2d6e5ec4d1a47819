/**
 * The fault and conformance suites' matrices are split between `npm test` and CI's Node
 * 24 run (issue #43, test/support/testMatrix.ts): the two parts together are every case,
 * each once, and CI's scripts do run both parts.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { matrixPart, pairsForHalves, partOfMatrix } from '../support/testMatrix.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

describe('the test matrix in two parts', () => {
  test.each([1, 2, 3, 4])('of %i cases, the first and second parts are disjoint and make the whole, at every turn', (n) => {
    const cases = Array.from({ length: n }, (_, i) => `case${i}`);
    for (const turn of [0, 1, 2]) {
      const first = partOfMatrix(cases, turn, 'first');
      const second = partOfMatrix(cases, turn, 'second');
      expect(first.length).toBeGreaterThan(0);
      expect(second.length).toBeGreaterThan(0);
      if (n > 1) expect(first.filter((c) => second.includes(c))).toEqual([]);
      expect(new Set([...first, ...second])).toEqual(new Set(cases));
      expect(partOfMatrix(cases, turn, 'full')).toEqual(cases);
    }
  });

  test('turns alternate which setup the first part takes', () => {
    expect(partOfMatrix(['embedded', 'external'], 0, 'first')).toEqual(['embedded']);
    expect(partOfMatrix(['embedded', 'external'], 1, 'first')).toEqual(['external']);
  });

  test('pairs of two databases and two namespaces: each part, at either turn, holds both of each, and the parts make every pair', () => {
    const pairs = pairsForHalves(['embedded', 'external'], ['datahub', 'default']);
    expect(new Set(pairs.map(([a, b]) => `${a}/${b}`))).toEqual(new Set(['embedded/datahub', 'embedded/default', 'external/datahub', 'external/default']));
    for (const turn of [0, 1]) {
      for (const part of ['first', 'second'] as const) {
        const half = partOfMatrix(pairs, turn, part);
        expect(new Set(half.map(([a]) => a))).toEqual(new Set(['embedded', 'external']));
        expect(new Set(half.map(([, b]) => b))).toEqual(new Set(['datahub', 'default']));
      }
    }
    // One database (no external PostgreSQL on the machine): one namespace in each part.
    expect(partOfMatrix(pairsForHalves(['embedded'], ['datahub', 'default']), 0, 'first')).toEqual([['embedded', 'datahub']]);
    expect(partOfMatrix(pairsForHalves(['embedded'], ['datahub', 'default']), 0, 'second')).toEqual([['embedded', 'default']]);
  });

  test('the part comes from TEST_MATRIX, first by default, and a wrong one is refused', () => {
    expect(matrixPart({})).toBe('first');
    expect(matrixPart({ TEST_MATRIX: 'second' })).toBe('second');
    expect(() => matrixPart({ TEST_MATRIX: 'both' })).toThrow(/one of full, first, second/);
  });

  test("CI runs the first part (npm test) and the second (test:node24:rest), so every case once", () => {
    const scripts = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts as Record<string, string>;
    const ci = readFileSync(path.join(ROOT, '.ci/run'), 'utf8');
    expect(scripts.test).not.toMatch(/TEST_MATRIX/);
    expect(scripts['test:node24:rest']).toMatch(/^TEST_MATRIX=second /);
    expect(scripts['test:node24:rest']).toContain('test/faults');
    expect(scripts['test:node24:rest']).toContain('test/conformance');
    expect(ci).toMatch(/^step npm test$/m);
    expect(ci).toMatch(/^step npm run test:node24:rest$/m);
  });
});
