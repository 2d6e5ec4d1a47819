// `npm run bench -- scale`: a catalog grown to a million datasets where users stand
// (issue 32). One server, started as `npm start` runs it on the embedded default, is
// loaded over REST batches to each size in turn (10,000, 100,000, 1,000,000 by default),
// each dataset with 3 structured property values and a 5-field schemaMetadata; at each
// size the load's rate until searchable, the searches beside the raw engine request and
// the bare proxy (outsideSearch.mjs, gateways left to `outside`), the memory of the
// process tree and the data on disk. At the largest size then: a restart until healthy,
// and the hard delete of a property every dataset holds, with /health sampled beside a
// bare Node server until the cleanup is done and the index has caught up. Writes the
// section "Scale" of BENCHMARKS.md and the chart docs/benchmarks-scale.svg.
//
// Options: --sizes 10000,100000,1000000, --iterations <timed searches per query> (300),
// --batch <entities per request> (1000), --in-flight <requests at once> (2), --profile
// <dir> (the server under `node --cpu-prof`, a sample a millisecond; each phase's CPU is
// summarised in the section, the figures stay the run's own: the profiler slows the
// server a little), --report <file> (the section again from the results a run saved,
// without running; a run prints the file's name before its report).
import { readFileSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { machine, percentile, request, ROOT, round, writeSection } from './support.mjs';
import { PROPS, propertyUrn } from './outsideData.mjs';
import { searchFigures, startBareProxy } from './outsideSearch.mjs';
import { bulkLoad, bytesUnder, countSearchable, cpuOfTree, cpuSecondsBetween, cpuText, embeddedDatabaseUrl, healthDuring, memoryOfTree, printMemory, sleep, startAsUser, tempDataDir } from './outsideServer.mjs';
import { scaleChart } from './scaleChart.mjs';
import { machineLimits, profileSection, scaleReport } from './scaleReport.mjs';

const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

/** How long the server is left alone before its memory is read a second time. */
const IDLE_MS = 30_000;

/** The 1-minute load average, sampled every 5 s while a phase runs: what the machine's other users were doing. */
function loadSampler() {
  const read = () => Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
  let samples = [read()];
  const timer = setInterval(() => samples.push(read()), 5000);
  return {
    /** The samples since the last call, and a new phase begins. */
    phase() {
      samples.push(read());
      const out = { min: Math.min(...samples), max: Math.max(...samples), median: percentile([...samples].sort((a, b) => a - b), 50) };
      samples = [read()];
      return out;
    },
    stop: () => clearInterval(timer),
  };
}

async function serverApi(server, token) {
  return {
    get: (p) => request(server.url + p, 'GET', undefined, token),
    post: (p, body) => request(server.url + p, 'POST', body, token),
    del: (p) => request(server.url + p, 'DELETE', undefined, token),
  };
}

/** Grows the catalog to `size`, then measures there. */
async function atSize(ctx, size, from, opts, load) {
  const { api, server } = ctx;
  console.log(`\n== ${size.toLocaleString('en-US')} datasets: loading ${from}..${size}`);
  const cpuBefore = cpuOfTree(server.child.pid);
  const t = performance.now();
  await bulkLoad(api, { from, to: size, prefix: 'bench', batch: opts.batch, inFlight: opts.inFlight });
  const writtenS = (performance.now() - t) / 1000;
  let searchable = 0;
  while ((searchable = await countSearchable(api)) < size) await sleep(250);
  const searchableS = (performance.now() - t) / 1000;
  const cpuSeconds = cpuSecondsBetween(cpuBefore, cpuOfTree(server.child.pid));
  ctx.windows.push({ name: `bulk load ${from}..${size}`, per: size - from, unit: 'dataset', interval: [Math.round(t * 1000 + ctx.clockOffsetUs), monotonicUs()] });
  const bulk = { from, size, writtenS, searchableS, perSecond: (size - from) / searchableS, cpuSeconds, load: load.phase() };
  console.log(`written in ${round(writtenS)} s, all ${searchable} searchable after ${round(searchableS)} s: ${round(bulk.perSecond)} datasets/s; CPU s ${cpuText(cpuSeconds)}`);

  console.log(`== ${size}: searches`);
  const search = await searchFigures({ server, dataDir: ctx.dataDir, databaseUrl: ctx.databaseUrl, iterations: opts.iterations, token: ctx.token, gateways: [] });
  const searchLoad = load.phase();
  for (const q of search.rows) ctx.windows.push({ name: `${q.label} at ${size}`, per: q.service.intervals.length, unit: 'request', intervals: q.service.intervals });

  const memory = memoryOfTree(server.child.pid);
  printMemory(memory);
  await sleep(IDLE_MS);
  const memoryIdle = memoryOfTree(server.child.pid);
  console.log(`== ${size}: memory ${IDLE_MS / 1000} s later`);
  printMemory(memoryIdle);
  const disk = { meili: bytesUnder(path.join(ctx.dataDir, 'meili')), postgres: bytesUnder(path.join(ctx.dataDir, 'postgres')) };
  console.log(`on disk: Meilisearch ${round(disk.meili / 2 ** 20)} MiB, PostgreSQL ${round(disk.postgres / 2 ** 20)} MiB`);
  return { size, bulk, search, searchLoad, memory, memoryIdle, disk };
}

/** Stop and start again on the same data, as `npm start` does; the time until /health says ok. */
async function restart(ctx) {
  await ctx.server.stop();
  const again = await startAsUser(ctx.env, { viaNpm: true });
  if (ctx.nodeArgs.length === 0) {
    ctx.server = again;
  } else {
    // Profiled: once more under the profiler, for the hard delete.
    await again.stop();
    ctx.server = await startAsUser(ctx.env, { nodeArgs: ctx.nodeArgs });
  }
  ctx.api = await serverApi(ctx.server, ctx.token);
  return again.readyMs;
}

/** The hard delete of a property every dataset holds, /health sampled until the cleanup is done and the index caught up. */
async function hardDelete(ctx, urn) {
  const { api, token } = ctx;
  const floor = await startBareProxy({ meiliUrl: ctx.server.meiliUrl, masterKey: ctx.masterKey, token, routes: [{ requests: [] }] });
  const out = {};
  try {
    const cpuBefore = cpuOfTree(ctx.server.child.pid);
    const t = performance.now();
    const startedUs = monotonicUs();
    out.health = await healthDuring(api, async () => {
      await api.del(`/openapi/v3/entity/structuredProperty/${encodeURIComponent(urn)}`);
      out.deleteMs = performance.now() - t;
      for (;;) {
        const { jobs } = await api.get('/openapi/v3/jobs?count=20');
        const job = jobs.find((j) => j.kind === 'cleanup-property-values' && j.propertyUrn === urn);
        if (job?.status === 'failed') throw new Error(`cleanup failed: ${job.lastError}`);
        // Every holder rewritten by the write path; the job then scrubs the older versions that still hold the values.
        if (job && job.total > 0 && job.done >= job.total) out.holdersS ??= (performance.now() - t) / 1000;
        if (job?.status === 'done') {
          out.cleanedS ??= (performance.now() - t) / 1000;
          out.total = job.total;
        }
        if (out.cleanedS !== undefined) {
          const health = await api.get('/health');
          if (health.changeLog?.pending === 0) break;
        }
        await sleep(250);
      }
      out.indexedS = (performance.now() - t) / 1000;
    }, { url: `${floor.url}/?route=0`, token });
    // Which process the cleanup's time went to (the server, PostgreSQL, Meilisearch).
    out.cpuSeconds = cpuSecondsBetween(cpuBefore, cpuOfTree(ctx.server.child.pid));
    ctx.windows.push({ name: 'hard delete until the index caught up', per: out.total, unit: 'dataset cleaned', interval: [startedUs, monotonicUs()] });
  } finally {
    await floor.stop();
  }
  console.log(`DELETE answered in ${round(out.deleteMs)} ms; cleanup of ${out.total} done after ${round(out.cleanedS)} s (holders rewritten after ${round(out.holdersS)} s, then the history), the index caught up after ${round(out.indexedS)} s; /health p50 ${round(out.health.p50, 1)} ms, p99 ${round(out.health.p99, 1)} ms, max ${round(out.health.max, 1)} ms; bare server p99 ${round(out.health.floor.p99, 1)} ms; CPU s ${cpuText(out.cpuSeconds)}`);
  return out;
}

export async function run(argv) {
  const { values } = parseArgs({
    args: argv,
    options: {
      sizes: { type: 'string', default: '10000,100000,1000000' },
      iterations: { type: 'string', default: '300' },
      batch: { type: 'string', default: '1000' },
      'in-flight': { type: 'string', default: '2' },
      profile: { type: 'string' },
      // The results a run saved (it prints the file's name before its report): the report again, without the run.
      report: { type: 'string' },
    },
  });
  if (values.report) {
    const saved = JSON.parse(readFileSync(values.report, 'utf8'), (_, v) => (v && typeof v === 'object' && Array.isArray(v.mapEntries) ? new Map(v.mapEntries) : v));
    return report(saved.results, saved.opts, new Date(saved.started), []);
  }
  const opts = { sizes: values.sizes.split(',').map(Number).sort((a, b) => a - b), iterations: Number(values.iterations), batch: Number(values.batch), inFlight: Number(values['in-flight']), profile: values.profile && path.resolve(values.profile) };
  const started = new Date();
  console.log(`scale benchmark: ${opts.sizes.join(', ')} datasets\n${machine()}`);
  const dataDir = tempDataDir('scale');
  const env = { DATA_DIR: dataDir, RATE_LIMIT_PER_MINUTE: '100000000' };
  const load = loadSampler();
  const nodeArgs = opts.profile ? ['--cpu-prof', '--cpu-prof-interval=1000', `--cpu-prof-dir=${opts.profile}`] : [];
  // performance.now() on the monotonic clock of V8's profiles, in microseconds.
  const clockOffsetUs = monotonicUs() - performance.now() * 1000;
  const ctx = { dataDir, env, nodeArgs, clockOffsetUs, windows: [], databaseUrl: embeddedDatabaseUrl(dataDir) };
  const results = { sizes: [] };
  try {
    ctx.server = await startAsUser(env, { nodeArgs });
    ctx.token = readFileSync(path.join(dataDir, 'root-token'), 'utf8').trim();
    ctx.masterKey = readFileSync(path.join(dataDir, 'meili', 'master-key'), 'utf8').trim();
    ctx.api = await serverApi(ctx.server, ctx.token);
    for (const [qn, type] of PROPS) {
      await ctx.api.post(`/openapi/v3/entity/structuredProperty/${encodeURIComponent(propertyUrn(qn))}/propertyDefinition?createIfNotExists=false`, {
        value: { qualifiedName: qn, valueType: `urn:li:dataType:svc.${type}`, entityTypes: ['urn:li:entityType:svc.dataset'], cardinality: 'SINGLE' },
      });
    }
    load.phase();
    let from = 0;
    for (const size of opts.sizes) {
      results.sizes.push(await atSize(ctx, size, from, opts, load));
      from = size;
    }
    console.log('\n== restart until healthy');
    load.phase();
    results.restartMs = await restart(ctx);
    results.restartLoad = load.phase();
    console.log(`restart: healthy after ${round(results.restartMs)} ms`);
    console.log(`\n== hard delete of ${PROPS[2][0]}, held by every dataset`);
    results.hardDelete = await hardDelete(ctx, propertyUrn(PROPS[2][0]));
    results.hardDeleteLoad = load.phase();
  } finally {
    load.stop();
    await ctx.server?.stop();
    rmSync(path.dirname(dataDir), { recursive: true, force: true });
  }
  const fs = statfsSync(path.dirname(path.dirname(dataDir)));
  results.machine = { memBytes: Number(/MemTotal:\s+(\d+)/.exec(readFileSync('/proc/meminfo', 'utf8'))[1]) * 1024, diskFreeBytes: fs.bavail * fs.bsize, diskBytes: fs.blocks * fs.bsize };
  // Kept before the report, so that a report that fails does not lose an hour's run (--report redoes it).
  const saved = path.join(tmpdir(), `propgraph-scale-${started.toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(saved, JSON.stringify({ results, opts, started }, (_, v) => (v instanceof Map ? { mapEntries: [...v] } : v)));
  console.log(`results saved: ${saved}`);
  report(results, opts, started, ctx.windows);
}

function report(results, opts, started, windows) {
  results.limits = machineLimits(results);
  const chartPath = path.join(ROOT, 'docs', 'benchmarks-scale.svg');
  writeFileSync(chartPath, scaleChart(results.sizes));
  const body = scaleReport(results, opts, started) + (opts.profile ? profileSection(opts.profile, windows) : '');
  console.log(body);
  writeSection('Scale: a million datasets on the embedded default', body);
}
