// Benchmark 2 (issue #9): bulk load of N datasets with 3 structured property values
// each through the REST batch route, on the embedded default (PGlite + the bundled
// Meilisearch), until every dataset is searchable. Options: --n (default 100000),
// --batch (entities per request, default 1000, the server's limit), --concurrency (requests in flight, default 2).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { json, machine, round, startServer, writeSection } from './support.mjs';

const PROPS = [
  ['io.bulk.retention', 'number'],
  ['io.bulk.tier', 'string'],
  ['io.bulk.owner', 'string'],
];
const datasetUrn = (i) => `urn:li:dataset:(urn:li:dataPlatform:hive,bulk.t${String(i).padStart(7, '0')},PROD)`;

function entity(i) {
  return {
    urn: datasetUrn(i),
    status: { value: { removed: false } },
    structuredProperties: {
      value: {
        properties: [
          { propertyUrn: `urn:li:structuredProperty:${PROPS[0][0]}`, values: [{ double: (i % 365) + 1 }] },
          { propertyUrn: `urn:li:structuredProperty:${PROPS[1][0]}`, values: [{ string: ['gold', 'silver', 'bronze'][i % 3] }] },
          { propertyUrn: `urn:li:structuredProperty:${PROPS[2][0]}`, values: [{ string: `team-${i % 100}` }] },
        ],
      },
    },
  };
}

export async function run(argv) {
  const { values: opts } = parseArgs({ args: argv, options: { n: { type: 'string', default: '100000' }, batch: { type: 'string', default: '1000' }, concurrency: { type: 'string', default: '2' } } });
  const n = Number(opts.n);
  const batch = Number(opts.batch);
  const concurrency = Number(opts.concurrency);
  const dataDir = mkdtempSync(path.join(tmpdir(), 'propgraph-bulk-'));
  const server = await startServer({ DATA_DIR: dataDir, MEILI_EMBEDDED: 'true', LOG_LEVEL: 'info', ...(process.env.SEARCH_INDEX_BATCH_SIZE ? { SEARCH_INDEX_BATCH_SIZE: process.env.SEARCH_INDEX_BATCH_SIZE } : {}) });
  const v3 = `${server.url}/openapi/v3`;
  try {
    for (const [qn, type] of PROPS) {
      await json(`${v3}/entity/structuredProperty/${encodeURIComponent(`urn:li:structuredProperty:${qn}`)}/propertyDefinition?createIfNotExists=false`, 'POST', {
        value: { qualifiedName: qn, valueType: `urn:li:dataType:svc.${type}`, entityTypes: ['urn:li:entityType:svc.dataset'] },
      });
    }
    const started = Date.now();
    let next = 0;
    let written = 0;
    let lastReport = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        for (;;) {
          const start = next;
          next += batch;
          if (start >= n) return;
          const body = Array.from({ length: Math.min(batch, n - start) }, (_, k) => entity(start + k));
          await json(`${v3}/entity/dataset?async=true`, 'POST', body);
          written += body.length;
          if (Date.now() - lastReport > 5000) {
            lastReport = Date.now();
            console.log(`  ${written} written (${round(written / ((Date.now() - started) / 1000))}/s)`);
          }
        }
      }),
    );
    const writeSeconds = (Date.now() - started) / 1000;
    console.log(`written ${n} in ${round(writeSeconds)} s`);
    const query = `${v3}/entity/dataset?count=1&query=${encodeURIComponent('_exists_:structuredProperties.io_bulk_retention')}`;
    const total = async () => {
      const res = await json(`${server.url}/api/graphql`, 'POST', {
        query: '{ scrollAcrossEntities(input: {types: [DATASET], query: "*", count: 0, orFilters: [{and: [{field: "structuredProperties.io.bulk.retention", condition: EXISTS}]}]}) { total } }',
      });
      return res.data.scrollAcrossEntities.total;
    };
    void query;
    let found = 0;
    while ((found = await total()) < n) {
      if (Date.now() - lastReport > 5000) {
        lastReport = Date.now();
        console.log(`  ${found} searchable after ${round((Date.now() - started) / 1000)} s`);
      }
      await new Promise((r) => setTimeout(r, 250));
    }
    const totalSeconds = (Date.now() - started) / 1000;
    const body = `
Command: \`npm run bench -- bulk --n ${n} --batch ${batch} --concurrency ${concurrency}\`
Machine: ${machine()}. Embedded default: PGlite under a temporary DATA_DIR and the bundled Meilisearch, server as a child process (\`node dist/main.js\`).

${n} datasets, each with a status aspect and 3 structured property values (number, 2 strings), posted as \`POST /openapi/v3/entity/dataset?async=true\` batches of ${batch} (${concurrency} in flight); "searchable" means a GraphQL \`scrollAcrossEntities\` EXISTS filter counts all ${n}.

| Phase | seconds | datasets/s |
|---|---|---|
| written (all batches acknowledged) | ${round(writeSeconds)} | ${round(n / writeSeconds)} |
| searchable (from the first request) | ${round(totalSeconds)} | ${round(n / totalSeconds)} |

Target: under 60 s to searchable at 100,000 datasets.
`;
    console.log(body);
    if (n >= 100000) writeSection('3. Bulk load until searchable (embedded default)', body);
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
