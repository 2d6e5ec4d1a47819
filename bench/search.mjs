/**
 * `npm run bench -- search`: 100,000 datasets with 3 structured properties each.
 * Measures, in one run against one Meilisearch:
 * - indexing throughput of the initial load: the change-log indexer draining the
 *   load, and a full rebuild (system-update), in documents per second;
 * - p50/p99 latency of a scroll with a range filter and of an aggregation with two
 *   facets through SearchService (what the GraphQL resolvers call), next to the very
 *   same requests sent straight to Meilisearch.
 * Not a test: nothing is asserted. Options: --n <datasets> (100000), --iterations <n>
 * (300). Writes section 2 of BENCHMARKS.md.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { machine, percentile, ROOT, testServers, writeSection } from './support.mjs';

// The search module runs in this process, from dist/ (npm run bench builds it first).
const dist = (m) => import(path.join(ROOT, 'dist', m));
const { loadConfig } = await dist('platform/config.js');
const { findEntityType } = await dist('domain/registry/entityTypes.js');
const { createLogger } = await dist('platform/logger.js');
const { startServer } = await dist('boot/server.js');
const { SYSTEM_CALLER } = await dist('services/caller.js');
const { parseUrn, parseUrnOfType } = await dist('domain/urn.js');
const { rebuildIndexes } = await dist('services/searchIndex/rebuild.js');
const { findPropertiesBySearchField } = await dist('store/propertyRegistry.js');
const { pendingChanges } = await dist('store/changeLog.js');
const pendingCount = async (db) => (await pendingChanges(db, 1)).length;

const WARMUP = 30;
const BATCH = 1000;
const TIERS = ['gold', 'silver', 'bronze', 'iron', 'paper'];
const REGIONS = ['eu-west', 'eu-north', 'us-east', 'us-west', 'ap-south', 'ap-east', 'sa-east', 'af-south', 'me-central', 'ca-central'];

/**
 * Times `a` and `b` alternately, one call each per round (which goes first alternates
 * too), so drift on a shared machine falls on both sides alike.
 */
async function timePair(a, b, iterations) {
  for (let i = 0; i < WARMUP; i++) {
    await a();
    await b();
  }
  const samples = [[], []];
  const fns = [a, b];
  for (let i = 0; i < iterations; i++) {
    for (const k of i % 2 === 0 ? [0, 1] : [1, 0]) {
      const t = performance.now();
      await fns[k]();
      samples[k].push(performance.now() - t);
    }
  }
  return samples.map((xs) => {
    xs.sort((x, y) => x - y);
    return { p50: percentile(xs, 50), p99: percentile(xs, 99) };
  });
}

function option(args, name, fallback) {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : fallback;
}

