// The write part of the outside-in benchmark: REST value writes from concurrent clients,
// waiting for the index and not, beside Prisma writing the same rows on the same
// database, and what Meilisearch did meanwhile.
import path from 'node:path';
import pg from 'pg';
import { PrismaPg } from '@prisma/adapter-pg';
import { datasetUrn, valuesFor } from './outsideData.mjs';
import { aspectWriteStatements, load, median, rawRequest, ROOT, round } from './support.mjs';
import { cpuBetween, cpuOfTree } from './outsideServer.mjs';
import { engineAlone } from './outsideEngine.mjs';

/** Microseconds on the monotonic clock V8's CPU profiles use. */
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

/**
 * Prisma on the server's own database writing the rows one REST value write produces.
 * Each history row takes its entity's next version, as the service's write does
 * (`prepare` reads them before a round, untimed).
 */
async function prismaBaseline(databaseUrl) {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 20 });
  const { PrismaClient } = await import(path.join(ROOT, 'dist/store/generated/prisma/client.js'));
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
  const nextVersion = new Map();
  const prepare = async (n) => {
    const urns = Array.from({ length: n }, (_, i) => datasetUrn(i));
    const { rows } = await pool.query(`SELECT urn, max(version)::text AS v FROM aspect WHERE aspect = 'structuredProperties' AND urn = ANY($1::text[]) GROUP BY urn`, [urns]);
    nextVersion.clear();
    for (const r of rows) nextVersion.set(r.urn, BigInt(r.v) + 1n);
  };
  const write = (i, n) => {
    const urn = datasetUrn(i % n);
    const metadata = valuesFor(i);
    const version = nextVersion.get(urn) ?? 1n;
    nextVersion.set(urn, version + 1n);
    return prisma.$transaction([
      ...aspectWriteStatements(prisma, { urn, metadata, version }),
      ...metadata.properties.map((p) =>
        prisma.propertyValue.update({ where: { entityUrn_propertyUrn: { entityUrn: urn, propertyUrn: p.propertyUrn } }, data: { values: p.values } }),
      ),
    ], { maxWait: 60_000, timeout: 120_000 });
  };
  return { prepare, write, close: async () => { await prisma.$disconnect(); await pool.end(); } };
}

/** REST value writes from `opts.concurrency` clients, waiting for the index and not, beside Prisma writing the same rows. */
export async function writeFigures(api, opts, databaseUrl, db, meili, serverPid) {
  const out = {};
  // CPU time per write of the server, PostgreSQL and Meilisearch, each round (from /proc).
  const cpu = { rest: [], restAsync: [] };
  const statements = opts.pgStatements ? await statementStats(databaseUrl) : null;
  const timedCpu = async (kind, work) => {
    await statements?.reset();
    const before = cpuOfTree(serverPid);
    const result = await work();
    cpu[kind].push(new Map([...cpuBetween(before, cpuOfTree(serverPid))].map(([name, ms]) => [name, ms / opts.writes])));
    if (statements) (out.statements ??= {})[kind] = { top: await statements.top(opts.writes), waits: statements.waits() };
    return result;
  };
  const indexTasks = [];
  // When each round ran, for cutting a CPU profile of the server to it.
  const windows = { rest: [], restAsync: [] };
  console.log(`== ${db}: value writes, ${opts.concurrency} clients`);
  const baseline = await prismaBaseline(databaseUrl);
  // Every round writes values its entities do not hold yet (`salt`): a write of the values
  // already stored changes nothing and the service answers it without writing. Until
  // 2026-11-28 every round wrote the same values, so the round at commit, which followed
  // the index-waiting round, timed such no-op writes (BENCHMARKS.md says which figures).
  const writeOnce = (query, salt) => (i) => api.post(`/openapi/v3/entity/dataset/${encodeURIComponent(datasetUrn(i % opts.n))}/structuredProperties?createIfNotExists=false${query}`, { value: valuesFor(i + salt) });
  await load(500, opts.concurrency, writeOnce('', 7));
  await baseline.prepare(opts.n);
  await load(500, opts.concurrency, (i) => baseline.write(i, opts.n));
  const rounds = { rest: [], restAsync: [], prisma: [] };
  for (let r = 0; r < opts.rounds; r++) {
    const since = new Date().toISOString();
    let t = monotonicUs();
    rounds.rest.push(await timedCpu('rest', () => load(opts.writes, opts.concurrency, writeOnce('', 2 * r + 11))));
    windows.rest.push([t, monotonicUs()]);
    indexTasks.push(await meiliTasks(meili, since, new Date().toISOString()));
    t = monotonicUs();
    rounds.restAsync.push(await timedCpu('restAsync', () => load(opts.writes, opts.concurrency, writeOnce('&async=true', 2 * r + 12))));
    windows.restAsync.push([t, monotonicUs()]);
    await baseline.prepare(opts.n);
    rounds.prisma.push(await load(opts.writes, opts.concurrency, (i) => baseline.write(i + r, opts.n)));
    console.log(`round ${r + 1}: REST ${round(rounds.rest[r].opsPerSecond)}/s p99 ${round(rounds.rest[r].p99)} ms; REST async ${round(rounds.restAsync[r].opsPerSecond)}/s p99 ${round(rounds.restAsync[r].p99)} ms; Prisma same rows ${round(rounds.prisma[r].opsPerSecond)}/s p99 ${round(rounds.prisma[r].p99)} ms`);
  }
  await baseline.close();
  await statements?.close();
  for (const [kind, { top, waits }] of Object.entries(out.statements ?? {})) {
    const mode = kind === 'rest' ? 'waiting for the index' : 'at commit';
    console.log(`PostgreSQL's statements, last round ${mode} (pg_stat_statements; ms per write: execution, planning; calls per write; buffers per call; statement):`);
    for (const r of top) console.log(`  ${round(r.execMs, 3)} ${round(r.planMs, 3)} ${round(r.calls, 2)} ${round(r.blks, 1)} ${r.query}`);
    console.log(`PostgreSQL's active client backends, last round ${mode}, on average, by what they waited on: ${waits.join(', ')}`);
  }
  const med = (xs, k) => median(xs.map((x) => x[k]));
  // Median over the rounds of each process's CPU ms per write.
  const cpuPerWrite = Object.fromEntries(Object.entries(cpu).map(([kind, rs]) => [kind, new Map([...new Set(rs.flatMap((m) => [...m.keys()]))].map((name) => [name, median(rs.map((m) => m.get(name) ?? 0))]))]));
  for (const [kind, m] of Object.entries(cpuPerWrite)) console.log(`CPU per write (${kind === 'rest' ? 'waiting for the index' : 'at commit'}), medians: ${[...m].map(([name, ms]) => `${name} ${round(ms, 3)} ms`).join(', ')}`);
  console.log(`== ${db}: the engine alone, ${opts.concurrency} clients each adding a document and waiting for its task`);
  const engine = await engineAlone(meili, opts);
  out.writes = Object.fromEntries(Object.entries(rounds).map(([k, xs]) => [k, { opsPerSecond: med(xs, 'opsPerSecond'), p50: med(xs, 'p50'), p99: med(xs, 'p99') }]));
  out.writes.windows = windows;
  out.writes.cpu = cpuPerWrite;
  out.writes.engine = engine;
  out.writes.indexTasks = { perSecond: med(indexTasks, 'perSecond'), documents: med(indexTasks, 'documents'), queuedMs: med(indexTasks, 'queuedMs'), runMs: med(indexTasks, 'runMs') };
  const t = out.writes.indexTasks;
  console.log(`Meilisearch during the index-waiting rounds: ${round(t.perSecond, 1)} document tasks/s, ${round(t.documents, 1)} documents each, queued ${round(t.queuedMs)} ms, applied in ${round(t.runMs)} ms (medians)`);
  return out;
}

