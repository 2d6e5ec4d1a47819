// `npm run bench -- outside`: the service measured where its users stand (issue 12).
// The server is started as `npm start` starts it (node dist/main.js with the start
// script's flags, authentication on, its own PostgreSQL and Meilisearch under a fresh
// DATA_DIR), and again on an external PostgreSQL (durable, as shipped); every figure is
// taken over HTTP with the generated admin token, by this one client process, next to a
// raw baseline taken in the same run by the same client: the identical Meilisearch
// request sent straight to the engine, and Prisma writing the same rows on the same
// database.
//
// Options: --n <datasets> (20000), --db embedded|external|both (both), --iterations
// <timed searches per query> (300), --writes <writes per round> (5000), --rounds (3),
// --concurrency (32), --profile <dir> (a V8 CPU profile of the server, summarised per
// search path into the section "Where the time goes"; the load runs as usual), --only
// health|search|writes (start-up, bulk load and that part only, then the memory),
// --node-args "<flags>" (V8 or Node flags for the server, to try them: the start-up
// timing still runs the server as `npm start` does). Writes the section "Where users
// stand" of BENCHMARKS.md (not with --profile or --only).
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { machine, percentile, rawRequest, request, ROOT, round, testServers, writeSection } from './support.mjs';
import { entity, PROPS, propertyUrn } from './outsideData.mjs';
import { bareProfileArgs, profileReport, profilesIn } from './outsideProfile.mjs';
import { searchFigures, startBareProxy } from './outsideSearch.mjs';
import { writeFigures } from './outsideWrites.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A data directory the embedded PostgreSQL's user can reach under root. */
export function tempDataDir(tag) {
  const dir = mkdtempSync(path.join(tmpdir(), `propgraph-bench-${tag}-`));
  chmodSync(dir, 0o755);
  return path.join(dir, 'data');
}

/** The flags `npm start` gives node (package.json's start script), so the server measured runs as users run it. */
export function startFlags() {
  const script = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts.start;
  const flags = /\bnode((?: --\S+)*) dist\/main\.js/.exec(script);
  if (!flags) throw new Error(`package.json's start script does not run node dist/main.js: ${script}`);
  return flags[1].split(' ').filter(Boolean);
}

/** Starts the built server as `npm start` does (through npm when `viaNpm`), resolves once /health says ok. */
export async function startAsUser(env, { viaNpm = false, nodeArgs = [] } = {}) {
  const started = performance.now();
  const command = viaNpm ? ['npm', ['start', '--silent']] : [process.execPath, [...startFlags(), ...nodeArgs, path.join(ROOT, 'dist/main.js')]];
  const child = spawn(command[0], command[1], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME ?? tmpdir(), PORT: '0', LOG_FORMAT: 'json', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: viaNpm,
  });
  const lines = [];
  let buffer = '';
  child.stdout.on('data', (c) => {
    buffer += c;
    const parts = buffer.split('\n');
    buffer = parts.pop();
    for (const l of parts) {
      try {
        lines.push(JSON.parse(l));
      } catch {
        // npm's own lines
      }
    }
  });
  child.stderr.on('data', (c) => process.stderr.write(c));
  const exited = new Promise((r) => child.once('exit', r));
  for (;;) {
    const listening = lines.find((l) => l.msg === 'propgraph listening');
    if (listening) {
      const health = await request(`${listening.url}/health`, 'GET').catch(() => undefined);
      if (health?.status === 'ok') {
        const meili = lines.find((l) => l.msg === 'embedded Meilisearch started');
        return {
          child,
          url: listening.url,
          meiliUrl: meili?.url,
          readyMs: performance.now() - started,
          // npm start runs a shell and node under it: signal the whole group.
          stop: async () => {
            if (viaNpm) process.kill(-child.pid, 'SIGTERM');
            else child.kill('SIGTERM');
            await exited;
            // npm may exit before the server under it has shut down and released DATA_DIR.
            if (viaNpm) while (groupAlive(child.pid)) await sleep(20);
          },
        };
      }
    }
    if (child.exitCode !== null) throw new Error(`server exited (${child.exitCode}) before it was healthy`);
    await sleep(20);
  }
}

