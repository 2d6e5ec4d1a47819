#!/usr/bin/env node
/**
 * The `propgraph` command of the installed package (package.json's `bin`):
 * `propgraph serve` runs the server exactly as `npm start` does (main.ts, configured by
 * the environment), so an install from the packed artefact needs no npm scripts and no
 * checkout; every other command is the CLI's (cli/main.ts). Both are loaded on demand:
 * the CLI does not load the server's code, nor the server the CLI's.
 */
export {};

const [command] = process.argv.slice(2);
if (command === 'serve') {
  process.argv.splice(2, 1);
  await import('./main.js');
} else {
  await import('./cli/main.js');
}
