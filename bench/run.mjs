// `npm run bench -- <name> [options]`: runs one benchmark and records it in BENCHMARKS.md.
const benchmarks = {
  writes: () => import('./writes.mjs'),
  bulk: () => import('./bulk.mjs'),
  search: () => import('./search.mjs'),
};
const [name, ...args] = process.argv.slice(2);
if (!name || !benchmarks[name]) {
  console.error(`usage: npm run bench -- <${Object.keys(benchmarks).join('|')}> [options]`);
  process.exit(2);
}
const mod = await benchmarks[name]();
await mod.run(args);
