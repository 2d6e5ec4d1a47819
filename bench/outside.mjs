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
// health|search|writes|attack (start-up, bulk load and that part only, then the memory;
// attack: /health while four clients send issue #29's worst requests for --seconds (30),
// written to the section "Under attack" of BENCHMARKS.md),
// --clients history,jobs,tests,backup,delete (with --only attack46: only those of issue #46's
// clients, 'delete' the admin's hard delete; printed, not written: a breakdown of which holds the loop),
// --pg-statements (the embedded PostgreSQL with pg_stat_statements: its time per statement in the writes),
// --group-commit both (with --only writes: the writes twice in one run, the server with
// WRITE_GROUP_COMMIT=false and then as shipped, written to the section "Group commit"),
// --node-args "<flags>" (V8 or Node flags for the server, to try them: the start-up
// timing still runs the server as `npm start` does). Writes the section "Where users
// stand" of BENCHMARKS.md (not with --profile or --only).
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { machine, request, round, testServers, writeSection } from './support.mjs';
import { datasetUrn, PROPS, propertyUrn } from './outsideData.mjs';
import { bulkLoad, countSearchable, embeddedDatabaseUrl, healthDuring, memoryOfTree, printMemory, sleep, startAsUser, startFlags, tempDataDir, timeStartup } from './outsideServer.mjs';
import { profileArgsFor, profileReport, profilesIn } from './outsideProfile.mjs';
import { ATTACK46_CLIENTS, attacks, attacks46, peakRss, queueLargeBulkEdits, runAttacks } from './outsideAttack.mjs';
import { searchFigures, startBareProxy } from './outsideSearch.mjs';
import { writeFigures } from './outsideWrites.mjs';

/** Loads pg_stat_statements into the embedded cluster from its next start on (ALTER SYSTEM, as its superuser). */
async function enableStatementStats(db, databaseUrl) {
  if (db !== 'embedded') throw new Error('--pg-statements: the embedded PostgreSQL only (an external one is configured by its operator)');
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query("ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'");
  await client.query("ALTER SYSTEM SET pg_stat_statements.track = 'all'");
  await client.end();
}

async function scenario(db, opts, externalPg) {
  const dataDir = tempDataDir(db);
  const env = { DATA_DIR: dataDir, RATE_LIMIT_PER_MINUTE: '100000000', ...opts.serverEnv };
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
    databaseUrl = embeddedDatabaseUrl(dataDir);
  }
  const out = { db };
  console.log(`\n== ${db} PostgreSQL: start-up`);
  out.startup = await timeStartup(env);
  console.log(`npm start to healthy: first start ${round(out.startup.firstMs)} ms, again ${round(out.startup.warmMs)} ms`);

  const serverArgs = { nodeArgs: [...opts.nodeArgs, ...(opts.profile ? ['--cpu-prof', '--cpu-prof-interval=100', `--cpu-prof-dir=${opts.profile}`] : [])] };
  let server = await startAsUser(env, serverArgs);
  if (opts.pgStatements) {
    // PostgreSQL's own account of its time, per statement (pg_stat_statements), for the writes: loaded at its next start.
    await enableStatementStats(db, databaseUrl);
    await server.stop();
    server = await startAsUser(env, serverArgs);
  }
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
    await bulkLoad(api, { to: opts.n, prefix: 'bench' });
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
        out.health = await healthDuring(api, () => bulkLoad(api, { to: 10_000, prefix: 'health', query: '' }), { url: `${floor.url}/?route=0`, token });
      } finally {
        await floor.stop();
      }
      const f = out.health.floor;
      console.log(`batch took ${round(out.health.workMs)} ms; /health p50 ${round(out.health.p50, 2)} ms, p99 ${round(out.health.p99, 2)} ms, max ${round(out.health.max, 2)} ms (${out.health.samples} samples); a bare Node server meanwhile p50 ${round(f.p50, 2)} ms, p99 ${round(f.p99, 2)} ms, max ${round(f.max, 2)} ms`);
    }
    if (part('attack')) {
      console.log(`== ${db}: /health while four clients send issue #29's worst requests for ${opts.seconds} s`);
      const floor = await startBareProxy({ meiliUrl: meili.url, masterKey: meili.key, token, routes: [{ requests: [] }] });
      let clients;
      const loadBefore = loadavg()[0];
      try {
        out.attack = await healthDuring(api, async () => {
          clients = await runAttacks(attacks(server.url, token, opts.n), opts.seconds);
        }, { url: `${floor.url}/?route=0`, token }, true);
      } finally {
        await floor.stop();
      }
      out.attack.clients = clients;
      // What else the machine was running meanwhile: its 1-minute load average before and after.
      out.attack.load = [loadBefore, loadavg()[0]];
      const f = out.attack.floor;
      for (const c of clients) console.log(`${c.name}: ${c.requests} requests (${Object.entries(c.statuses).map(([s, k]) => `${k} x ${s}`).join(', ')}), ${round(c.bytes / 1e6)} MB answered`);
      console.log(`/health p50 ${round(out.attack.p50, 2)} ms, p99 ${round(out.attack.p99, 2)} ms, max ${round(out.attack.max, 2)} ms (${out.attack.samples} samples); /health/live p50 ${round(out.attack.live.p50, 2)} ms, p99 ${round(out.attack.live.p99, 2)} ms; a bare Node server meanwhile p50 ${round(f.p50, 2)} ms, p99 ${round(f.p99, 2)} ms, max ${round(f.max, 2)} ms`);
    }
    if (part('attack46')) Object.assign(out, { attack46: await attack46(api, server, token, meili, opts, db) });
    if (part('search')) {
      console.log(`== ${db}: searches`);
      out.search = await searchFigures({ server, dataDir, databaseUrl, iterations: opts.iterations, token, profileArgs: profileArgsFor(opts, db) });
    }
    if (part('writes')) Object.assign(out, await writeFigures(api, opts, databaseUrl, db, meili, server.child.pid));

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
      const job = jobs.find((j) => j.kind === 'cleanup-property-values' && j.propertyUrn === propertyUrn(PROPS[2][0]));
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

