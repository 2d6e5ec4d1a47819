// Part of `npm run build`, after tsc: the server and the CLI each as a bundle made from
// tsc's output. A start is mostly Node finding, reading and linking modules, so fewer and
// larger files start sooner (docs/decisions.md, "The CLI is one file" and "The server
// starts from one bundle").
// - The CLI: one file, dist/cli/bundle.js, which the `propgraph` command runs (src/bin.ts).
//   From tsc's output it loads some 230 files (its own, zod's, yaml's, commander's), and
//   `propgraph properties --help` took 269 ms of CPU; from the bundle 124 ms, where
//   `node -e 0` takes 64. The local commands (`restore --from`, `upgrade-data`) stay tsc's
//   files, loaded on demand from beside the bundle: they open the database with the
//   server's own code, whose packages find their binaries from where they are installed.
// - The server: dist/bundle/, boot/start.js and the chunks its lazy imports split off,
//   which main.js runs while no tsc output is newer. The bundle sits two folders deep, as
//   every compiled module does, so the paths they take from their own address
//   (schema.graphql, prisma/migrations, package.json, dist/console) resolve the same.
import { chmodSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';
import { SERVER_EXTERNAL } from './bundleExternals.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
const cliDist = path.join(dist, 'cli');
const cliBundle = path.join(cliDist, 'bundle.js');

const cli = build({
  input: path.join(cliDist, 'main.js'),
  platform: 'node',
  // Only the CLI's own graph and the pure-JavaScript packages it imports (commander, zod,
  // yaml) go in; the local commands' modules are left where tsc wrote them.
  external: (id) => /^\.\/local\//.test(id) || id.startsWith(path.join(cliDist, 'local') + path.sep),
  logLevel: 'warn',
  output: { file: cliBundle, format: 'esm', sourcemap: true },
});

const serverBundle = path.join(dist, 'bundle');
rmSync(serverBundle, { recursive: true, force: true });
const server = build({
  input: { start: path.join(dist, 'boot/start.js') },
  platform: 'node',
  external: (id) => SERVER_EXTERNAL.test(id),
  logLevel: 'warn',
  // Without whitespace and the packages' JSDoc (half the text), the names and licence
  // comments kept, so a stack trace still names its functions: the packed artefact stays
  // within its 300 MB installed (test/e2e/package.test.ts).
  output: {
    dir: serverBundle,
    format: 'esm',
    sourcemap: true,
    comments: { legal: true, annotation: false, jsdoc: false },
    minify: { compress: false, mangle: false, codegen: { removeWhitespace: true } },
    // Two modules' functions or classes of one name are renamed in one bundle: a class's
    // name is its error's `name` (domain/errors.ts), and stays its own.
    keepNames: true,
  },
});

await Promise.all([cli, server]);
// `npx propgraph` and the package's bin run it as a file.
chmodSync(cliBundle, 0o755);
