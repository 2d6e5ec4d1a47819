// Part of `npm run build`, after tsc: the CLI as one file, dist/cli/bundle.js, which the
// `propgraph` command runs (src/bin.ts). A command's start is mostly Node finding, reading
// and compiling modules: from tsc's output the CLI loads some 230 files (its own, zod's,
// yaml's, commander's), and `propgraph properties --help` took 269 ms of CPU; from the
// bundle 124 ms, where `node -e 0` takes 64 (docs/decisions.md, "The CLI is one file"). The local commands (`restore --from`, `upgrade-data`) stay tsc's files, loaded
// on demand from beside the bundle: they open the database with the server's own code,
// whose packages find their binaries from where they are installed.
import { chmodSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dist = path.join(root, 'dist/cli');
const output = path.join(dist, 'bundle.js');

await build({
  input: path.join(dist, 'main.js'),
  platform: 'node',
  // Only the CLI's own graph and the pure-JavaScript packages it imports (commander, zod,
  // yaml) go in; the local commands' modules are left where tsc wrote them.
  external: (id) => /^\.\/local\//.test(id) || id.startsWith(path.join(dist, 'local') + path.sep),
  logLevel: 'warn',
  output: { file: output, format: 'esm', sourcemap: true },
});
// `npx propgraph` and the package's bin run it as a file.
chmodSync(output, 0o755);