/** The node process's peak RSS this phase must stay under, in MB (issue #46: a jobs listing took it from 720 to 2,537 MB). */
const RSS_BOUND_MB = 600;

/**
 * Issue #46's attacks (bench/outsideAttack.mjs attacks46) for --seconds, /health sampled
 * beside a bare server, the node process's RSS sampled, and an admin's hard delete made
 * five seconds in, timed until its cleanup is done.
 */
async function attack46(api, server, token, meili, opts, db) {
  console.log(`== ${db}: /health while four clients send issue #46's requests for ${opts.seconds} s`);
  const tokenOf = async (name, scope) => (await api.post('/openapi/v3/tokens', { name, scope })).accessToken;
  const tokens = { admin: token, read: await tokenOf(`attack-read-${db}`, 'read'), write: await tokenOf(`attack-write-${db}`, 'write') };
  // A property no dataset may hold: every entity of the bulk edits is refused at once, so they cost their inputs, not writes.
  await api.post(`/openapi/v3/entity/structuredProperty/${encodeURIComponent(propertyUrn('io.bench.fieldnotes'))}/propertyDefinition`, {
    value: { qualifiedName: 'io.bench.fieldnotes', valueType: 'urn:li:dataType:svc.string', entityTypes: ['urn:li:entityType:svc.schemaField'], cardinality: 'MULTIPLE' },
  });
  const queued = await queueLargeBulkEdits(server.url, token, 'io.bench.fieldnotes', (i) => datasetUrn(i));
  await api.post(`/openapi/v3/entity/test/${encodeURIComponent('urn:li:test:attack-described')}/testInfo?createIfNotExists=false`, {
    value: { name: 'described', category: 'Benchmark', definition: { type: 'JSON', json: JSON.stringify({ on: { types: ['dataset'] }, rules: [{ property: 'urn', operator: 'exists' }] }) } },
  });
  const floor = await startBareProxy({ meiliUrl: meili.url, masterKey: meili.key, token, routes: [{ requests: [] }] });
  let clients;
  let cleanup;
  const loadBefore = loadavg()[0];
  let measured;
  try {
    measured = await peakRss(server.child.pid, () =>
      healthDuring(api, async () => {
        const deleting = (async () => {
          // With --clients, the admin's hard delete runs only when named ('delete').
          if (opts.clients && !opts.clients.includes('delete')) return;
          await sleep(5000);
          const t = performance.now();
          await api.del(`/openapi/v3/entity/structuredProperty/${encodeURIComponent(propertyUrn(PROPS[0][0]))}`);
          for (;;) {
            const { jobs } = await api.get(`/openapi/v3/jobs?count=50&status=done`);
            if (jobs.some((j) => j.kind === 'cleanup-property-values' && j.propertyUrn === propertyUrn(PROPS[0][0]))) break;
            await sleep(100);
          }
          cleanup = (performance.now() - t) / 1000;
        })();
        const all = attacks46(server.url, tokens, propertyUrn(PROPS[1][0]));
        // --clients history,jobs,tests,backup: only those (one alone shows which holds the event loop).
        const chosen = opts.clients ? all.filter((a) => opts.clients.includes(a.key)) : all;
        clients = await runAttacks(chosen, opts.seconds);
        await deleting;
      }, { url: `${floor.url}/?route=0`, token }, true),
    );
  } finally {
    await floor.stop();
  }
  const out = { ...measured.result, peakRssMb: measured.peakMb, clients, cleanupS: cleanup, queued, load: [loadBefore, loadavg()[0]] };
  for (const c of clients) console.log(`${c.name}: ${c.requests} requests (${Object.entries(c.statuses).map(([s, k]) => `${k} x ${s}`).join(', ')}), ${round(c.bytes / 1e6)} MB answered`);
  console.log(`/health p50 ${round(out.p50, 2)} ms, p99 ${round(out.p99, 2)} ms, max ${round(out.max, 2)} ms (${out.samples} samples); bare server p99 ${round(out.floor.p99, 2)} ms; node peak RSS ${round(out.peakRssMb)} MB; a hard delete's cleanup done ${round(cleanup, 1)} s after the DELETE`);
  return out;
}