/**
 * The engine's side of the writes that wait for the index: the document tasks
 * Meilisearch ran between `since` and `until`, how many per second, how many documents
 * each carried, how long each waited in its queue and how long applying it took.
 */
async function meiliTasks(meili, since, until) {
  const tasks = [];
  let from;
  for (;;) {
    const query = `types=documentAdditionOrUpdate&afterEnqueuedAt=${encodeURIComponent(since)}&beforeEnqueuedAt=${encodeURIComponent(until)}&limit=1000${from === undefined ? '' : `&from=${from}`}`;
    const page = (await rawRequest(`${meili.url}/tasks?${query}`, 'GET', undefined, { authorization: `Bearer ${meili.key}` })).json;
    tasks.push(...page.results.filter((t) => t.status === 'succeeded'));
    if (page.next === null || page.next === undefined) break;
    from = page.next;
  }
  const ms = (a, b) => new Date(b).getTime() - new Date(a).getTime();
  return {
    perSecond: tasks.length / (ms(since, until) / 1000),
    documents: median(tasks.map((t) => t.details?.receivedDocuments ?? 0)),
    queuedMs: median(tasks.map((t) => ms(t.enqueuedAt, t.startedAt))),
    runMs: median(tasks.map((t) => ms(t.startedAt, t.finishedAt))),
  };
}

/**
 * pg_stat_statements on the server's database (enabled by `--pg-statements` before the
 * server started): reset before a round, read after it, heaviest first, per write.
 */
async function statementStats(databaseUrl) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  const sampler = new pg.Client({ connectionString: databaseUrl });
  await sampler.connect();
  const waits = new Map();
  let samples = 0;
  let sampling = false;
  return {
    reset: async () => {
      await client.query('SELECT pg_stat_statements_reset()');
      waits.clear();
      sampling = true;
      void (async () => {
        // What the active backends wait on, sampled back to back over the round (pg_stat_activity).
        while (sampling) {
          const { rows } = await sampler.query(`SELECT coalesce(wait_event_type || ':' || wait_event, 'on CPU') AS w, count(*)::int AS n
            FROM pg_stat_activity WHERE state = 'active' AND backend_type = 'client backend' AND pid <> pg_backend_pid() GROUP BY 1`);
          samples++;
          for (const r of rows) waits.set(r.w, (waits.get(r.w) ?? 0) + r.n);
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      })();
    },
    waits: () => {
      sampling = false;
      const out = [...waits].sort((a, b) => b[1] - a[1]).map(([w, n]) => `${w} ${round(n / samples, 2)}`);
      samples = 0;
      return out;
    },
    top: async (writes) =>
      (await client.query(`SELECT query, calls, total_exec_time, total_plan_time, shared_blks_hit + shared_blks_read AS blks FROM pg_stat_statements
        WHERE query NOT LIKE '%pg_stat_statements%' ORDER BY total_exec_time + total_plan_time DESC LIMIT 12`)).rows.map((r) => ({
        query: r.query.replace(/\s+/g, ' ').slice(0, 110),
        calls: Number(r.calls) / writes,
        execMs: r.total_exec_time / writes,
        planMs: r.total_plan_time / writes,
        blks: Number(r.blks) / Math.max(1, Number(r.calls)),
      })),
    close: async () => {
      sampling = false;
      await client.end();
      await sampler.end();
    },
  };
}
