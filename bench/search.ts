/**
 * `npm run bench -- search`: 100,000 datasets with 3 structured properties each.
 * Measures, in one run against one Meilisearch:
 * - indexing throughput of the initial load: the change-log indexer draining the
 *   load, and a full rebuild (system-update), in documents per second;
 * - p50/p99 latency of a scroll with a range filter and of an aggregation with two
 *   facets through SearchService (what the GraphQL resolvers call), next to the very
 *   same requests sent straight to Meilisearch.
 * Not a test: nothing is asserted. BENCH_N and BENCH_ITERATIONS override the sizes.
 */
import { execSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config.js';
import { findEntityType } from '../src/domain/entityTypes.js';
import { createLogger } from '../src/logger.js';
import { startServer } from '../src/server.js';
import { SYSTEM_CALLER } from '../src/services/caller.js';
import { rebuildIndexes } from '../src/services/searchIndex/rebuild.js';
import { findPropertiesBySearchField } from '../src/store/propertyRegistry.js';
import { pendingCount } from '../src/store/changeLog.js';
import { postgresAvailable, startMeilisearch, startPostgres } from '../test/support/globalSetup.js';

const N = Number(process.env.BENCH_N ?? 100_000);
const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 300);
const WARMUP = 30;
const BATCH = 1000;
const TIERS = ['gold', 'silver', 'bronze', 'iron', 'paper'];
const REGIONS = ['eu-west', 'eu-north', 'us-east', 'us-west', 'ap-south', 'ap-east', 'sa-east', 'af-south', 'me-central', 'ca-central'];

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

async function timeIt(fn: () => Promise<unknown>): Promise<{ p50: number; p99: number }> {
  for (let i = 0; i < WARMUP; i++) await fn();
  const samples: number[] = [];
  for (let i = 0; i < ITERATIONS; i++) {
    const t = performance.now();
    await fn();
    samples.push(performance.now() - t);
  }
  samples.sort((a, b) => a - b);
  return { p50: percentile(samples, 50), p99: percentile(samples, 99) };
}

function machine(): string {
  const sh = (cmd: string) => execSync(cmd, { encoding: 'utf8' }).trim();
  return [`nproc: ${sh('nproc')}`, `free -g:\n${sh('free -g')}`, `node: ${process.version}`, `cpu: ${sh("grep -m1 'model name' /proc/cpuinfo | cut -d: -f2").trim()}`].join('\n');
}

