// Regenerates test/fixtures/datahub-webapp/operations.json from DataHub's web app source as it
// is: each operation that test/fixtures/datahub-webapp/pages.json names, with every fragment it
// spreads (transitively), as Apollo Client posts it: print(addTypenameToDocument(document)).
//
//   node test/support/extractWebAppOperations.mjs --git <datahub git dir> [--rev <commit>]
//   node test/support/extractWebAppOperations.mjs --dir <datahub checkout>
//
// The app's codegen (datahub-web-react/codegen.yml) reads `src/**/*.graphql`; so does this.
// Nothing of DataHub is committed but what this writes, with the commit it read.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Kind, parse, print, visit } from 'graphql';

const here = path.dirname(fileURLToPath(import.meta.url));
const FIXTURE_DIR = path.resolve(here, '../fixtures/datahub-webapp');
const APP = 'datahub-web-react';

function option(name) {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

/** The app's .graphql files as [path, text], from a git directory (a bare mirror) or a checkout. */
function readSources() {
  const gitDir = option('--git');
  if (gitDir) {
    const git = (...args) => execFileSync('git', ['-C', gitDir, ...args], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    const rev = git('rev-parse', option('--rev') ?? 'HEAD').trim();
    const files = git('ls-tree', '-r', '--name-only', rev, `${APP}/src`).split('\n').filter((f) => f.endsWith('.graphql'));
    const repository = option('--repository') ?? 'acryldata/datahub';
    return { commit: rev, repository, committed: git('show', '-s', '--format=%cI', rev).trim(), files: files.map((f) => [f, git('show', `${rev}:${f}`)]) };
  }
  const dir = option('--dir');
  if (!dir) throw new Error('give --git <datahub git dir> or --dir <datahub checkout>');
  const files = [];
  const walk = (d) => {
    for (const name of readdirSync(d)) {
      const p = path.join(d, name);
      if (statSync(p).isDirectory()) {
        if (name !== 'node_modules') walk(p);
      } else if (name.endsWith('.graphql')) files.push([path.relative(dir, p), readFileSync(p, 'utf8')]);
    }
  };
  walk(path.join(dir, APP, 'src'));
  return { commit: option('--rev') ?? 'unknown', repository: option('--repository') ?? 'unknown', committed: undefined, files: files.sort() };
}

/**
 * Apollo Client 3's addTypenameToDocument (the app's @apollo/client 3.13): `__typename` at the
 * end of every selection set but an operation's own, unless the set already selects
 * `__typename` or an introspection field, or its field is `@export`ed.
 */
function addTypename(document) {
  const TYPENAME = { kind: Kind.FIELD, name: { kind: Kind.NAME, value: '__typename' } };
  return visit(document, {
    SelectionSet: {
      enter(node, _key, parent) {
        if (parent && parent.kind === Kind.OPERATION_DEFINITION) return undefined;
        if (node.selections.some((s) => s.kind === Kind.FIELD && s.name.value.startsWith('__'))) return undefined;
        if (parent && parent.kind === Kind.FIELD && parent.directives?.some((d) => d.name.value === 'export')) return undefined;
        return { ...node, selections: [...node.selections, TYPENAME] };
      },
    },
  });
}

/** Fragment names a definition spreads, in the order they are written. */
function spreadsOf(definition) {
  const names = [];
  visit(definition, { FragmentSpread: (node) => void names.push(node.name.value) });
  return names;
}

const pages = JSON.parse(readFileSync(path.join(FIXTURE_DIR, 'pages.json'), 'utf8'));
const wanted = [...new Set(pages.sequence.map((r) => r.operation))];
const source = readSources();

const operations = new Map();
const fragments = new Map();
for (const [file, text] of source.files) {
  for (const definition of parse(text).definitions) {
    if (definition.kind === Kind.OPERATION_DEFINITION && definition.name) operations.set(definition.name.value, { file, definition });
    else if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, { file, definition });
  }
}

const extracted = wanted.map((name) => {
  const found = operations.get(name);
  if (!found) throw new Error(`operation ${name} is not in ${APP}/src at ${source.commit}`);
  // The generated hook's document interpolates each spread fragment's document, which carries
  // its own spreads: graphql-tag keeps the first definition of each name. Depth first, as written.
  const order = [];
  const visitFragment = (fragmentName) => {
    if (order.includes(fragmentName)) return;
    const fragment = fragments.get(fragmentName);
    if (!fragment) throw new Error(`${name} spreads ${fragmentName}, which ${APP}/src does not define`);
    order.push(fragmentName);
    for (const next of spreadsOf(fragment.definition)) visitFragment(next);
  };
  for (const next of spreadsOf(found.definition)) visitFragment(next);
  const document = { kind: Kind.DOCUMENT, definitions: [found.definition, ...order.map((f) => fragments.get(f).definition)] };
  const text = print(addTypename(document));
  return {
    name,
    type: found.definition.operation,
    file: found.file,
    fragments: order.map((f) => ({ name: f, file: fragments.get(f).file })),
    document: text,
  };
});

const out = {
  generatedBy: 'test/support/extractWebAppOperations.mjs',
  source: { repository: source.repository, commit: source.commit, committed: source.committed, app: APP },
  transport: {
    method: 'POST',
    path: '/api/v2/graphql',
    body: 'Apollo Client HttpLink: {"operationName", "variables", "query"}; the query is print(addTypenameToDocument(document)).',
  },
  operations: extracted,
};
writeFileSync(path.join(FIXTURE_DIR, 'operations.json'), `${JSON.stringify(out, null, 2)}\n`);
console.log(`${extracted.length} operations from ${source.repository}@${source.commit.slice(0, 12)} written to ${path.relative(process.cwd(), path.join(FIXTURE_DIR, 'operations.json'))}`);
