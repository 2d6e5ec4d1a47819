/**
 * Entry point of `npm start` and `propgraph serve`: runs the server's start (boot/start.ts)
 * from the bundle that `npm run build` makes of it, dist/bundle/ (makeBundles.mjs),
 * or from tsc's modules when there is none or tsc has compiled since (`npm run dev`, a
 * bare `tsc`): a stale bundle would run code the sources no longer hold. Loading the
 * server from tsc's 1,500 files, Node spends most of its start finding, reading and
 * linking them (docs/decisions.md, "The server starts from one bundle").
 */
import { statSync } from 'node:fs';

const bundle = new URL('./bundle/start.js', import.meta.url);

function modifiedMs(file: URL): number | null {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return null;
  }
}

const bundled = modifiedMs(bundle);
// The packed artefact has no .tsbuildinfo: nothing compiled after its bundle.
const compiled = modifiedMs(new URL('./.tsbuildinfo', import.meta.url)) ?? 0;
await import(bundled !== null && bundled >= compiled ? bundle.href : './boot/start.js');
