// Benchmark (issue #39): a migration of a property held by N datasets, measured from
// outside: the server as a child process (`node --max-semi-space-size=8 dist/main.js`, as `npm start` runs it) with a token, on a durable
// PostgreSQL and a Meilisearch; a retired allowed value (2) remapped to its successor (3)
// on every holder. Times the definition write (readers see the new values from then on)
// and the job that rewrites the holders; meanwhile samples GET /health (p99) and reads
// holders' values and the property's facet as a steward would, counting any answer that
// holds the retired value (there must be none). Options: --n (default 100000).
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import pg from 'pg';
import { HEALTH_TEXT } from '../dist/store/health.js';
import { parseArgs } from 'node:util';
import { machine, percentile, request, round, startServer, testServers, writeSection } from './support.mjs';
import { cpuBetween, cpuOfTree } from './outsideServer.mjs';

const QN = 'io.migrate.tier';
const P = `urn:li:structuredProperty:${QN}`;
const datasetUrn = (i) => `urn:li:dataset:(urn:li:dataPlatform:hive,migrate.t${String(i).padStart(7, '0')},PROD)`;
const definition = (allowed) => ({ qualifiedName: QN, valueType: 'urn:li:dataType:svc.number', entityTypes: ['urn:li:entityType:svc.dataset'], allowedValues: allowed.map((n) => ({ value: { double: n } })) });