function groupAlive(pgid) {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Proportional and resident memory of a process and all its descendants, in MB, by command. */
export function memoryOfTree(rootPid) {
  const children = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // gone meanwhile
    }
  }
  const byName = new Map();
  const visit = (pid) => {
    try {
      const comm = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
      const name = comm === 'node' ? 'node (server)' : comm.startsWith('postgres') ? 'postgres (all processes)' : comm.startsWith('meili') ? 'meilisearch' : comm;
      const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
      const kb = (key) => Number(new RegExp(`^${key}:\\s+(\\d+)`, 'm').exec(rollup)?.[1] ?? 0);
      const m = byName.get(name) ?? { pss: 0, rss: 0, anon: 0, file: 0, shmem: 0, processes: 0 };
      m.pss += kb('Pss') / 1024;
      m.rss += kb('Rss') / 1024;
      // What the PSS is made of: the process's own memory, pages of mapped files (for
      // Meilisearch its LMDB index, page cache the kernel can take back), shared memory
      // (PostgreSQL's shared buffers).
      m.anon += kb('Pss_Anon') / 1024;
      m.file += kb('Pss_File') / 1024;
      m.shmem += kb('Pss_Shmem') / 1024;
      m.processes += 1;
      byName.set(name, m);
    } catch {
      // gone meanwhile
    }
    for (const c of children.get(pid) ?? []) visit(c);
  };
  visit(rootPid);
  return byName;
}

export function printMemory(memory) {
  for (const [name, m] of memory) console.log(`${name}: PSS ${round(m.pss)} MB (anonymous ${round(m.anon)}, mapped files ${round(m.file)}, shared memory ${round(m.shmem)}), RSS ${round(m.rss)} MB (${m.processes} processes)`);
}

async function timeStartup(env) {
  const dataDir = tempDataDir('start');
  try {
    const first = await startAsUser({ ...env, DATA_DIR: dataDir }, { viaNpm: true });
    await first.stop();
    const again = await startAsUser({ ...env, DATA_DIR: dataDir }, { viaNpm: true });
    await again.stop();
    return { firstMs: first.readyMs, warmMs: again.readyMs };
  } finally {
    rmSync(path.dirname(dataDir), { recursive: true, force: true });
  }
}

export async function bulkLoad(api, n, prefix, batch = 1000, inFlight = 2, query = '?async=true') {
  let next = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      for (;;) {
        const start = next;
        next += batch;
        if (start >= n) return;
        await api.post(`/openapi/v3/entity/dataset${query}`, Array.from({ length: Math.min(batch, n - start) }, (_, k) => entity(start + k, prefix)));
      }
    }),
  );
}

async function countSearchable(api) {
  const res = await api.post('/api/graphql', {
    query: `{ scrollAcrossEntities(input: {types: [DATASET], query: "*", count: 0, orFilters: [{and: [{field: "structuredProperties.${PROPS[0][0]}", condition: EXISTS}]}]}) { total } }`,
  });
  return res.data.scrollAcrossEntities.total;
}

/** /health latency sampled back to back while `work` runs. */
export async function healthDuring(api, work, floor) {
  let done = false;
  const sample = async (ask) => {
    const samples = [];
    while (!done) {
      const t = performance.now();
      await ask();
      samples.push(performance.now() - t);
      await sleep(10);
    }
    samples.sort((a, b) => a - b);
    return { samples: samples.length, p50: percentile(samples, 50), p99: percentile(samples, 99), max: samples.at(-1) };
  };
  // The floor: a bare Node server answering at once, asked the same way at the same time.
  // Its tail is what the machine's load alone does to any process's answer.
  const samplers = Promise.all([sample(() => api.get('/health')), sample(() => rawRequest(floor.url, 'GET', undefined, { authorization: `Bearer ${floor.token}` }))]);
  const t = performance.now();
  await work();
  const workMs = performance.now() - t;
  done = true;
  const [health, bare] = await samplers;
  return { workMs, ...health, floor: bare };
}

