// `npm run bench -- tests`: metadata tests across the catalog (issue #28), measured where
// users stand. The server runs as `npm start` runs it (authentication on, its own durable
// PostgreSQL and Meilisearch under a fresh DATA_DIR); every figure is taken over HTTP
// with the generated admin token, beside a baseline from the same run:
//
// - ten tests created one after another on N datasets, until every result is searchable
//   (the search's facet counts equal a brute-force evaluation of the data, done here),
//   beside the bulk load of the same N datasets until searchable;
// - one entity's change until its new test result is searchable (p50/p99 over --changes
//   changes, one at a time), beside the same change until its own new value is searchable;
// - /health and /health/live while the full evaluation runs, beside a bare Node server asked meanwhile;
//   the server tree's CPU and memory during the evaluation and during the bulk load.
//
// Options: --n <datasets> (100000), --changes <n> (100), --profile <dir> (a V8 CPU profile
// of the server, summarised over the full evaluation). Writes the section "Metadata tests
// across the catalog" of BENCHMARKS.md (not with --profile).
import { readFileSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { bulkLoad, healthDuring, memoryOfTree, printMemory, startAsUser, startFlags, tempDataDir } from './outsideServer.mjs';
import { PROPS, datasetUrn, propertyUrn, valuesFor } from './outsideData.mjs';
import { profilesIn } from './outsideProfile.mjs';
import { startBareProxy } from './outsideSearch.mjs';
import { summarize } from './profileSummary.mjs';
import { machine, percentile, request, round, writeSection } from './support.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const [RETENTION, TIER, OWNER] = PROPS.map(([qn]) => `structuredProperties.${propertyUrn(qn)}`);
const TIERS = ['gold', 'silver', 'bronze'];
const leaf = (property, operator, values) => (values === undefined ? { property, operator } : { property, operator, values });

/**
 * The ten tests, each with what it gives on dataset i of outsideData.mjs (the brute
 * force the search is checked against): 'pass', 'fail', or null when out of scope.
 */
const TESTS = [
  ['retention-over-30', 'Retention over 30 days', { rules: [leaf(RETENTION, 'greater_than', ['30'])] }, (i) => (i % 365) + 1 > 30],
  ['tier-is-gold', 'Tier is gold', { rules: [leaf(TIER, 'equals', ['gold'])] }, (i) => i % 3 === 0],
  ['has-owner', 'Has an owning team', { rules: [leaf(OWNER, 'exists')] }, () => true],
  ['owner-team-1', 'Owned by a team-1x', { rules: [leaf(OWNER, 'starts_with', ['team-1'])] }, (i) => String(i % 50).startsWith('1')],
  ['is-prod', 'In production', { rules: [leaf('datasetKey.origin', 'equals', ['PROD'])] }, () => true],
  ['not-removed', 'Not soft deleted', { rules: [leaf('status.removed', 'is_false')] }, () => true],
  ['name-ends-0-or-5', 'Name ends in 0 or 5', { rules: [leaf('urn', 'regex_match', ['(?i).*\\.T\\d*[05],PROD\\)'])] }, (i) => i % 5 === 0],
  ['described', 'Has a description', { rules: [leaf('datasetProperties.description', 'exists')] }, () => false],
  ['silver-or-long', 'Silver, or kept 100 days or more', { rules: { or: [leaf(TIER, 'equals', ['silver']), { not: leaf(RETENTION, 'less_than', ['100']) }] } }, (i) => i % 3 === 1 || (i % 365) + 1 >= 100],
  ['bronze-short', 'Bronze data is kept under 180 days', { conditions: [leaf(TIER, 'equals', ['bronze'])], rules: [leaf(RETENTION, 'less_than', ['180'])] }, (i) => (i % 3 === 2 ? (i % 365) + 1 < 180 : null)],
].map(([id, name, def, outcome]) => ({
  urn: `urn:li:test:${id}`,
  name,
  json: JSON.stringify({ on: { types: ['dataset'], ...(def.conditions ? { conditions: def.conditions } : {}) }, rules: def.rules }),
  outcome: (i) => {
    const o = outcome(i);
    return o === null ? null : o ? 'pass' : 'fail';
  },
}));

/** Seconds of CPU (user + system) of a process and all its descendants, by command. */
function cpuOfTree(rootPid) {
  const ticks = 100;
  const children = new Map();
  const stats = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ppid = Number(fields[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
      stats.set(Number(entry), { comm: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), seconds: (Number(fields[11]) + Number(fields[12])) / ticks });
    } catch {
      // gone meanwhile
    }
  }
  const out = new Map();
  const visit = (pid) => {
    const s = stats.get(pid);
    if (s) {
      const name = s.comm === 'node' ? 'node (server)' : s.comm.startsWith('postgres') ? 'postgres' : s.comm.startsWith('meili') ? 'meilisearch' : s.comm;
      out.set(name, (out.get(name) ?? 0) + s.seconds);
    }
    for (const c of children.get(pid) ?? []) visit(c);
  };
  visit(rootPid);
  return out;
}

