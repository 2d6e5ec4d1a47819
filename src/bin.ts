#!/usr/bin/env node
/**
 * The `propgraph` command of the installed package (package.json's `bin`):
 * `propgraph serve` runs the server exactly as `npm start` does (main.ts, configured by
 * the environment), so an install from the packed artefact needs no npm scripts and no
 * checkout; every other command is the CLI's, bundled into one file by `npm run build`
 * (makeBundles.mjs: a command starts in half the time tsc's 230 files take).
 * Both are loaded on demand: the CLI does not load the server's code, nor the server the CLI's.
 */
export {};

const [command, ...rest] = process.argv.slice(2);
// `serve` takes no arguments (the environment configures the server): with any, such as
// --help, the CLI answers, which documents `serve` and refuses what it does not know.
if (command === 'serve' && rest.length === 0) {
  process.argv.splice(2, 1);
  await import('./main.js');
} else {
  await import('./cli/bundle.js');
}