async function scenario(db, opts, externalPg) {
  const dataDir = tempDataDir(db);
  const env = { DATA_DIR: dataDir, RATE_LIMIT_PER_MINUTE: '100000000' };
  let databaseUrl;
  if (db === 'external') {
    const name = `bench_${Date.now()}`;
    const admin = new pg.Client({ connectionString: externalPg.url });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    databaseUrl = externalPg.url.replace(/\/postgres$/, `/${name}`);
    env.DATABASE_URL = databaseUrl;
    // A deployment names its admin token: the start-up runs below share this database,
    // and only the first of them would write a generated one into its DATA_DIR.
    env.ROOT_TOKEN = `bench-${randomBytes(16).toString('hex')}`;
  } else {
    databaseUrl = `postgresql://postgres@localhost/propgraph?host=${encodeURIComponent(path.join(dataDir, 'postgres'))}`;
  }
  const out = { db };
  console.log(`\n== ${db} PostgreSQL: start-up`);
  out.startup = await timeStartup(env);
  console.log(`npm start to healthy: first start ${round(out.startup.firstMs)} ms, again ${round(out.startup.warmMs)} ms`);

  const server = await startAsUser(env, { nodeArgs: [...opts.nodeArgs, ...(opts.profile ? ['--cpu-prof', '--cpu-prof-interval=100', `--cpu-prof-dir=${opts.profile}`] : [])] });
  const token = env.ROOT_TOKEN ?? readFileSync(path.join(dataDir, 'root-token'), 'utf8').trim();
  const meili = { url: server.meiliUrl, key: readFileSync(path.join(dataDir, 'meili', 'master-key'), 'utf8').trim() };
  const api = {
    get: (p) => request(server.url + p, 'GET', undefined, token),
    post: (p, body) => request(server.url + p, 'POST', body, token),
    del: (p) => request(server.url + p, 'DELETE', undefined, token),
  };
  try {
    for (const [qn, type] of PROPS) {
      await api.post(`/openapi/v3/entity/structuredProperty/${encodeURIComponent(propertyUrn(qn))}/propertyDefinition?createIfNotExists=false`, {
        value: { qualifiedName: qn, valueType: `urn:li:dataType:svc.${type}`, entityTypes: ['urn:li:entityType:svc.dataset'], cardinality: 'SINGLE' },
      });
    }
    console.log(`== ${db}: bulk load of ${opts.n} datasets over REST batches`);
    let t = performance.now();
    await bulkLoad(api, opts.n, 'bench');
    const writtenS = (performance.now() - t) / 1000;
    while ((await countSearchable(api)) < opts.n) await sleep(100);
    out.bulk = { n: opts.n, writtenS, searchableS: (performance.now() - t) / 1000 };
    console.log(`written in ${round(writtenS)} s, searchable after ${round(out.bulk.searchableS)} s`);

    const part = (name) => opts.only === undefined || opts.only === name;
    // 10,000 entities as batches at the limit (1,000), two in flight, waiting for the index as a default write does.
    if (part('health')) {
      console.log(`== ${db}: /health while 10,000 entities are written in batches of 1,000`);
      const floor = await startBareProxy({ meiliUrl: meili.url, masterKey: meili.key, token, routes: [{ requests: [] }] });
      try {
        out.health = await healthDuring(api, () => bulkLoad(api, 10_000, 'health', 1000, 2, ''), { url: `${floor.url}/?route=0`, token });
      } finally {
        await floor.stop();
      }
      const f = out.health.floor;
      console.log(`batch took ${round(out.health.workMs)} ms; /health p50 ${round(out.health.p50, 2)} ms, p99 ${round(out.health.p99, 2)} ms, max ${round(out.health.max, 2)} ms (${out.health.samples} samples); a bare Node server meanwhile p50 ${round(f.p50, 2)} ms, p99 ${round(f.p99, 2)} ms, max ${round(f.max, 2)} ms`);
    }
    if (part('search')) {
      console.log(`== ${db}: searches`);
      out.search = await searchFigures({ server, dataDir, databaseUrl, iterations: opts.iterations, token, bareNodeArgs: bareProfileArgs(opts, db) });
    }
    if (part('writes')) Object.assign(out, await writeFigures(api, opts, databaseUrl, db, meili));

    out.memory = memoryOfTree(server.child.pid);
    console.log(`== ${db}: memory after the load`);
    printMemory(out.memory);
    // Right after the load, V8's heap still holds the load's garbage: it gives it back
    // once the process has been quiet a while (its memory reducer, 10-30 s here).
    await sleep(IDLE_MS);
    out.memoryIdle = memoryOfTree(server.child.pid);
    console.log(`== ${db}: memory ${IDLE_MS / 1000} s later, nothing asked meanwhile`);
    printMemory(out.memoryIdle);
    if (opts.only !== undefined) return out;

    if (opts.profile) return out;
    console.log(`== ${db}: hard-delete cleanup`);
    t = performance.now();
    await api.del(`/openapi/v3/entity/structuredProperty/${encodeURIComponent(propertyUrn(PROPS[2][0]))}`);
    const deleteMs = performance.now() - t;
    for (;;) {
      const { jobs } = await api.get('/openapi/v3/jobs?count=20');
      const job = jobs.find((j) => j.kind === 'cleanup-property-values' && j.payload.propertyUrn === propertyUrn(PROPS[2][0]));
      if (job?.status === 'done') break;
      if (job?.status === 'failed') throw new Error(`cleanup failed: ${job.lastError}`);
      await sleep(100);
    }
    out.cleanup = { deleteMs, seconds: (performance.now() - t) / 1000 };
    console.log(`DELETE answered in ${round(deleteMs)} ms; cleanup done after ${round(out.cleanup.seconds)} s`);
  } finally {
    await server.stop();
    rmSync(path.dirname(dataDir), { recursive: true, force: true });
  }
  return out;
}