const cpuDelta = (before, after) => new Map([...after].map(([k, v]) => [k, v - (before.get(k) ?? 0)]));
const describeCpu = (cpu, seconds) => [...cpu].map(([k, v]) => `${k} ${round(v, 1)} s (${round(v / seconds, 2)} cores)`).join(', ');
const peakPss = (samples) => Math.max(...samples.map((m) => [...m.values()].reduce((a, x) => a + x.pss, 0)));
const peakOf = (samples, name) => Math.max(...samples.map((m) => m.get(name)?.pss ?? 0));

/** Samples the tree's memory every 2 s until `done()`. */
function memorySampler(pid) {
  const samples = [];
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      samples.push(memoryOfTree(pid));
      await sleep(2000);
    }
  })();
  return { samples, stop: async () => ((stopped = true), await loop) };
}

/** The facet counts of passingTests and failingTests across the datasets. */
async function searchedCounts(api) {
  const res = await api.post('/api/graphql', {
    query: '{ aggregateAcrossEntities(input: {types: [DATASET], query: "*", facets: ["passingTests", "failingTests"], searchFlags: {maxAggValues: 100}}) { facets { field aggregations { value count } } } }',
  });
  const out = new Map();
  for (const f of res.data.aggregateAcrossEntities.facets) for (const a of f.aggregations) out.set(`${f.field}:${a.value}`, a.count);
  return out;
}

