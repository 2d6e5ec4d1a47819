// Benchmark 4 (issue #9): hard delete of a property held by N datasets; time until the
// cleanup job reports zero remaining values (and the database holds none). Options:
// --n (default 100000). PostgreSQL, server as a child process, search off so the
// figure is the cleanup job's own.
import { parseArgs } from 'node:util';
import { json, machine, round, startPostgres, startServer, writeSection } from './support.mjs';

const P = 'io.cleanup.doomed';
const KEEP = 'io.cleanup.kept';
const urnOf = (qn) => `urn:li:structuredProperty:${qn}`;
const datasetUrn = (i) => `urn:li:dataset:(urn:li:dataPlatform:hive,cleanup.t${String(i).padStart(7, '0')},PROD)`;

export async function run(argv) {
  const { values: opts } = parseArgs({ args: argv, options: { n: { type: 'string', default: '100000' } } });
  const n = Number(opts.n);
  const postgres = await startPostgres();
  const server = await startServer({ DATABASE_URL: postgres.url, MEILI_EMBEDDED: 'false', LOG_LEVEL: 'info' });
  const v3 = `${server.url}/openapi/v3`;
  try {
    for (const qn of [P, KEEP]) {
      await json(`${v3}/entity/structuredProperty/${encodeURIComponent(urnOf(qn))}/propertyDefinition?createIfNotExists=false`, 'POST', {
        value: { qualifiedName: qn, valueType: 'urn:li:dataType:svc.number', entityTypes: ['urn:li:entityType:svc.dataset'] },
      });
    }
    for (let start = 0; start < n; start += 5000) {
      const body = Array.from({ length: Math.min(5000, n - start) }, (_, k) => ({
        urn: datasetUrn(start + k),
        status: { value: { removed: false } },
        structuredProperties: { value: { properties: [{ propertyUrn: urnOf(P), values: [{ double: start + k }] }, { propertyUrn: urnOf(KEEP), values: [{ double: 1 }] }] } },
      }));
      await json(`${v3}/entity/dataset?async=true`, 'POST', body);
    }
    console.log(`${n} datasets hold ${P}`);
    const started = Date.now();
    await json(`${v3}/entity/structuredProperty/${encodeURIComponent(urnOf(P))}`, 'DELETE');
    const deletedMs = Date.now() - started;
    let job;
    for (;;) {
      const { jobs } = await json(`${v3}/jobs?count=10`, 'GET');
      job = jobs.find((j) => j.kind === 'cleanup-property-values' && j.propertyUrn === urnOf(P));
      if (job?.status === 'done') break;
      if (job?.status === 'failed') throw new Error(`cleanup failed: ${job.lastError}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    const seconds = (Date.now() - started) / 1000;
    const sample = await json(`${v3}/entity/dataset/${encodeURIComponent(datasetUrn(n - 1))}/structuredProperties`, 'GET');
    if (sample.structuredProperties.value.properties.some((p) => p.propertyUrn === urnOf(P))) throw new Error('a value survived the cleanup');
    const body = `
Command: \`npm run bench -- cleanup --n ${n}\`
Machine: ${machine()}. PostgreSQL 15 (throwaway cluster, fsync off), server as a child process (\`node dist/main.js\`), search off so the figure is the job's own.

A property held by ${n} datasets (each also holding a second property that must stay) is hard-deleted with \`DELETE /openapi/v3/entity/structuredProperty/{urn}\`; the answer came after ${deletedMs} ms (the values were hidden from then on). The cleanup job then rewrites each holder's aspect (new version, change-log row) and drops its index row, in batches.

| | seconds | entities/s |
|---|---|---|
| DELETE to job done, zero values remaining (job total ${job.total}, done ${job.done}) | ${round(seconds)} | ${round(n / seconds)} |
`;
    console.log(body);
    if (n >= 100000) writeSection('4. Hard-delete cleanup', body);
  } finally {
    await server.stop();
    await postgres.stop();
  }
}