const met = (ok) => (ok ? 'met' : '**not met**');
/** How long the server is left alone before its memory is read a second time. */
const IDLE_MS = 30_000;

function report(results, opts) {
  const rows = [];
  for (const r of results) {
    const s = r.search;
    const treeOf = (memory) => [...memory.values()].reduce((a, m) => a + m.pss, 0);
    const nodeOf = (memory) => memory.get('node (server)')?.pss ?? NaN;
    const [tree, treeIdle, node, nodeIdle] = [treeOf(r.memory), treeOf(r.memoryIdle), nodeOf(r.memory), nodeOf(r.memoryIdle)];
    const metBoth = (now, idle, limit) => (opts.n >= 100000 ? `right after: ${met(now <= limit)}; ${IDLE_MS / 1000} s later: ${met(idle <= limit)}` : '(at 100,000)');
    const w = r.writes;
    rows.push(`| **${r.db} PostgreSQL** | | | |`);
    for (const q of s.rows) {
      rows.push(`| ${q.label}, p50 | ${round(q.service.p50, 2)} ms vs ${round(q.raw.p50, 2)} ms raw (+${round(q.service.p50 - q.raw.p50, 2)} ms); p99 ${round(q.service.p99, 2)} vs ${round(q.raw.p99, 2)}; floor, a bare Node proxy${q.floorReadsPage ? ' (the engine request, then the same page read)' : ''}: ${round(q.bare.p50, 2)} ms (+${round(q.bare.p50 - q.raw.p50, 2)}) | ${q.target === undefined ? 'reported' : `≤ raw + ${q.target} ms`} | ${q.target === undefined ? '' : met(q.service.p50 - q.raw.p50 <= q.target)} |`);
    }
    rows.push(`| REST v3 structuredProperties writes, ${opts.concurrency} clients (default: wait for the index) | ${round(w.rest.opsPerSecond)}/s, p50 ${round(w.rest.p50, 1)} ms, p99 ${round(w.rest.p99, 1)} ms | ≥ 1,000/s, p99 ≤ 50 ms | ${met(w.rest.opsPerSecond >= 1000 && w.rest.p99 <= 50)} |`);
    rows.push(`| Meilisearch meanwhile (what a write waiting for the index waits on) | ${round(w.indexTasks.perSecond, 1)} document tasks/s of ${round(w.indexTasks.documents, 1)} documents each, applied in ${round(w.indexTasks.runMs)} ms, queued ${round(w.indexTasks.queuedMs)} ms (medians) | | |`);
    rows.push(`| the same with \`async=true\` (return at commit) | ${round(w.restAsync.opsPerSecond)}/s, p50 ${round(w.restAsync.p50, 1)} ms, p99 ${round(w.restAsync.p99, 1)} ms | | |`);
    rows.push(`| baseline: Prisma writing the same rows on the same database | ${round(w.prisma.opsPerSecond)}/s, p50 ${round(w.prisma.p50, 1)} ms, p99 ${round(w.prisma.p99, 1)} ms | | |`);
    rows.push(`| \`/health\` while 10,000 entities are written (batches of 1,000, two in flight) (${round(r.health.workMs / 1000, 1)} s) | p50 ${round(r.health.p50, 1)} ms, p99 ${round(r.health.p99, 1)} ms, max ${round(r.health.max, 1)} ms; floor, a bare Node server asked meanwhile: p50 ${round(r.health.floor.p50, 1)} ms, p99 ${round(r.health.floor.p99, 1)} ms | p99 < 50 ms | ${met(r.health.p99 < 50)} |`);
    rows.push(`| Bulk load over REST batches until searchable | ${r.bulk.n} in ${round(r.bulk.searchableS, 1)} s (written in ${round(r.bulk.writtenS, 1)} s) | | |`);
    rows.push(`| Hard-delete cleanup of a property on ${r.bulk.n + 10000} datasets | DELETE in ${round(r.cleanup.deleteMs)} ms, values gone after ${round(r.cleanup.seconds, 1)} s | | |`);
    rows.push(`| Node process (PSS), right after the load / ${IDLE_MS / 1000} s later (nothing asked meanwhile) | ${round(node)} / ${round(nodeIdle)} MB | ≤ 250 MB at 100,000 | ${metBoth(node, nodeIdle, 250)} |`);
    rows.push(`| Whole tree (PSS: ${[...r.memory].map(([k, m]) => `${k} ${round(m.pss)}`).join(', ')}; ${IDLE_MS / 1000} s later: ${[...r.memoryIdle].map(([k, m]) => `${k} ${round(m.pss)}`).join(', ')}) | ${round(tree)} / ${round(treeIdle)} MB | ≤ 1 GB at 100,000 | ${metBoth(tree, treeIdle, 1024)} |`);
    const sum = (k) => [...r.memory.values()].reduce((a, m) => a + m[k], 0);
    rows.push(`| the tree's PSS by kind: anonymous (the processes' own memory) / mapped files (Meilisearch's LMDB index, binaries: page cache the kernel can reclaim) / shared memory (PostgreSQL's buffers) | ${round(sum('anon'))} / ${round(sum('file'))} / ${round(sum('shmem'))} MB; Meilisearch ${round(r.memory.get('meilisearch')?.anon ?? NaN)} / ${round(r.memory.get('meilisearch')?.file ?? NaN)} / ${round(r.memory.get('meilisearch')?.shmem ?? NaN)} | | |`);
    rows.push(`| \`npm start\` to healthy, installed checkout | first start (initdb) ${round(r.startup.firstMs / 1000, 2)} s, again ${round(r.startup.warmMs / 1000, 2)} s | < 5 s | ${met(r.startup.firstMs < 5000 && r.startup.warmMs < 5000)} |`);
  }
  return `
Command: \`npm run bench -- outside --n ${opts.n} --db ${opts.db} --iterations ${opts.iterations} --writes ${opts.writes} --rounds ${opts.rounds}${opts.nodeArgs.length ? ` --node-args "${opts.nodeArgs.join(' ')}"` : ''}\`
Machine: ${machine()}. Server: \`node ${startFlags().join(' ')} dist/main.js\` (the build and the flags \`npm start\` runs), authentication on (the generated admin token), \`RATE_LIMIT_PER_MINUTE=100000000\` (the load exceeds the default 60,000 per token and minute), everything else default: the bundled Meilisearch (256 MiB, 1 indexing thread) and ${opts.externalVersion ? `either the embedded PostgreSQL or an external PostgreSQL ${opts.externalVersion} (both ` : 'the embedded PostgreSQL ('}durable: fsync and synchronous_commit on). One client process (node:http, keep-alive) sends every request: to the service, and the same request straight to Meilisearch (its master key from DATA_DIR) or, for writes, Prisma writing the same rows (latest aspect, history row, entity version, change-log row, 3 value rows) in one transaction on the same database. Searches take turns, service, raw request and a bare Node proxy sending the same engine requests and, for the REST search, the same page read (the floor, \`bench/bareProxy.mjs\`), ${opts.iterations} timed of each after a warm-up. Memory is PSS (shared pages divided among the processes sharing them) summed over the server's process tree, read right after the load and again after the server has been left alone for ${IDLE_MS / 1000} s.

| Figure | Measured | Target | |
|---|---|---|---|
${rows.join('\n')}
`;
}

export async function run(argv) {
  const { values } = parseArgs({
    args: argv,
    options: {
      n: { type: 'string', default: '20000' },
      db: { type: 'string', default: 'both' },
      iterations: { type: 'string', default: '300' },
      writes: { type: 'string', default: '5000' },
      rounds: { type: 'string', default: '3' },
      concurrency: { type: 'string', default: '32' },
      profile: { type: 'string' },
      only: { type: 'string' },
      'node-args': { type: 'string', default: '' },
    },
  });
  const opts = { n: Number(values.n), db: values.db, iterations: Number(values.iterations), writes: Number(values.writes), rounds: Number(values.rounds), concurrency: Number(values.concurrency), profile: values.profile && path.resolve(values.profile), only: values.only, nodeArgs: values['node-args'].split(' ').filter(Boolean) };
  if (opts.only !== undefined && !['health', 'search', 'writes'].includes(opts.only)) throw new Error(`--only: health, search or writes, not "${opts.only}"`);
  const dbs = opts.db === 'both' ? ['embedded', 'external'] : [opts.db];
  console.log(`outside-in benchmark: ${opts.n} datasets\n${machine()}`);
  let externalPg;
  if (dbs.includes('external')) {
    externalPg = await (await testServers()).startPostgres({ durable: true });
    opts.externalVersion = execFileSync('sh', ['-c', `psql "${externalPg.url}" -tAc 'SHOW server_version' 2>/dev/null || echo '?'`], { encoding: 'utf8' }).trim();
  }
  const results = [];
  try {
    for (const db of dbs) {
      const before = opts.profile ? profilesIn(opts.profile) : [];
      results.push(await scenario(db, opts, externalPg));
      if (opts.profile) {
        results.at(-1).profile = profilesIn(opts.profile).find((f) => !before.includes(f));
        results.at(-1).bareProfile = profilesIn(path.join(opts.profile, `bare-${db}`))[0];
      }
    }
  } finally {
    await externalPg?.stop();
  }
  if (opts.profile) {
    const body = profileReport(results, opts);
    console.log(body);
    if (opts.only === undefined) writeSection(`Where the time goes, ${opts.n.toLocaleString('en-US')} datasets`, body);
    return;
  }
  if (opts.only !== undefined) return;
  const body = report(results, opts);
  console.log(body);
  writeSection(`Where users stand, ${opts.n.toLocaleString('en-US')} datasets`, body);
}
