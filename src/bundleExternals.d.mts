// src/bundleExternals.mjs, for the TypeScript that reads it (test/e2e/serverBundle.test.ts).
export declare const SERVER_EXTERNAL: RegExp;
