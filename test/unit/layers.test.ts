/**
 * Imports point down the layers of docs/architecture.md, never up: the composition
 * roots wire the edges (HTTP dialects, CLI, console), the edges call the services, the
 * services use the store, search and identity adapters, which use the infrastructure
 * (logging, configuration, telemetry, the embedded engines), and the domain at the
 * bottom imports nothing of the rest. Store and search never import each other: the
 * services join them. Reads the source files' import lines, as importCycles.test.ts does.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const src = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src');

/** Each room of src/ (a folder, or a module at the top) and its layer, bottom = 0. */
const LAYER: Readonly<Record<string, number>> = {
  domain: 0,
  platform: 1, telemetry: 1, embedded: 1,
  store: 2, search: 2, identity: 2,
  services: 3,
  // cli/local/ holds the CLI's local commands (restore --from, upgrade-data), which open the store themselves.
  rest: 4, restli: 4, graphql: 4, cli: 4, console: 4, web: 4,
  boot: 5, main: 5, bin: 5,
};
/** Layers whose rooms may import one another: infrastructure pieces, edges sharing a helper, the roots. */
const SIDEWAYS = new Set([1, 4, 5]);

/** Generated code that wires modules together (the aspect modules' list) is read like any other; the rest only holds types. */
const WIRING = new Set([path.join('domain', 'aspects', 'generated')]);

const SPECIFIER = /(?:^|[\s;])(?:import|export)\s[^'"]*?from\s*['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/gm;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return (entry.name === 'generated' && !WIRING.has(path.relative(src, full))) || entry.name === 'node_modules' ? [] : sources(full);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

function roomOf(file: string): string {
  const [first, ...rest] = path.relative(src, file).split(path.sep);
  return rest.length > 0 ? first! : first!.replace(/\.(tsx?|js)$/, '');
}

/** `from -> to` for every import that crosses rooms against the layers. */
function upwardImports(edges: ReadonlyArray<readonly [string, string]>): string[] {
  return edges.flatMap(([file, target]) => {
    const from = roomOf(file);
    const to = roomOf(target);
    if (from === to) return [];
    const a = LAYER[from];
    const b = LAYER[to];
    if (a === undefined || b === undefined) return [`${path.relative(src, file)}: room ${a === undefined ? from : to} has no layer in this test`];
    return b < a || (b === a && SIDEWAYS.has(a)) ? [] : [`${path.relative(src, file)} (${from}, layer ${a}) imports ${path.relative(src, target)} (${to}, layer ${b})`];
  });
}

test('every import of src/ points down the layers or sideways where allowed', () => {
  const edges = sources(src).flatMap((file) =>
    [...readFileSync(file, 'utf8').matchAll(SPECIFIER)].map((m) => [file, path.resolve(path.dirname(file), (m[1] ?? m[2])!)] as const),
  );
  expect(edges.length).toBeGreaterThan(500);
  expect(upwardImports(edges)).toEqual([]);
});

test('the check sees an upward import and a store-search one', () => {
  const f = (p: string) => path.join(src, p);
  expect(upwardImports([[f('domain/urn.ts'), f('store/aspects.js')]])).toHaveLength(1);
  expect(upwardImports([[f('services/entityService.ts'), f('rest/errors.js')]])).toHaveLength(1);
  expect(upwardImports([[f('store/aspects.ts'), f('search/documents.js')]])).toHaveLength(1);
  expect(upwardImports([[f('rest/entityRoutes.ts'), f('services/index.js')]])).toEqual([]);
});
