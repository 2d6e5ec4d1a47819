/**
 * The repository explains itself: a clone holds everything its code and documents cite.
 * The contract, the house style and the architecture are docs/contract.md,
 * docs/style.md and docs/architecture.md; a citation of a document kept outside the
 * repository, or of a `../shared` path, fails here. The one external input allowed is
 * the conformance fixtures' directory, ../shared/conformance (CONFORMANCE_DIR), which
 * test/conformance reads and skips without. Every file a comment or a document names by
 * its path exists. Reads the repository's files, nothing else.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const SCANNED = ['src', 'test', 'bench', 'docs', 'prisma', 'README.md', 'BENCHMARKS.md', 'schema.graphql'];
const SKIPPED_DIRS = new Set(['node_modules', 'generated', '__generated__', 'dist']);
const TEXT = /\.(ts|tsx|mts|mjs|js|cjs|md|graphql|json|ya?ml|sql|prisma|css|html|toml)$/;

function filesUnder(relative: string): string[] {
  const full = path.join(root, relative);
  const entries = readdirSync(full, { withFileTypes: true });
  return entries.flatMap((entry) => {
    const child = path.posix.join(relative, entry.name);
    if (entry.isDirectory()) return SKIPPED_DIRS.has(entry.name) ? [] : filesUnder(child);
    return TEXT.test(entry.name) ? [child] : [];
  });
}

function scannedFiles(): string[] {
  return SCANNED.flatMap((name) => (statSync(path.join(root, name)).isDirectory() ? filesUnder(name) : [name]));
}

interface Finding {
  readonly file: string;
  readonly line: number;
  readonly text: string;
}

function findings(files: readonly string[], patterns: readonly RegExp[]): Finding[] {
  const out: Finding[] = [];
  for (const file of files) {
    const lines = readFileSync(path.join(root, file), 'utf8').split('\n');
    lines.forEach((text, i) => {
      if (patterns.some((p) => p.test(text))) out.push({ file, line: i + 1, text: text.trim().slice(0, 160) });
    });
  }
  return out;
}

/** Citations of the contract, style and architecture documents kept outside the repository. */
const OUTSIDE_CITATIONS: readonly RegExp[] = [
  /\b(?:SPEC|STYLE|ARCHITECTURE)\.md\b/,
  /\bSPEC\s+\d/,
  /\(\s*(?:SPEC|STYLE|ARCHITECTURE)\b/,
  /\b(?:SPEC|STYLE|ARCHITECTURE),\s+[A-Z][a-z]/,
  /\bseed\s+\d/,
  /\bseed\/metadata-service/,
  /\.\.\/shared(?!\/conformance(?![/\w]))/,
];

/** In prose, the names alone are citations. */
const OUTSIDE_NAMES_IN_PROSE: readonly RegExp[] = [/\b(?:SPEC|STYLE|ARCHITECTURE)\b/];

const files = scannedFiles();
/** This file quotes the forbidden forms as probes. */
const SELF = 'test/unit/repositoryReferences.test.ts';
const others = files.filter((f) => f !== SELF);

test('the scan sees the code, the tests and the documents', () => {
  expect(files).toEqual(expect.arrayContaining(['README.md', 'docs/contract.md', 'src/platform/config.ts', SELF]));
});

test('the contract, the style and the architecture the code cites are in docs/', () => {
  for (const doc of ['docs/contract.md', 'docs/style.md', 'docs/architecture.md']) expect(files).toContain(doc);
  const sections = readFileSync(path.join(root, 'docs/contract.md'), 'utf8').match(/^## §\d+ /gm) ?? [];
  // Numbered from 1 without a gap: a section is added at the end, never renumbered.
  expect(sections.length).toBeGreaterThanOrEqual(14);
  expect(sections).toEqual(Array.from({ length: sections.length }, (_, i) => `## §${i + 1} `));
});

test('no file cites a document or a ../shared path outside the repository (the conformance fixtures aside)', () => {
  expect(findings(others, OUTSIDE_CITATIONS)).toEqual([]);
});

test('no document names SPEC, STYLE or ARCHITECTURE', () => {
  expect(findings(files.filter((f) => f.endsWith('.md')), OUTSIDE_NAMES_IN_PROSE)).toEqual([]);
});

test('every contract section cited exists', () => {
  const cited = findings(others, [/contract\.md\s*§/]).flatMap((f) => [...f.text.matchAll(/§(\d+)/g)].map((m) => ({ ...f, section: Number(m[1]) })));
  expect(cited.length).toBeGreaterThan(100);
  const count = (readFileSync(path.join(root, 'docs/contract.md'), 'utf8').match(/^## §\d+ /gm) ?? []).length;
  expect(cited.filter((c) => c.section < 1 || c.section > count)).toEqual([]);
});

/** The folders under src/ (a comment in src/ may say `rest/errors.ts`). */
const SOURCE_FOLDERS = readdirSync(path.join(root, 'src'), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
const PATH = new RegExp(`(?<![\\w./@-])((?:src|test|docs|bench|prisma|${SOURCE_FOLDERS.join('|')})(?:/[\\w.@-]+)+\\.(?:tsx?|mjs|js|md|sql|prisma|json|graphql|ya?ml|png))\\b`, 'g');

/** Whether a path named in `file` exists: from the root, from src/, or beside the file; a `.js` import may name a `.ts` source. */
function pathExists(named: string, file: string): boolean {
  const spellings = named.endsWith('.js') ? [named, named.replace(/\.js$/, '.ts')] : [named];
  const bases = [root, path.join(root, 'src'), path.join(root, path.dirname(file))];
  return spellings.some((spelling) => bases.some((base) => existsSync(path.join(base, spelling))));
}

function missingPathsIn(file: string, text: string): Finding[] {
  return text.split('\n').flatMap((line, i) =>
    [...line.matchAll(PATH)].filter((m) => !pathExists(m[1]!, file)).map((m) => ({ file, line: i + 1, text: m[1]! })));
}

test('every file named by its path in a comment or a document exists', () => {
  expect(others.flatMap((file) => missingPathsIn(file, readFileSync(path.join(root, file), 'utf8')))).toEqual([]);
});

test('the checks find what they are meant to find', () => {
  const stale = 'REST and GraphQL map them in one place (rest/errorHandler.ts, graphql/errors.ts, src/rest/errors.ts, docs/search.md).';
  expect(missingPathsIn('src/domain/errors.ts', stale).map((f) => f.text)).toEqual(['rest/errorHandler.ts']);
  const probes = ['(SPEC 4)', 'see SPEC.md', '(STYLE.md, Backstage)', '(ARCHITECTURE, Storage)', 'seed 4.11', '../shared/seed/x.md', '../shared/SPEC.md'];
  for (const probe of probes) expect(OUTSIDE_CITATIONS.some((p) => p.test(probe))).toBe(true);
  const allowed = ['const STYLE = `body {}`', "serveText(app, path, type, STYLE);", '../shared/conformance', "'../../../shared/conformance')", 'a fixed seed', 'docs/contract.md §4'];
  for (const text of allowed) expect(OUTSIDE_CITATIONS.some((p) => p.test(text))).toBe(false);
});
