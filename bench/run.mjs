// `npm run bench [-- <name> [options]]`: runs one benchmark, or all of them in turn, and
// records each in BENCHMARKS.md. (`scale` grows one server to 1,000,000 datasets: hours, and
// tens of GB on disk; `scale --sizes 2000,5000` tries it small.)
const benchmarks = {
  outside: () => import('./outside.mjs'),
  scale: () => import('./scale.mjs'),
  writes: () => import('./writes.mjs'),
  bulk: () => import('./bulk.mjs'),
  search: () => import('./search.mjs'),
  cleanup: () => import('./cleanup.mjs'),
  migration: () => import('./migration.mjs'),
  upgrade: () => import('./upgrade.mjs'),
  tests: () => import('./tests.mjs'),
  policies: () => import('./policies.mjs'),
  indexSize: () => import('./indexSize.mjs'),
  start: () => import('./start.mjs'),
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