async function main(): Promise<void> {
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
  const db = server.database.prisma;
  const { entities, search } = server.services;
  try {
    console.log(`database: ${server.database.kind}; Meilisearch 1.21.0 at ${meili.url}`);
    const define = (qualifiedName: string, valueType: string, cardinality: string) =>
      entities.setAspect(SYSTEM_CALLER, `urn:li:structuredProperty:${qualifiedName}`, 'propertyDefinition', {
        value: { qualifiedName, valueType: `urn:li:dataType:svc.${valueType}`, cardinality, entityTypes: ['urn:li:entityType:svc.dataset'] },
      });
    await define('bench.score', 'number', 'SINGLE');
    await define('bench.tier', 'string', 'SINGLE');
    await define('bench.regions', 'string', 'MULTIPLE');
    const dataset = findEntityType('dataset')!;

    // The load: written with the indexer off, so that its drain can be timed alone.
    let t = performance.now();
    for (let start = 0; start < N; start += BATCH) {
      const items = [];
      for (let i = start; i < Math.min(N, start + BATCH); i++) {
        items.push({
          urn: `urn:li:dataset:(urn:li:dataPlatform:hive,bench.t${String(i).padStart(6, '0')},PROD)`,
          aspects: new Map([
            ['status', { value: { removed: false } }],
            [
              'structuredProperties',
              {
                value: {
                  properties: [
                    { propertyUrn: 'urn:li:structuredProperty:bench.score', values: [{ double: (i % 200) / 2 }] },
                    { propertyUrn: 'urn:li:structuredProperty:bench.tier', values: [{ string: TIERS[i % TIERS.length]! }] },
                    { propertyUrn: 'urn:li:structuredProperty:bench.regions', values: [{ string: REGIONS[i % 10]! }, { string: REGIONS[(i * 7 + 3) % 10]! }].filter((v, k, a) => a.findIndex((w) => w.string === v.string) === k) },
                  ],
                },
              },
            ],
          ]),
        });
      }
      await entities.batchUpsert(SYSTEM_CALLER, dataset, items, { async: true });
      if ((start / BATCH) % 10 === 9) process.stdout.write(`  loaded ${start + BATCH} datasets (${((performance.now() - t) / 1000).toFixed(0)} s)\n`);
    }
    const loadSeconds = (performance.now() - t) / 1000;
    console.log(`database load: ${N} datasets in ${loadSeconds.toFixed(1)} s (${(N / loadSeconds).toFixed(0)}/s, not the search module's cost)`);

    t = performance.now();
    server.indexer!.start();
    while ((await pendingCount(db)) > 0) await new Promise((r) => setTimeout(r, 200));
    const drainSeconds = (performance.now() - t) / 1000;
    const drainRate = N / drainSeconds;
    console.log(`indexer drain (change log -> Meilisearch): ${drainSeconds.toFixed(1)} s, ${drainRate.toFixed(0)} documents/s`);

    t = performance.now();
    await rebuildIndexes({ db, engine: server.search.engine!, log }, async () => undefined);
    const rebuildSeconds = (performance.now() - t) / 1000;
    const rebuildRate = N / rebuildSeconds;
    console.log(`full rebuild (system-update): ${rebuildSeconds.toFixed(1)} s, ${rebuildRate.toFixed(0)} documents/s`);
    while ((await pendingCount(db)) > 0) await new Promise((r) => setTimeout(r, 200));

    const registry = await findPropertiesBySearchField(db, ['bench_score', 'bench_tier', 'bench_regions']);
    const field = (f: string) => `sp.g${registry.get(f)!.generation}`;
    const orFilters = [{ and: [{ field: 'structuredProperties.bench.score', condition: 'GREATER_THAN' as const, values: ['50.0'] }] }];
    const facets = ['structuredProperties.bench.tier', 'structuredProperties.bench.regions'];

    const first = await search.scroll(SYSTEM_CALLER, { types: ['dataset'], count: 100, orFilters });
    const agg = await search.aggregate(SYSTEM_CALLER, { types: ['dataset'], facets, maxAggValues: 20 });
    console.log(`scroll total ${first.total}; aggregate ${agg.facets.map((f) => `${f.field}: ${f.aggregations.length} values`).join(', ')}`);

    // The requests SearchService sends for these two calls, sent as they are.
    const raw = (body: unknown) =>
      fetch(`${meili.url}/multi-search`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${meili.masterKey}` },
        body: JSON.stringify(body),
      }).then((r) => r.json());
    const rawScroll = {
      queries: [{ indexUid: 'bench_dataset', q: '', filter: ['_removed = false', `${field('bench_score')} > "50"`], limit: 100, offset: 0, attributesToRetrieve: ['urn', '_k', '_type'], sort: ['_k:asc'], facets: ['_type'] }],
    };
    const rawAgg = {
      queries: [{ indexUid: 'bench_dataset', q: '', filter: ['_removed = false'], limit: 0, offset: 0, attributesToRetrieve: ['urn', '_k', '_type'], facets: [field('bench_tier'), field('bench_regions')] }],
    };
    const rawCheck = (await raw(rawScroll)) as { results: Array<{ facetDistribution: { _type: { dataset: number } } }> };
    if (rawCheck.results[0]!.facetDistribution._type.dataset !== first.total) throw new Error('the raw scroll does not match the service scroll');

    const results = {
      scrollService: await timeIt(() => search.scroll(SYSTEM_CALLER, { types: ['dataset'], count: 100, orFilters })),
      scrollRaw: await timeIt(() => raw(rawScroll)),
      aggService: await timeIt(() => search.aggregate(SYSTEM_CALLER, { types: ['dataset'], facets, maxAggValues: 20 })),
      aggRaw: await timeIt(() => raw(rawAgg)),
    };
    const ms = (x: number) => `${x.toFixed(2)} ms`;
    const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}x`;
    console.log('\n| Query | propgraph p50 | propgraph p99 | Meilisearch direct p50 | direct p99 | ratio p50 | ratio p99 |');
    console.log('|---|---|---|---|---|---|---|');
    console.log(`| scroll, range filter (count 100) | ${ms(results.scrollService.p50)} | ${ms(results.scrollService.p99)} | ${ms(results.scrollRaw.p50)} | ${ms(results.scrollRaw.p99)} | ${ratio(results.scrollService.p50, results.scrollRaw.p50)} | ${ratio(results.scrollService.p99, results.scrollRaw.p99)} |`);
    console.log(`| aggregate, 2 facets | ${ms(results.aggService.p50)} | ${ms(results.aggService.p99)} | ${ms(results.aggRaw.p50)} | ${ms(results.aggRaw.p99)} | ${ratio(results.aggService.p50, results.aggRaw.p50)} | ${ratio(results.aggService.p99, results.aggRaw.p99)} |`);
    console.log(`\n| Indexing (initial load, ${N} documents) | seconds | documents/s |`);
    console.log('|---|---|---|');
    console.log(`| change-log indexer drain | ${drainSeconds.toFixed(1)} | ${drainRate.toFixed(0)} |`);
    console.log(`| full rebuild (system-update) | ${rebuildSeconds.toFixed(1)} | ${rebuildRate.toFixed(0)} |`);
  } finally {
    await server.close();
    await meili.destroy();
    await pg?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
