// Policies (issue #40): what 100 policies cost where users stand. One server (`node
// dist/main.js`, authentication on, external PostgreSQL and Meilisearch), a machine token
// of write scope that the policies apply to (the root token is outside them); rounds
// alternate between the shipped defaults alone and 100 policies, in the same run:
//   - value writes over REST v3 (POST structuredProperties, --concurrency clients), ops/s;
//   - a search over REST v3 (a range filter, count 10), p50 and p99, one client;
//   - a bulk edit of one property over --n datasets (the job, until done), entities/s.
// With the 100 policies, four apply to the token: reading and editing values are granted
// on datasets by a structured property's value (so every search carries the read
// restriction into the engine's query, and every write is judged on the values it holds),
// BULK_EDIT is granted by name; 96 more name other groups, with every kind of criterion.
// Options: --n datasets (default 10000), --ops writes per round (2000), --searches per
// round (400), --rounds (5), --concurrency (16).
import os from 'node:os';
import { parseArgs } from 'node:util';
import { load, machine, median, percentile, request, round, startServer, testServers, writeSection } from './support.mjs';

const ROOT_TOKEN = 'bench-policies-root-token-secret';
const TIERS = ['gold', 'silver', 'bronze'];
const urnOf = (qn) => `urn:li:structuredProperty:${qn}`;
const datasetUrn = (i) => `urn:li:dataset:(urn:li:dataPlatform:hive,policy.t${String(i).padStart(6, '0')},PROD)`;

function valuesFor(i) {
  return {
    properties: [
      { propertyUrn: urnOf('bench.policy.score'), values: [{ double: i % 1000 }] },
      { propertyUrn: urnOf('bench.policy.tier'), values: [{ string: TIERS[i % 3] }] },
    ],
  };
}

/** The 100 policies: four for the benchmark's token, 96 for other groups with every kind of criterion. */
export function hundredPolicies() {
  const onTier = { filter: { criteria: [{ field: 'TYPE', values: ['dataset'] }, { field: 'structuredProperties.bench.policy.tier', values: TIERS }] } };
  const mine = [
    { id: 'b-read', displayName: 'bench reads by tier', privileges: ['VIEW_ENTITY_PAGE'], actors: { users: ['urn:li:corpuser:__service_bench'] }, resources: onTier },
    { id: 'b-read-definitions', displayName: 'bench reads definitions', privileges: ['VIEW_ENTITY_PAGE'], actors: { users: ['urn:li:corpuser:__service_bench'] }, resources: { filter: { criteria: [{ field: 'TYPE', values: ['structuredProperty'] }] } } },
    { id: 'b-edit', displayName: 'bench edits by tier', privileges: ['EDIT_ENTITY', 'EDIT_ENTITY_PROPERTIES'], actors: { users: ['urn:li:corpuser:__service_bench'] }, resources: onTier },
    { id: 'b-bulk', displayName: 'bench bulk edits', type: 'PLATFORM', privileges: ['BULK_EDIT'], actors: { users: ['urn:li:corpuser:__service_bench'] } },
  ];
  const kinds = [
    (k) => [{ field: 'DOMAIN', values: [`domain-${k}`] }],
    (k) => [{ field: 'PLATFORM', values: ['kafka'] }, { field: 'TAG', values: [`tag-${k}`] }],
    (k) => [{ field: 'structuredProperties.bench.policy.tier', values: [`tier-${k}`] }],
    (k) => [{ field: 'URN', values: [`urn:li:dataset:(urn:li:dataPlatform:team${k},`], condition: 'STARTS_WITH' }],
  ];
  const others = Array.from({ length: 96 }, (_, k) => ({
    id: `b-other-${k}`,
    displayName: `team ${k}`,
    privileges: k % 2 === 0 ? ['VIEW_ENTITY_PAGE', 'EDIT_ENTITY_PROPERTIES'] : ['EDIT_ENTITY', 'SOFT_DELETE_ENTITY'],
    actors: k % 3 === 0 ? { resourceOwners: true, groups: [`team-${k}`] } : { groups: [`team-${k}`] },
    resources: { filter: { criteria: kinds[k % kinds.length](k) } },
  }));
  return [...mine, ...others];
}