async function scenario(opts) {
  const dataDir = tempDataDir('tests');
  const env = { DATA_DIR: dataDir, RATE_LIMIT_PER_MINUTE: '100000000' };
  const server = await startAsUser(env, { nodeArgs: opts.profile ? ['--cpu-prof', '--cpu-prof-interval=1000', `--cpu-prof-dir=${opts.profile}`] : [] });
  const token = readFileSync(path.join(dataDir, 'root-token'), 'utf8').trim();
  const meiliKey = readFileSync(path.join(dataDir, 'meili', 'master-key'), 'utf8').trim();
  const api = { get: (p) => request(server.url + p, 'GET', undefined, token), post: (p, body) => request(server.url + p, 'POST', body, token) };
  const out = { n: opts.n };
  try {
    for (const [qn, type] of PROPS) {
      await api.post(`/openapi/v3/entity/structuredProperty/${encodeURIComponent(propertyUrn(qn))}/propertyDefinition?createIfNotExists=false`, {
        value: { qualifiedName: qn, valueType: `urn:li:dataType:svc.${type}`, entityTypes: ['urn:li:entityType:svc.dataset'], cardinality: 'SINGLE' },
      });
    }

    console.log(`== baseline: bulk load of ${opts.n} datasets over REST batches until searchable`);
    let cpu0 = cpuOfTree(server.child.pid);
    let t = performance.now();
    await bulkLoad(api, { to: opts.n, prefix: 'bench' });
    for (;;) {
      const res = await api.post('/api/graphql', { query: '{ scrollAcrossEntities(input: {types: [DATASET], query: "*", count: 0}) { total } }' });
      if (res.data.scrollAcrossEntities.total >= opts.n) break;
      await sleep(200);
    }
    out.bulk = { seconds: (performance.now() - t) / 1000 };
    out.bulk.cpu = cpuDelta(cpu0, cpuOfTree(server.child.pid));
    console.log(`searchable after ${round(out.bulk.seconds, 1)} s; CPU ${describeCpu(out.bulk.cpu, out.bulk.seconds)}`);
    // Let the evaluator pass the load (no test exists: it evaluates nothing) before the clock starts.
    await sleep(5000);

    const expected = new Map();
    for (const test of TESTS) {
      let passing = 0;
      let failing = 0;
      for (let i = 0; i < opts.n; i++) {
        const o = test.outcome(i);
        if (o === 'pass') passing++;
        else if (o === 'fail') failing++;
      }
      expected.set(test.urn, { passing, failing });
    }

    console.log(`== ${TESTS.length} tests created one after another, until every result is searchable`);
    const floor = await startBareProxy({ meiliUrl: server.meiliUrl, masterKey: meiliKey, token, routes: [{ requests: [] }] });
    const memory = memorySampler(server.child.pid);
    cpu0 = cpuOfTree(server.child.pid);
    const hrStart = process.hrtime.bigint();
    let evaluatedS;
    try {
      out.health = await healthDuring(
        api,
        async () => {
          t = performance.now();
          for (const test of TESTS) {
            await api.post(`/openapi/v3/entity/test/${encodeURIComponent(test.urn)}/testInfo?createIfNotExists=false`, {
              value: { name: test.name, category: 'Benchmark', definition: { type: 'JSON', json: test.json } },
            });
          }
          for (;;) {
            await sleep(500);
            const { jobs } = await api.get('/openapi/v3/jobs?count=20');
            const evaluating = jobs.filter((j) => j.kind === 'evaluate-tests');
            if (evaluatedS === undefined && evaluating.length > 0 && evaluating.every((j) => j.status === 'done')) evaluatedS = (performance.now() - t) / 1000;
            if (evaluatedS === undefined) continue;
            const counts = await searchedCounts(api);
            const complete = TESTS.every((x) => counts.get(`passingTests:${x.urn}`) === nonZero(expected.get(x.urn).passing) && counts.get(`failingTests:${x.urn}`) === nonZero(expected.get(x.urn).failing));
            if (complete) break;
          }
        },
        { url: `${floor.url}/?route=0`, token },
        true,
      );
    } finally {
      await floor.stop();
      await memory.stop();
    }
    const hrEnd = process.hrtime.bigint();
    out.full = { seconds: out.health.workMs / 1000, evaluatedS, interval: [Number(hrStart / 1000n), Number(hrEnd / 1000n)] };
    out.full.cpu = cpuDelta(cpu0, cpuOfTree(server.child.pid));
    out.full.memory = memory.samples;
    console.log(`evaluation jobs done after ${round(evaluatedS, 1)} s; every result searchable after ${round(out.full.seconds, 1)} s`);
    console.log(`CPU ${describeCpu(out.full.cpu, out.full.seconds)}; peak PSS of the tree ${round(peakPss(memory.samples))} MB, node ${round(peakOf(memory.samples, 'node (server)'))} MB`);
    console.log(`/health p50 ${round(out.health.p50, 1)} ms, p99 ${round(out.health.p99, 1)} ms, max ${round(out.health.max, 1)} ms; /health/live p99 ${round(out.health.live.p99, 1)} ms; a bare Node server meanwhile p99 ${round(out.health.floor.p99, 1)} ms`);
    const report = await api.get('/openapi/v3/tests/report?days=1');
    out.reportMatches = TESTS.every((x) => {
      const r = report.tests.find((y) => y.test.urn === x.urn);
      return r && r.passing === expected.get(x.urn).passing && r.failing === expected.get(x.urn).failing;
    });
    console.log(`the report's counts ${out.reportMatches ? 'match' : 'DO NOT match'} the brute-force evaluation`);

    console.log(`== ${opts.changes} changes, one at a time: the change searchable, its test result searchable`);
    const own = [];
    const result = [];
    for (let k = 0; k < opts.changes; k++) {
      const i = (k * 7919) % opts.n;
      const urn = datasetUrn(i, 'bench');
      const was = TIERS[i % 3];
      const now = was === 'gold' ? 'silver' : 'gold';
      const values = valuesFor(i);
      values.properties[1].values = [{ string: now }];
      const field = now === 'gold' ? 'passingTests' : 'failingTests';
      const found = async (filters) => {
        const res = await api.post('/api/graphql', { query: 'query f($o: [AndFilterInput!]) { scrollAcrossEntities(input: {types: [DATASET], query: "*", count: 1, orFilters: $o}) { total } }', variables: { o: [{ and: filters }] } });
        return res.data.scrollAcrossEntities.total === 1;
      };
      const start = performance.now();
      const write = api.post(`/openapi/v3/entity/dataset/${encodeURIComponent(urn)}/structuredProperties?createIfNotExists=false`, { value: values });
      let ownMs;
      let resultMs;
      while (ownMs === undefined || resultMs === undefined) {
        const [a, b] = await Promise.all([
          ownMs === undefined ? found([{ field: 'urn', values: [urn] }, { field: `structuredProperties.${PROPS[1][0]}`, values: [now] }]) : true,
          resultMs === undefined ? found([{ field: 'urn', values: [urn] }, { field, values: ['urn:li:test:tier-is-gold'] }]) : true,
        ]);
        const at = performance.now() - start;
        if (a && ownMs === undefined) ownMs = at;
        if (b && resultMs === undefined) resultMs = at;
        if (at > 30_000) throw new Error(`change ${k} of ${urn}: not searchable after 30 s`);
        await sleep(5);
      }
      await write;
      own.push(ownMs);
      result.push(resultMs);
    }
    own.sort((a, b) => a - b);
    result.sort((a, b) => a - b);
    out.change = { own: { p50: percentile(own, 50), p99: percentile(own, 99) }, result: { p50: percentile(result, 50), p99: percentile(result, 99), max: result.at(-1) } };
    console.log(`the change itself searchable: p50 ${round(out.change.own.p50)} ms, p99 ${round(out.change.own.p99)} ms; its test result: p50 ${round(out.change.result.p50)} ms, p99 ${round(out.change.result.p99)} ms, max ${round(out.change.result.max)} ms`);
    out.memoryAfter = memoryOfTree(server.child.pid);
    printMemory(out.memoryAfter);
  } finally {
    await server.stop();
    rmSync(path.dirname(dataDir), { recursive: true, force: true });
  }
  return out;
}