export async function run(args) {
  const N = option(args, 'n', 100_000);
  const ITERATIONS = option(args, 'iterations', 300);
  const { postgresAvailable, startMeilisearch, startPostgres } = await testServers();
  console.log(`search benchmark: ${N} datasets x 3 properties, ${ITERATIONS} timed iterations per query\n${machine()}\n`);
  const pg = postgresAvailable() ? await startPostgres() : undefined;
  const meili = await startMeilisearch();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'propgraph-bench-'));
  const config = loadConfig({
    PORT: '0',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    AUTH_ENABLED: 'false',
    MEILI_URL: meili.url,
    MEILI_API_KEY: meili.masterKey,
    MEILI_INDEX_PREFIX: 'bench_',
    BACKGROUND_WORKERS: 'false',
    SEARCH_INDEX_BATCH_SIZE: '1000',
    ...(pg ? { DATABASE_URL: pg.url } : {}),
  });
  const log = createLogger('warn');
  const server = await startServer(config, log);
  const db = server.database.db;
  const { writes, search } = server.services;
  try {
    console.log(`database: ${server.database.kind}; Meilisearch 1.21.0 at ${meili.url}`);
    const define = (qualifiedName, valueType, cardinality) =>
      writes.submit(SYSTEM_CALLER, {
        entities: [
          {
            urn: parseUrn(`urn:li:structuredProperty:${qualifiedName}`),
            changes: [{ op: 'set', aspect: 'propertyDefinition', value: { qualifiedName, valueType: `urn:li:dataType:svc.${valueType}`, cardinality, entityTypes: ['urn:li:entityType:svc.dataset'] } }],
          },
        ],
      });
    await define('bench.score', 'number', 'SINGLE');
    await define('bench.tier', 'string', 'SINGLE');
    await define('bench.regions', 'string', 'MULTIPLE');
    const dataset = findEntityType('dataset');

    // The load: written with the indexer off, so that its drain can be timed alone.
    let t = performance.now();
    for (let start = 0; start < N; start += BATCH) {
      const items = [];
      for (let i = start; i < Math.min(N, start + BATCH); i++) {
        items.push({
          urn: parseUrnOfType(`urn:li:dataset:(urn:li:dataPlatform:hive,bench.t${String(i).padStart(6, '0')},PROD)`, dataset),
          changes: [
            { op: 'set', aspect: 'status', value: { removed: false } },
            {
              op: 'set',
              aspect: 'structuredProperties',
              value: {
                  properties: [
                    { propertyUrn: 'urn:li:structuredProperty:bench.score', values: [{ double: (i % 200) / 2 }] },
                    { propertyUrn: 'urn:li:structuredProperty:bench.tier', values: [{ string: TIERS[i % TIERS.length] }] },
                    { propertyUrn: 'urn:li:structuredProperty:bench.regions', values: [{ string: REGIONS[i % 10] }, { string: REGIONS[(i * 7 + 3) % 10] }].filter((v, k, a) => a.findIndex((w) => w.string === v.string) === k) },
                  ],
              },
            },
          ],
        });
      }
      await writes.submit(SYSTEM_CALLER, { entities: items }, { async: true });
      if ((start / BATCH) % 10 === 9) process.stdout.write(`  loaded ${start + BATCH} datasets (${((performance.now() - t) / 1000).toFixed(0)} s)\n`);
    }
    const loadSeconds = (performance.now() - t) / 1000;
    console.log(`database load: ${N} datasets in ${loadSeconds.toFixed(1)} s (${(N / loadSeconds).toFixed(0)}/s, not the search module's cost)`);

    t = performance.now();
    server.indexer.start();
    while ((await pendingCount(db)) > 0) await new Promise((r) => setTimeout(r, 200));
    const drainSeconds = (performance.now() - t) / 1000;
    const drainRate = N / drainSeconds;
    console.log(`indexer drain (change log -> Meilisearch): ${drainSeconds.toFixed(1)} s, ${drainRate.toFixed(0)} documents/s`);

    t = performance.now();
    await rebuildIndexes({ db, engine: server.search.engine, log }, async () => undefined);
    const rebuildSeconds = (performance.now() - t) / 1000;
    const rebuildRate = N / rebuildSeconds;
    console.log(`full rebuild (system-update): ${rebuildSeconds.toFixed(1)} s, ${rebuildRate.toFixed(0)} documents/s`);
    while ((await pendingCount(db)) > 0) await new Promise((r) => setTimeout(r, 200));

    const registry = await findPropertiesBySearchField(db, ['bench_score', 'bench_tier', 'bench_regions']);
    const field = (f) => `sp.g${registry.get(f).generation}`;
    const orFilters = [{ and: [{ field: 'structuredProperties.bench.score', condition: 'GREATER_THAN', values: ['50.0'] }] }];
    const facets = ['structuredProperties.bench.tier', 'structuredProperties.bench.regions'];

    const first = await search.scroll(SYSTEM_CALLER, { types: ['dataset'], count: 100, orFilters });
    const agg = await search.aggregate(SYSTEM_CALLER, { types: ['dataset'], facets, maxAggValues: 20 });
    console.log(`scroll total ${first.total}; aggregate ${agg.facets.map((f) => `${f.field}: ${f.aggregations.length} values`).join(', ')}`);

    // The requests SearchService sends for these two calls, sent as they are.
    // Same transport as the service (node:http keep-alive), so the ratio is the service's own cost.
    const agent = new http.Agent({ keepAlive: true });
    const raw = (body) =>
      new Promise((resolve, reject) => {
        const payload = JSON.stringify(body);
        const req = http.request(`${meili.url}/multi-search`, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), authorization: `Bearer ${meili.masterKey}` } }, (res) => {
          const chunks = [];
          res.on('data', (c) => chunks.push(c));
          res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
        });
        req.on('error', reject);
        req.end(payload);
      });
    const rawScroll = {
      queries: [{ indexUid: server.search.engine.uid('dataset'), q: '', filter: ['_removed = false', `${field('bench_score')} > "50"`], limit: 100, offset: 0, attributesToRetrieve: ['urn', '_k', '_type'], sort: ['_k:asc'], facets: ['_type'] }],
    };
    const rawAgg = {
      queries: [{ indexUid: server.search.engine.uid('dataset'), q: '', filter: ['_removed = false'], limit: 0, offset: 0, attributesToRetrieve: ['urn', '_k', '_type'], facets: [field('bench_tier'), field('bench_regions')] }],
    };
    const rawCheck = await raw(rawScroll);
    if (rawCheck.results[0].facetDistribution._type.dataset !== first.total) throw new Error('the raw scroll does not match the service scroll');

    const scroll = await timePair(() => search.scroll(SYSTEM_CALLER, { types: ['dataset'], count: 100, orFilters }), () => raw(rawScroll), ITERATIONS);
    const aggs = await timePair(() => search.aggregate(SYSTEM_CALLER, { types: ['dataset'], facets, maxAggValues: 20 }), () => raw(rawAgg), ITERATIONS);
    const results = { scrollService: scroll[0], scrollRaw: scroll[1], aggService: aggs[0], aggRaw: aggs[1] };
    const ms = (x) => x.toFixed(2);
    const ratio = (a, b) => `${(a / b).toFixed(2)}×`;
    const row = (label, service, direct) => `| ${label} | ${ms(service.p50)} | ${ms(service.p99)} | ${ms(direct.p50)} | ${ms(direct.p99)} | ${ratio(service.p50, direct.p50)} | ${ratio(service.p99, direct.p99)} |`;
    const body = [
      `Command: \`npm run bench -- search${N !== 100_000 ? ` --n ${N}` : ''}${ITERATIONS !== 300 ? ` --iterations ${ITERATIONS}` : ''}\``,
      `Machine: ${machine()}. Database: ${server.database.kind}${pg ? ' (throwaway cluster, fsync off)' : ''}; Meilisearch 1.21.0 (npm binary, 2 indexing threads).`,
      '',
      `Data: ${N} datasets, each with \`bench.score\` (number, 200 values), \`bench.tier\` (string, 5 values) and \`bench.regions\` (string, MULTIPLE, 1-2 of 10 values), loaded through the aspect write pipeline (${(N / loadSeconds).toFixed(0)} datasets/s, not counted below).`,
      '',
      `Queries (${ITERATIONS} timed after ${WARMUP} warm-up, one at a time, service and direct alternating): SearchService, in process, as the GraphQL resolvers call it, against the identical Meilisearch request sent directly over the same keep-alive transport. The scroll is \`structuredProperties.bench.score GREATER_THAN "50.0"\`, count 100, total ${first.total}; the aggregation asks for \`bench.tier\` and \`bench.regions\`.`,
      '',
      '| Query | propgraph p50 (ms) | p99 (ms) | Meilisearch direct p50 (ms) | p99 (ms) | ratio p50 | ratio p99 |',
      '|---|---|---|---|---|---|---|',
      row('scroll with a range filter', results.scrollService, results.scrollRaw),
      row('aggregate, 2 facets', results.aggService, results.aggRaw),
      '',
      '| Indexing the initial load | seconds | documents/s |',
      '|---|---|---|',
      `| change-log indexer drain | ${drainSeconds.toFixed(1)} | ${drainRate.toFixed(0)} |`,
      `| full rebuild (system-update: scratch index + swap) | ${rebuildSeconds.toFixed(1)} | ${rebuildRate.toFixed(0)} |`,
      '',
      `Resident memory of the process holding the server (and this benchmark) at the end: ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MB (target under 300 MB; Meilisearch runs as its own process).`,
    ].join('\n');
    console.log(`\n${body}`);
    writeSection(`2. Search at ${N.toLocaleString('en-US')} datasets: scroll and aggregation vs Meilisearch direct; indexing throughput`, body);
  } finally {
    await server.close();
    await meili.destroy();
    await pg?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
