// dist/cli/bundle.js: the CLI (main.ts and all it imports) as one file, written by
// makeBundle.mjs after tsc. Running it is the whole effect; it exports nothing.
export {};