export async function run(argv) {
  const { values: opts } = parseArgs({ args: argv, options: { n: { type: 'string', default: '100000' } } });
  const n = Number(opts.n);
  const { startPostgres, startMeilisearch } = await testServers();
  const postgres = await startPostgres({ durable: true });
  const meili = await startMeilisearch();
  const token = randomBytes(24).toString('hex');
  const server = await startServer({ DATABASE_URL: postgres.url, MEILI_URL: meili.url, MEILI_API_KEY: meili.masterKey, AUTH_ENABLED: 'true', ROOT_TOKEN: token, LOG_LEVEL: 'info' });
  const v3 = `${server.url}/openapi/v3`;
  const call = (path, method, body) => request(`${v3}${path}`, method, body, token);
  // The readers and the sampler run until this is set: at the end of the run, or when it fails.
  let stop = false;
  try {
    await call(`/entity/structuredProperty/${encodeURIComponent(P)}/propertyDefinition?createIfNotExists=false`, 'POST', { value: definition([1, 2, 3]) });
    const loadStarted = Date.now();
    for (let start = 0; start < n; start += 1000) {
      const body = Array.from({ length: Math.min(1000, n - start) }, (_, k) => ({
        urn: datasetUrn(start + k),
        status: { value: { removed: false } },
        // Two thirds hold the value to retire.
        structuredProperties: { value: { properties: [{ propertyUrn: P, values: [{ double: (start + k) % 3 === 0 ? 1 : 2 }] }] } },
      }));
      await call('/entity/dataset?async=true', 'POST', body);
    }
    console.log(`${n} datasets hold ${QN} (loaded in ${round((Date.now() - loadStarted) / 1000)} s); waiting for the index`);
    await waitForIndex(server.url, token);

    // Readers and the health sampler run from just before the change to the job's end.
    const health = [];
    // /health/live checks nothing: its tail is the event loop's own, where /health's adds the component queries.
    const live = [];
    // The same statement /health sends (src/store/health.ts), timed on a connection of its own:
    // what the database alone costs /health, apart from the server's pool and event loop.
    const direct = new pg.Client({ connectionString: postgres.url });
    await direct.connect();
    const statementMs = [];
    const engineMs = [];
    const sampler = (async () => {
      while (!stop) {
        const t = performance.now();
        await direct.query({ name: 'health_state', text: HEALTH_TEXT, values: [null] }).catch(() => undefined);
        statementMs.push(performance.now() - t);
        // And the engine's own /health, which /health asks too.
        const te = performance.now();
        await request(`${meili.url}/health`, 'GET').catch(() => undefined);
        engineMs.push(performance.now() - te);
        const t0 = performance.now();
        await request(`${server.url}/health`, 'GET', undefined, token).catch(() => undefined);
        const t1 = performance.now();
        await request(`${server.url}/health/live`, 'GET').catch(() => undefined);
        health.push(t1 - t0);
        live.push(performance.now() - t1);
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    // Only reads sent after the change was answered count: before it, 2 was an allowed value.
    let changedAt = Number.POSITIVE_INFINITY;
    const reads = { values: 0, facets: 0, refused: 0, examples: [] };
    const reader = (async () => {
      let i = 0;
      while (!stop) {
        const urn = datasetUrn((i++ * 7919) % n);
        const sentAt = performance.now();
        const got = await call(`/entity/dataset/${encodeURIComponent(urn)}/structuredProperties`, 'GET');
        if (sentAt < changedAt) continue;
        reads.values++;
        const values = got.structuredProperties.value.properties.find((p) => p.propertyUrn === P)?.values ?? [];
        if (values.some((v) => v.double === 2)) {
          reads.refused++;
          if (reads.examples.length < 3) reads.examples.push(urn);
        }
        if (i % 10 === 0) {
          const facets = await request(`${server.url}/api/graphql`, 'POST', { query: `{ aggregateAcrossEntities(input: { types: [DATASET], query: "*", facets: ["structuredProperties.${QN}"] }) { facets { aggregations { value count } } } }` }, token);
          reads.facets++;
          if (facets.data.aggregateAcrossEntities.facets[0]?.aggregations.some((a) => Number(a.value) === 2)) {
            reads.refused++;
            if (reads.examples.length < 3) reads.examples.push('the facet');
          }
        }
      }
    })();

    // A run that fails stops the server under the loops: their errors then are not the failure's cause (awaited below when it succeeds).
    for (const loop of [sampler, reader]) loop.catch(() => undefined);

    // CPU time of the server, PostgreSQL and Meilisearch from the change to the index caught up:
    // what the migration costs, which the machine's load does not change as it changes wall-clock times.
    // pg_ctl leaves PostgreSQL's postmaster apart from this process's tree: it is the parent of a backend's process.
    const backend = (await direct.query('SELECT pg_backend_pid() AS pid')).rows[0].pid;
    const backendStat = readFileSync(`/proc/${backend}/stat`, 'utf8');
    const postmaster = Number(backendStat.slice(backendStat.lastIndexOf(')') + 2).split(' ')[1]);
    const cpuNow = () => new Map([...cpuOfTree(process.pid)].filter(([name]) => name !== 'node (server)').concat([...cpuOfTree(server.child.pid)], [...cpuOfTree(postmaster)]));
    const cpuBefore = cpuNow();
    const loadBefore = loadavg()[0];
    const started = Date.now();
    await call(`/entity/structuredProperty/${encodeURIComponent(P)}/propertyDefinition?createIfNotExists=false`, 'POST', { value: definition([1, 3]), migration: { remap: [{ from: { double: 2 }, to: { double: 3 } }] } });
    const writeMs = Date.now() - started;
    changedAt = performance.now();
    let job;
    for (;;) {
      const { jobs } = await call(`/jobs?kind=migrate-property-values&propertyUrn=${encodeURIComponent(P)}&count=1`, 'GET');
      job = jobs[0];
      if (job?.status === 'done') break;
      if (job?.status === 'failed') throw new Error(`migration failed: ${job.lastError}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    const jobSeconds = (Date.now() - started) / 1000;
    await waitForIndex(server.url, token);
    const indexedSeconds = (Date.now() - started) / 1000;
    const cpu = cpuBetween(cpuBefore, cpuNow());
    const cpuText = [...cpu].filter(([, ms]) => ms > 0).map(([name, ms]) => `${name} ${round(ms / 1000)} s (${round((ms * 1000) / n, 0)} µs a holder)`).join(', ');
    stop = true;
    await Promise.all([sampler, reader]);
    await direct.end();
    const statementSorted = statementMs.sort((a, b) => a - b);
    const engineSorted = engineMs.sort((a, b) => a - b);
    const sorted = health.sort((a, b) => a - b);
    const liveSorted = live.sort((a, b) => a - b);
    const load = loadavg()[0];
    const body = `
Command: \`npm run bench -- migration --n ${n}\`
Machine: ${machine()}. The server as a child process (\`node --max-semi-space-size=8 dist/main.js\`, as \`npm start\` runs it, token authentication), a durable PostgreSQL 15 and Meilisearch 1.21.0 started by the benchmark; every figure over HTTP.

A number property with allowed values 1, 2, 3 is held by ${n} datasets (${Math.ceil(n / 3)} hold 1, the rest 2). The definition retiring 2 is written with a migration remapping 2 to 3 (\`{"value": ..., "migration": {"remap": [{"from": {"double": 2}, "to": {"double": 3}}]}}\`); from that answer on every read shows 3, and the job \`migrate-property-values\` rewrites each holder in the steward's name (a history entry per changed value). From the change's answer to the job's end a reader reads holders' values (${reads.values} reads) and the property's facet (${reads.facets} aggregations), and \`GET /health\` is sampled every 50 ms.

| | value |
|---|---|
| definition write with the migration (answer) | ${writeMs} ms |
| write to job done (${job.done} holders rewritten) | ${round(jobSeconds)} s (${round(job.done / jobSeconds)} entities/s) |
| write to index caught up | ${round(indexedSeconds)} s |
| \`/health\` p50 / p99 / max during the migration (${sorted.length} samples) | ${round(percentile(sorted, 50))} / ${round(percentile(sorted, 99))} / ${round(sorted.at(-1))} ms |
| \`/health/live\` at the same moments (checks nothing: the event loop's own delay) | ${round(percentile(liveSorted, 50))} / ${round(percentile(liveSorted, 99))} / ${round(liveSorted.at(-1))} ms |
| /health's database statement alone, on a connection of its own, at the same moments | ${round(percentile(statementSorted, 50))} / ${round(percentile(statementSorted, 99))} / ${round(statementSorted.at(-1))} ms |
| Meilisearch's \`GET /health\`, asked directly at the same moments | ${round(percentile(engineSorted, 50))} / ${round(percentile(engineSorted, 99))} / ${round(engineSorted.at(-1))} ms |
| CPU time from the change to the index caught up | ${cpuText} |
| the machine's 1-minute load average when the change was sent / at the job's end (2 cores, shared) | ${round(loadBefore, 1)} / ${round(load, 1)} |
| reads sent after the change that returned the retired value 2 | ${reads.refused}${reads.examples.length ? ` (e.g. ${reads.examples.join(', ')})` : ''} |
`;
    console.log(body);
    if (n >= 100000) writeSection('Migration of a property held by 100,000 datasets', body);
  } finally {
    stop = true;
    await server.stop();
    await meili.stop();
    await postgres.stop();
  }
}

/** Until the change log is empty (the index has every committed change). */
async function waitForIndex(url, token) {
  for (let tries = 1; ; tries++) {
    const health = await request(`${url}/health`, 'GET', undefined, token).catch((err) => ({ error: err.message }));
    if (health?.changeLog?.pending === 0) return;
    if (tries % 20 === 0) console.log(`still waiting for the index: ${JSON.stringify(health).slice(0, 400)}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}