/** A facet leaves out values no entity has. */
const nonZero = (n) => (n === 0 ? undefined : n);
const met = (ok) => (ok ? 'met' : '**not met**');

function section(r, opts) {
  const memoryPeak = peakPss(r.full.memory);
  const nodePeak = peakOf(r.full.memory, 'node (server)');
  const rows = [
    `| ${TESTS.length} tests × ${r.n.toLocaleString('en-US')} datasets, from the first test created until every result is searchable | ${round(r.full.seconds, 1)} s (evaluation jobs done after ${round(r.full.evaluatedS, 1)} s); baseline, the bulk load of the same datasets over REST until searchable: ${round(r.bulk.seconds, 1)} s | ≤ 120 s | ${met(r.full.seconds <= 120)} |`,
    `| the report's counts against a brute-force evaluation of the data | ${r.reportMatches ? 'equal, every test' : '**different**'} | equal | ${met(r.reportMatches)} |`,
    `| one entity's change until its test result is searchable (${opts.changes} changes, one at a time, default writes) | p50 ${round(r.change.result.p50)} ms, p99 ${round(r.change.result.p99)} ms, max ${round(r.change.result.max)} ms; baseline, the change itself searchable: p50 ${round(r.change.own.p50)} ms, p99 ${round(r.change.own.p99)} ms | p99 ≤ 1 s | ${met(r.change.result.p99 <= 1000)} |`,
    `| \`/health\` while the full evaluation runs | p50 ${round(r.health.p50, 1)} ms, p99 ${round(r.health.p99, 1)} ms, max ${round(r.health.max, 1)} ms (${r.health.samples} samples); floor, a bare Node server asked meanwhile: p50 ${round(r.health.floor.p50, 1)} ms, p99 ${round(r.health.floor.p99, 1)} ms | p99 < 50 ms | ${met(r.health.p99 < 50)} |`,
    `| \`/health/live\` at the same moments (it checks nothing: the server's event loop alone) | p50 ${round(r.health.live.p50, 1)} ms, p99 ${round(r.health.live.p99, 1)} ms, max ${round(r.health.live.max, 1)} ms | | |`,
    `| CPU during the full evaluation (${round(r.full.seconds, 1)} s) | ${describeCpu(r.full.cpu, r.full.seconds)}; baseline, during the bulk load (${round(r.bulk.seconds, 1)} s): ${describeCpu(r.bulk.cpu, r.bulk.seconds)} | reported | |`,
    `| memory during the full evaluation (PSS, peak of samples every 2 s) | whole tree ${round(memoryPeak)} MB, node ${round(nodePeak)} MB; after the changes: ${[...r.memoryAfter].map(([k, m]) => `${k} ${round(m.pss)}`).join(', ')} MB | reported | |`,
  ];
  return `
Command: \`npm run bench -- tests --n ${r.n} --changes ${opts.changes}\`
Machine: ${machine()}. Server: \`node ${startFlags().join(' ')} dist/main.js\` as \`npm start\` runs it, authentication on (the generated admin token), \`RATE_LIMIT_PER_MINUTE=100000000\`, everything else default: the embedded PostgreSQL (durable: fsync and synchronous_commit on) and the bundled Meilisearch (256 MiB, 1 indexing thread). One client process sends every request over HTTP. The datasets are outsideData.mjs's (three structured property values each); the ten tests (bench/tests.mjs) read structured properties, the key, the status and the URN, with and/or/not, a regex and a scope condition, and each one's outcome on every dataset is computed by the benchmark itself: "searchable" means the search's facet counts of \`passingTests\` and \`failingTests\` equal that brute force for every test. A change flips one dataset's tier (a default write, which waits for its own indexing) and is followed by two searches at once: the new value, and the new result of "Tier is gold".

| Figure | Measured | Target | |
|---|---|---|---|
${rows.join('\n')}
`;
}

