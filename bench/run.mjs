// `npm run bench [-- <name> [options]]`: runs one benchmark, or all of them in turn, and
// records each in BENCHMARKS.md. (The 1,000,000-dataset search run is `search --n 1000000`.)
const benchmarks = {
  outside: () => import('./outside.mjs'),
  writes: () => import('./writes.mjs'),
  bulk: () => import('./bulk.mjs'),
  search: () => import('./search.mjs'),
  cleanup: () => import('./cleanup.mjs'),
  tests: () => import('./tests.mjs'),
};
const [name, ...args] = process.argv.slice(2);
if (name !== undefined && !benchmarks[name]) {
  console.error(`usage: npm run bench [-- <${Object.keys(benchmarks).join('|')}> [options]]`);
  process.exit(2);
}
for (const [key, load] of Object.entries(benchmarks)) {
  if (name !== undefined && key !== name) continue;
  console.log(`== ${key}`);
  await (await load()).run(name === undefined ? [] : args);
}