export async function run(argv) {
  const { values: opts } = parseArgs({
    args: argv,
    options: { n: { type: 'string', default: '10000' }, ops: { type: 'string', default: '2000' }, searches: { type: 'string', default: '400' }, rounds: { type: 'string', default: '5' }, concurrency: { type: 'string', default: '16' } },
  });
  const [n, ops, searches, rounds, concurrency] = [opts.n, opts.ops, opts.searches, opts.rounds, opts.concurrency].map(Number);
  const { startMeilisearch, startPostgres } = await testServers();
  const postgres = await startPostgres();
  const meili = await startMeilisearch();
  const server = await startServer({ DATABASE_URL: postgres.url, DATABASE_POOL_SIZE: '20', AUTH_ENABLED: 'true', ROOT_TOKEN, MEILI_URL: meili.url, MEILI_API_KEY: meili.masterKey, TEST_EVALUATION: 'false' });
  console.log(`server at ${server.url}; loading ${n} datasets`);
  const v3 = `${server.url}/openapi/v3`;
  const asRoot = (path, method, body) => request(`${v3}${path}`, method, body, ROOT_TOKEN);
  try {
    for (const [qn, type] of [['bench.policy.score', 'number'], ['bench.policy.tier', 'string']]) {
      await asRoot(`/entity/structuredProperty/${encodeURIComponent(urnOf(qn))}/propertyDefinition?createIfNotExists=false`, 'POST', { value: { qualifiedName: qn, valueType: `urn:li:dataType:svc.${type}`, cardinality: 'SINGLE', entityTypes: ['urn:li:entityType:svc.dataset'] } });
    }
    for (let start = 0; start < n; start += 1000) {
      const batch = Array.from({ length: Math.min(1000, n - start) }, (_, k) => ({ urn: datasetUrn(start + k), status: { value: { removed: false } }, structuredProperties: { value: valuesFor(start + k) } }));
      await asRoot('/entity/dataset?async=true', 'POST', batch);
    }
    const token = (await asRoot('/tokens', 'POST', { name: 'bench', scope: 'write' })).accessToken;
    // Every dataset in the index before anything is timed.
    while ((await total(server.url)) < n) await new Promise((r) => setTimeout(r, 500));

    const policies = hundredPolicies();
    const shipped = (await asRoot('/policies?query=propgraph-default', 'GET')).policies.map((p) => ({ id: p.urn.split(':').at(-1), ...p.dataHubPolicyInfo, state: 'ACTIVE' }));
    const useNone = () => asRoot('/policies/apply?prune=true', 'POST', { policies: shipped });
    const useHundred = () => asRoot('/policies/apply?prune=true', 'POST', { policies });
    const write = (phase) => (i) => request(`${v3}/entity/dataset/${encodeURIComponent(datasetUrn(i % n))}/structuredProperties?createIfNotExists=false&async=true`, 'POST', { value: valuesFor(i + phase) }, token);
    const searchUrl = (i) => `${v3}/entity/dataset?query=${encodeURIComponent(`structuredProperties.bench_policy_score:>=${i % 900} AND structuredProperties.bench_policy_score:<${(i % 900) + 50}`)}&count=10`;
    const timeSearches = async () => {
      const xs = [];
      for (let i = 0; i < searches; i++) {
        const t = performance.now();
        const page = await request(searchUrl(i), 'GET', undefined, token);
        xs.push(performance.now() - t);
        if ((page.entities ?? []).length === 0) throw new Error(`a search found nothing: ${searchUrl(i)}`);
      }
      xs.sort((a, b) => a - b);
      return { p50: percentile(xs, 50), p99: percentile(xs, 99) };
    };
    const bulk = async (tier, as = token) => {
      const t = performance.now();
      const started = await request(`${v3}/values/bulk`, 'POST', { query: 'structuredProperties.bench_policy_score:>=0', property: 'bench.policy.tier', operation: 'set', values: [tier] }, as);
      for (;;) {
        const job = await request(`${v3}/jobs/${started.jobId}`, 'GET', undefined, as);
        if (job.status === 'done') return { seconds: (performance.now() - t) / 1000, entities: started.entities, refused: job.result?.refusedCount ?? 0 };
        if (job.status === 'failed') throw new Error(`bulk edit failed: ${job.lastError}`);
        await new Promise((r2) => setTimeout(r2, 200));
      }
    };

    // Each measurement starts with the index caught up: the indexer's work after a bulk
    // edit (or the writes before) must not fall on the side measured next.
    const indexed = async () => {
      for (;;) {
        const health = await request(`${server.url}/health`, 'GET', undefined, ROOT_TOKEN).catch((err) => err.message);
        if (health?.changeLog?.pending === 0) return;
        await new Promise((r) => setTimeout(r, 250));
      }
    };
    const use = async (side) => {
      await (side === 'none' ? useNone() : useHundred());
      await indexed();
    };
    // Warm-up of both.
    for (const side of ['none', 'hundred']) {
      await use(side);
      await load(300, concurrency, write(0));
    }
    const results = { none: { writes: [], search: [], bulk: [] }, hundred: { writes: [], search: [], bulk: [] } };
    // The machine is shared: its load when the rounds start and end is part of the figures.
    const loadAtStart = os.loadavg()[0];
    let phase = 1;
    // Each kind of measurement alternates the two sides back to back (which goes first alternates too), so drift on a shared machine falls on both.
    for (let r = 0; r < rounds; r++) {
      const order = r % 2 === 0 ? ['none', 'hundred'] : ['hundred', 'none'];
      // Every measurement writes values the datasets do not hold yet: a write that changes nothing costs next to nothing.
      for (const side of order) {
        await use(side);
        results[side].writes.push(await load(ops, concurrency, write(++phase)));
      }
      for (const side of order) {
        await use(side);
        results[side].search.push(await timeSearches());
      }
      // Both bulk edits change every dataset: all start at one tier (set unmeasured), then each side sets another.
      await bulk(TIERS[0], ROOT_TOKEN);
      for (const [k, side] of order.entries()) {
        await use(side);
        results[side].bulk.push(await bulk(TIERS[k + 1]));
      }
      for (const side of order) {
        const [w, s, b] = [results[side].writes.at(-1), results[side].search.at(-1), results[side].bulk.at(-1)];
        console.log(`round ${r + 1}, ${side}: writes ${round(w.opsPerSecond)} ops/s (p99 ${round(w.p99)} ms); search p50 ${round(s.p50, 2)} ms; bulk edit of ${b.entities} in ${round(b.seconds)} s (${b.refused} refused)`);
      }
    }
    const m = (side, kind, key) => median(results[side][kind].map((x) => x[key]));
    const row = (label, key, kind, digits) => {
      const a = m('none', kind, key);
      const b = m('hundred', kind, key);
      const change = (b / a - 1) * 100;
      return `| ${label} | ${round(a, digits)} | ${round(b, digits)} | ${change >= 0 ? '+' : ''}${round(change, 1)}% |`;
    };
    const bulkRate = (side) => median(results[side].bulk.map((b) => b.entities / b.seconds));
    const table = `
Command: \`npm run bench -- policies --n ${n} --ops ${ops} --searches ${searches} --rounds ${rounds} --concurrency ${concurrency}\`
Machine: ${machine()}; its 1-minute load average ${round(loadAtStart, 1)} when the rounds began and ${round(os.loadavg()[0], 1)} at the end (the machine is shared). Server as a child process (\`node dist/main.js\`, authentication on), PostgreSQL 15 (throwaway cluster), Meilisearch 1.21.0, ${n} datasets with 2 values each; the load generator in the benchmark process, a machine token of write scope.

Rounds alternate, in the same run, between **the shipped defaults** (4 policies granting every privilege within the token's scope) and **100 policies**: 4 for the token (reading and editing values granted on datasets by a structured property's value, so every search carries the restriction into the engine's query and every write is judged on the values the dataset holds; BULK_EDIT by name) and 96 naming other groups, with every kind of criterion (domain, platform and tag, a value, a URN prefix, owners). Medians of ${rounds} rounds; within a round each kind of measurement runs on both sides back to back (the first side alternates), each starting with the index caught up.

| | shipped defaults | 100 policies | change |
|---|---|---|---|
${row(`value writes, ${concurrency} clients (ops/s)`, 'opsPerSecond', 'writes', 0)}
${row('value writes, p99 (ms)', 'p99', 'writes', 1)}
${row('search, range filter, count 10: p50 (ms)', 'p50', 'search', 2)}
${row('search: p99 (ms)', 'p99', 'search', 2)}
| bulk edit of ${n} datasets (entities/s, until the job is done) | ${round(bulkRate('none'))} | ${round(bulkRate('hundred'))} | ${round((bulkRate('hundred') / bulkRate('none') - 1) * 100, 1)}% |

Target (issue #40): writes per second and search p50 within 5 % of the defaults'.
`;
    console.log(table);
    writeSection('Policies: 100 policies against the shipped defaults (issue #40)', table);
  } finally {
    await server.stop();
    await meili.destroy();
    await postgres.stop();
  }
}

/** How many datasets the index holds. */
async function total(base) {
  const answer = await request(`${base}/api/graphql`, 'POST', { query: '{ scrollAcrossEntities(input: {types: [DATASET], query: "*", count: 0}) { total } }' }, ROOT_TOKEN);
  return answer.data.scrollAcrossEntities.total;
}
