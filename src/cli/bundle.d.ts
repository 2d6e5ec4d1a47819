// dist/cli/bundle.js: the CLI (main.ts and all it imports) as one file, written by
// src/makeBundles.mjs after tsc. Running it is the whole effect; it exports nothing.
export {};