function attack46Report(results, opts) {
  const rows = [];
  for (const r of results) {
    const a = r.attack46;
    rows.push(`| **${r.db} PostgreSQL**: \`/health\` (with the token) while the four clients below run (load average ${round(a.load[0], 1)} before, ${round(a.load[1], 1)} after, on ${cpus().length} cores) | p50 ${round(a.p50, 1)} ms, p99 ${round(a.p99, 1)} ms, max ${round(a.max, 1)} ms (${a.samples} samples); floor, a bare Node server asked at the same moments: p50 ${round(a.floor.p50, 1)} ms, p99 ${round(a.floor.p99, 1)} ms, max ${round(a.floor.max, 1)} ms | p99 < 100 ms | ${met(a.p99 < 100)} |`);
    rows.push(`| \`/health/live\` at the same moments | p50 ${round(a.live.p50, 1)} ms, p99 ${round(a.live.p99, 1)} ms, max ${round(a.live.max, 1)} ms | | |`);
    rows.push(`| node process's peak RSS (sampled every 200 ms) | ${round(a.peakRssMb)} MB | ≤ ${RSS_BOUND_MB} MB | ${met(a.peakRssMb <= RSS_BOUND_MB)} |`);
    rows.push(`| an admin's hard delete 5 s in (a property held by ${opts.n} datasets): DELETE until its cleanup is done | ${round(a.cleanupS, 1)} s | | |`);
    rows.push(`| ten bulk edits as large as a job may keep, queued first (52 values of 10,000 characters, 9,000 URNs each) | answered ${a.queued.join(', ')} | | |`);
    for (const c of a.clients) rows.push(`| ${c.name} | ${c.requests} requests in ${opts.seconds} s (${Object.entries(c.statuses).map(([s, k]) => `${k} x ${s}`).join(', ')}), ${round(c.bytes / 1e6, 1)} MB answered | | |`);
  }
  return `
Command: \`npm run bench -- outside --n ${opts.n} --db ${opts.db} --only attack46 --seconds ${opts.seconds}\`
Machine: ${machine()}. Server: \`node ${startFlags().join(' ')} dist/main.js\` (as \`npm start\` runs it), authentication on, \`RATE_LIMIT_PER_MINUTE=100000000\`, everything else default; ${opts.n} datasets loaded first, one metadata test over every dataset. Four clients in the benchmark's process each send one of issue #46's requests in a closed loop for ${opts.seconds} s (bench/outsideAttack.mjs \`attacks46\`): ten aliases of \`valueHistory(count: 1000)\` of a property every dataset holds (item 2); the jobs listing after ten bulk edits as large as a job may keep (item 3); \`POST /openapi/v3/tests/run\`, the same run and a new query in turn (item 6); a backup read for 64 KB and closed (item 7). Five seconds in, the admin hard-deletes a property every dataset holds. \`/health\` and a bare Node server are asked back to back at the same moments, as in the table above; the node process's resident set is sampled every 200 ms.

| Figure | Measured | Target | |
|---|---|---|---|
${rows.join('\n')}
`;
}

