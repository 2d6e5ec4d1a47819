/**
 * No module of src/ reaches itself through its imports, type-only imports included: a
 * type two modules share lives in a module of its own (services/entityView.ts,
 * rest/apiVersion.ts). Reads the source files' import lines; generated code is left out.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const src = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return (entry.name === 'generated' && !WIRING.has(path.relative(src, full))) || entry.name === 'node_modules' ? [] : sources(full);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

/** Generated code that wires modules together (the aspect modules' list) is read like any other; the rest only holds types. */
const WIRING = new Set([path.join('domain', 'aspects', 'generated')]);

const SPECIFIER = /(?:^|[\s;])(?:import|export)\s[^'"]*?from\s*['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/gm;

function importsOf(file: string, known: ReadonlySet<string>): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(SPECIFIER)].flatMap((m) => {
    const target = path.resolve(path.dirname(file), (m[1] ?? m[2])!);
    const candidates = [target.replace(/\.js$/, '.ts'), target.replace(/\.js$/, '.tsx'), target, `${target}.ts`, `${target}.tsx`, path.join(target, 'index.ts')];
    const found = candidates.find((c) => known.has(c));
    return found ? [found] : [];
  });
}

/** Every cycle's modules, as paths relative to src/, found by a depth-first walk. */
function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (node: string): void => {
    state.set(node, 'open');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === 'open') found.push(stack.slice(stack.indexOf(next)).map((f) => path.relative(src, f)));
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(node, 'done');
  };
  for (const node of graph.keys()) if (!state.has(node)) visit(node);
  return found;
}

test('the imports of src/ form no cycle', () => {
  const files = sources(src);
  const known = new Set(files);
  const graph = new Map(files.map((f) => [f, importsOf(f, known)]));
  expect([...graph.values()].flat().length).toBeGreaterThan(500);
  expect(cycles(graph)).toEqual([]);
});

test('the walk finds a cycle, type-only ones included', () => {
  const graph = new Map([
    ['/a', ['/b']],
    ['/b', ['/c']],
    ['/c', ['/a']],
    ['/d', ['/a']],
  ]);
  expect(cycles(graph).map((c) => c.length)).toEqual([3]);
  const typeOnly = "import type { AspectValue } from './entityService.js';";
  expect([...typeOnly.matchAll(SPECIFIER)].map((m) => m[1])).toEqual(['./entityService.js']);
});