export async function run(argv) {
  const { values } = parseArgs({ args: argv, options: { n: { type: 'string', default: '100000' }, changes: { type: 'string', default: '100' }, profile: { type: 'string' } } });
  const opts = { n: Number(values.n), changes: Number(values.changes), profile: values.profile && path.resolve(values.profile) };
  console.log(`metadata tests across the catalog: ${opts.n} datasets\n${machine()}`);
  const before = opts.profile ? profilesIn(opts.profile) : [];
  const r = await scenario(opts);
  if (opts.profile) {
    const file = profilesIn(opts.profile).find((f) => !before.includes(f));
    const p = summarize(file, [r.full.interval]);
    const body = `Where the server's CPU went during the full evaluation (${round(r.full.seconds, 1)} s; a sample every 1 ms): busy ${round(p.busyMs / 1000, 1)} s, idle ${round(p.idleMs / 1000, 1)} s.

| What ran | s |
|---|---|
${p.categories.map((c) => `| ${c.name} | ${round(c.ms / 1000, 2)} |`).join('\n')}

Heaviest functions, self time (s): ${p.self.map((f) => `\`${f.name}\` ${round(f.ms / 1000, 2)}`).join('; ')}.

propgraph's functions, inclusive (s): ${p.inclusive.map((f) => `\`${f.name}\` ${round(f.ms / 1000, 2)}`).join('; ')}.
`;
    console.log(body);
    return;
  }
  const body = section(r, opts);
  console.log(body);
  writeSection(`Metadata tests across the catalog, ${opts.n.toLocaleString('en-US')} datasets`, body);
}