function attackReport(results, opts) {
  const rows = [];
  for (const r of results) {
    const a = r.attack;
    rows.push(`| **${r.db} PostgreSQL**: \`/health\` (with the token: every component) while the four clients below run (load average ${round(a.load[0], 1)} before, ${round(a.load[1], 1)} after, on ${cpus().length} cores) | p50 ${round(a.p50, 1)} ms, p99 ${round(a.p99, 1)} ms, max ${round(a.max, 1)} ms (${a.samples} samples); floor, a bare Node server asked at the same moments: p50 ${round(a.floor.p50, 1)} ms, p99 ${round(a.floor.p99, 1)} ms, max ${round(a.floor.max, 1)} ms | p99 < 100 ms | ${met(a.p99 < 100)} |`);
    rows.push(`| \`/health/live\` asked at the same moments (it checks nothing: the event loop's own delay) | p50 ${round(a.live.p50, 1)} ms, p99 ${round(a.live.p99, 1)} ms, max ${round(a.live.max, 1)} ms | | |`);
    for (const c of a.clients) rows.push(`| ${c.name} | ${c.requests} requests in ${opts.seconds} s (${Object.entries(c.statuses).map(([s, k]) => `${k} x ${s}`).join(', ')}), ${round(c.bytes / 1e6, 1)} MB answered | | |`);
  }
  return `
Command: \`npm run bench -- outside --n ${opts.n} --db ${opts.db} --only attack --seconds ${opts.seconds}\`
Machine: ${machine()}. Server: \`node ${startFlags().join(' ')} dist/main.js\` (as \`npm start\` runs it), authentication on, \`RATE_LIMIT_PER_MINUTE=100000000\`, everything else default (so \`AUTH_FAILURES_PER_MINUTE=600\`, \`RESPONSE_WRITE_TIMEOUT_MS=30000\`); ${opts.n} datasets loaded first. Four clients in the benchmark's process each send one of issue #29's worst requests at the limits in a closed loop for ${opts.seconds} s: a write trace of 1,000 entities x 10 aspects with every status (onlyIncludeErrors=false), \`_entities\` with 1,000 representations of \`Query\`, ten aliases of \`scrollAcrossEntities(count: 1000)\` (10,000 hits, the results budget), and a new bad token on every request (all from 127.0.0.1). Meanwhile \`/health\` is asked back to back (10 ms apart) with the admin token, and so is a bare Node server in its own process, at the same moments: its tail is what the machine's load alone does to any answer.

| Figure | Measured | Target | |
|---|---|---|---|
${rows.join('\n')}
`;
}
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
      if (q.gateway) {
        rows.push(`| ${q.label}, p50 | ${round(q.service.p50, 2)} ms vs ${round(q.direct.p50, 2)} ms direct (+${round(q.service.p50 - q.direct.p50, 2)} ms), raw ${round(q.raw.p50, 2)} ms; p99 ${round(q.service.p99, 2)} vs ${round(q.direct.p99, 2)} direct; ${q.subgraphRequests} subgraph request(s) per request | reported | |`);
        continue;
      }
      const overFloor = q.service.p50 - q.bare.p50;
      rows.push(`| ${q.label}, p50 | ${round(q.service.p50, 2)} ms vs ${round(q.raw.p50, 2)} ms raw (+${round(q.service.p50 - q.raw.p50, 2)} ms); p99 ${round(q.service.p99, 2)} vs ${round(q.raw.p99, 2)}; floor, a bare Node proxy${q.floorReadsPage ? ' (the engine request, then the same page read)' : ''}: ${round(q.bare.p50, 2)} ms (+${round(q.bare.p50 - q.raw.p50, 2)}): the service ${overFloor >= 0 ? '+' : ''}${round(overFloor, 2)} ms above its floor | ${q.floorTarget === undefined ? 'reported' : `≤ floor + ${q.floorTarget} ms`} | ${q.floorTarget === undefined ? '' : met(overFloor <= q.floorTarget)} |`);
    }
    const cpu = (kind) => [...w.cpu[kind]].map(([name, ms]) => `${name} ${round(ms, 2)}`).join(', ');
    rows.push(`| REST v3 structuredProperties writes, ${opts.concurrency} clients, \`async=true\` (answer at commit) | ${round(w.restAsync.opsPerSecond)}/s, p50 ${round(w.restAsync.p50, 1)} ms, p99 ${round(w.restAsync.p99, 1)} ms | ≥ 1,000/s, p99 ≤ 50 ms | ${met(w.restAsync.opsPerSecond >= 1000 && w.restAsync.p99 <= 50)} |`);
    rows.push(`| the same, default (wait for the index) | ${round(w.rest.opsPerSecond)}/s, p50 ${round(w.rest.p50, 1)} ms, p99 ${round(w.rest.p99, 1)} ms | ≥ 500/s, p99 ≤ 100 ms | ${met(w.rest.opsPerSecond >= 500 && w.rest.p99 <= 100)} |`);
    rows.push(`| baseline: Prisma writing the same rows on the same database | ${round(w.prisma.opsPerSecond)}/s, p50 ${round(w.prisma.p50, 1)} ms, p99 ${round(w.prisma.p99, 1)} ms | | |`);
    rows.push(`| CPU per write (user + system, from /proc, medians of the rounds), at commit, ms | ${cpu('restAsync')} | | |`);
    rows.push(`| CPU per write, waiting for the index, ms | ${cpu('rest')} | | |`);
    rows.push(`| Meilisearch meanwhile (what a write waiting for the index waits on) | ${round(w.indexTasks.perSecond, 1)} document tasks/s of ${round(w.indexTasks.documents, 1)} documents each, applied in ${round(w.indexTasks.runMs)} ms, queued ${round(w.indexTasks.queuedMs)} ms (medians) | | |`);
    for (const e of w.engine) rows.push(`| the engine alone: ${opts.concurrency} clients each adding one document and waiting for its task, ${e.label} | ${round(e.opsPerSecond)}/s, p50 ${round(e.p50, 1)} ms, p99 ${round(e.p99, 1)} ms; ${e.tasksPerBatch} tasks per engine batch (median) | | |`);
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

/**
 * The writes with group commit off, then on (issue #44): the same load, the same client,
 * one run, each on a fresh server and database; the Prisma baseline beside each.
 */
async function groupCommitComparison(opts) {
  const dbs = opts.db === 'both' ? ['embedded', 'external'] : [opts.db];
  let externalPg;
  if (dbs.includes('external')) externalPg = await (await testServers()).startPostgres({ durable: true });
  const rows = [];
  try {
    for (const db of dbs) {
      const by = {};
      for (const [label, value] of [['off', 'false'], ['on', 'true']]) {
        console.log(`\n== ${db} PostgreSQL, WRITE_GROUP_COMMIT=${value}`);
        by[label] = (await scenario(db, { ...opts, serverEnv: { WRITE_GROUP_COMMIT: value } }, externalPg)).writes;
      }
      const cpu = (w, kind) => [...w.cpu[kind]].map(([name, ms]) => `${name} ${round(ms, 2)}`).join(', ');
      const total = (w, kind) => [...w.cpu[kind].values()].reduce((a, b) => a + b, 0);
      const figure = (w, kind) => `${round(w[kind].opsPerSecond)}/s, p50 ${round(w[kind].p50, 1)} ms, p99 ${round(w[kind].p99, 1)} ms; CPU ${round(total(w, kind), 2)} ms per write (${cpu(w, kind)})`;
      rows.push(`| **${db} PostgreSQL** | | | |`);
      rows.push(`| REST v3 value writes, ${opts.concurrency} clients, \`async=true\` (answer at commit) | ${figure(by.off, 'restAsync')} | ${figure(by.on, 'restAsync')} | ≥ 1,000/s, p99 ≤ 100 ms: ${met(by.on.restAsync.opsPerSecond >= 1000 && by.on.restAsync.p99 <= 100)} |`);
      rows.push(`| the same, waiting for the index (the default) | ${figure(by.off, 'rest')} | ${figure(by.on, 'rest')} | ≥ 600/s, p99 ≤ 150 ms: ${met(by.on.rest.opsPerSecond >= 600 && by.on.rest.p99 <= 150)} |`);
      const prisma = (w) => `${round(w.prisma.opsPerSecond)}/s, p50 ${round(w.prisma.p50, 1)} ms, p99 ${round(w.prisma.p99, 1)} ms`;
      rows.push(`| baseline: Prisma writing the same rows one transaction each, same run | ${prisma(by.off)} | ${prisma(by.on)} | |`);
      const tasks = (w) => `${round(w.indexTasks.perSecond, 1)} tasks/s of ${round(w.indexTasks.documents, 1)} documents`;
      rows.push(`| Meilisearch document tasks while writes wait for the index | ${tasks(by.off)} | ${tasks(by.on)} | |`);
    }
  } finally {
    await externalPg?.stop();
  }
  const body = `
Command: \`npm run bench -- outside --only writes --group-commit both --db ${opts.db} --n ${opts.n} --writes ${opts.writes} --rounds ${opts.rounds}\`
Machine: ${machine()}; its 1-minute load average at the end: ${round(loadavg()[0], 1)} (the machine is shared). Each side is a fresh server started as \`npm start\` starts it, with a token, over HTTP, ${opts.n} datasets loaded first; ${opts.rounds} rounds of ${opts.writes} writes of new values from ${opts.concurrency} clients; medians of the rounds. CPU is user + system of the server, PostgreSQL and Meilisearch from /proc, per write.

| Figure | \`WRITE_GROUP_COMMIT=false\` | as shipped (group commit) | Target (issue #44) |
|---|---|---|---|
${rows.join('\n')}
`;
  console.log(body);
  writeSection('Group commit: writes before and after', body);
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
      seconds: { type: 'string', default: '30' },
      'pg-statements': { type: 'boolean', default: false },
      'group-commit': { type: 'string' },
      clients: { type: 'string' },
    },
  });
  const opts = { n: Number(values.n), db: values.db, iterations: Number(values.iterations), writes: Number(values.writes), rounds: Number(values.rounds), concurrency: Number(values.concurrency), profile: values.profile && path.resolve(values.profile), only: values.only, nodeArgs: values['node-args'].split(' ').filter(Boolean), seconds: Number(values.seconds), pgStatements: values['pg-statements'], clients: values.clients?.split(',') };
  if (opts.only !== undefined && !['health', 'search', 'writes', 'attack', 'attack46'].includes(opts.only)) throw new Error(`--only: health, search, writes, attack or attack46, not "${opts.only}"`);
  const CLIENTS = [...ATTACK46_CLIENTS, 'delete'];
  if (opts.clients && (opts.only !== 'attack46' || opts.clients.some((c) => !CLIENTS.includes(c)))) throw new Error(`--clients goes with --only attack46 and names some of ${CLIENTS.join(', ')}, not "${values.clients}"`);
  if (values['group-commit'] !== undefined) {
    if (values['group-commit'] !== 'both' || opts.only !== 'writes') throw new Error('--group-commit both goes with --only writes');
    return groupCommitComparison(opts);
  }
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
        results.at(-1).gatewayProfiles = { apollo: profilesIn(path.join(opts.profile, `apollo-${db}`))[0], hive: profilesIn(path.join(opts.profile, `hive-${db}`))[0] };
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
  if (opts.only === 'attack') {
    const body = attackReport(results, opts);
    console.log(body);
    writeSection("Under attack: issue #29's worst requests", body);
  }
  if (opts.only === 'attack46') {
    const body = attack46Report(results, opts);
    console.log(body);
    // A run of some clients only (--clients) is a breakdown, printed above, not the section.
    if (!opts.clients) writeSection("Under attack: issue #46's history, jobs, test runs and backups", body);
  }
  if (opts.only !== undefined) return;
  const body = report(results, opts);
  console.log(body);
  writeSection(`Where users stand, ${opts.n.toLocaleString('en-US')} datasets`, body);
}
