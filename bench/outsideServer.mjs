// The server as `npm start` runs it, for the outside-in benchmarks (outside.mjs,
// scale.mjs): a data directory, start-up through npm or node with the start script's
// flags, the memory and CPU time of its process tree read from /proc, batches loaded
// over REST, and /health sampled beside a bare Node server while work runs.
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { percentile, rawRequest, request, ROOT, round, serverScript } from './support.mjs';
import { entity, PROPS } from './outsideData.mjs';

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

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

/**
 * Starts the built server as `npm start` does (through npm when `viaNpm`), resolves once
 * /health says ok. `script`: another start than serverScript's (bench/start.mjs runs tsc's
 * modules beside the bundle).
 */
export async function startAsUser(env, { viaNpm = false, nodeArgs = [], script = serverScript(nodeArgs) } = {}) {
  const started = performance.now();
  const command = viaNpm ? ['npm', ['start', '--silent']] : [process.execPath, [...startFlags(), ...nodeArgs, script]];
  const child = spawn(command[0], command[1], {
    cwd: ROOT,
    // PRINCIPAL_SHARE from the bench's own environment (1: the server without per-principal shares, for a before and after).
    env: { PATH: process.env.PATH, HOME: process.env.HOME ?? tmpdir(), ...(process.env.PRINCIPAL_SHARE ? { PRINCIPAL_SHARE: process.env.PRINCIPAL_SHARE } : {}), PORT: '0', LOG_FORMAT: 'json', ...env },
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
  const reap = () => reapServer(child, viaNpm, env.DATA_DIR);
  process.once('exit', reap);
  void exited.then(() => process.off('exit', reap));
  for (;;) {
    const listening = lines.find((l) => l.msg === 'propgraph listening');
    if (listening) {
      const health = await request(`${listening.url}/health`, 'GET').catch(() => undefined);
      if (health?.status === 'ok') {
        const meili = lines.find((l) => l.msg === 'embedded Meilisearch started');
        return {
          child,
          lines,
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

/**
 * A benchmark that dies (an uncaught error, Ctrl-C) takes the server it started with it,
 * and the server's embedded engines: the server, whose log pipe closes with the
 * benchmark, may not live to stop them, and a benchmark never starts on its DATA_DIR
 * again (the server's next start is what stops a killed server's engines). Synchronous:
 * it runs in 'exit'.
 */
function reapServer(child, viaNpm, dataDir) {
  const signal = (pid, sig) => {
    try {
      process.kill(pid, sig);
    } catch {
      // already gone
    }
  };
  signal(viaNpm ? -child.pid : child.pid, 'SIGKILL');
  if (!dataDir) return;
  const pidIn = (file) => {
    try {
      return Number(readFileSync(file, 'utf8').split('\n')[0]) || undefined;
    } catch {
      return undefined;
    }
  };
  // Fast shutdown for PostgreSQL (SIGINT), as the server's own stop does; SIGTERM for Meilisearch.
  const postgres = pidIn(path.join(dataDir, 'postgres', 'postmaster.pid'));
  if (postgres) signal(postgres, 'SIGINT');
  const meili = pidIn(path.join(dataDir, 'meili', 'meilisearch.pid'));
  if (meili) signal(meili, 'SIGTERM');
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
      const name = processName(readFileSync(`/proc/${pid}/comm`, 'utf8').trim());
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

/**
 * CPU time (user and system, ms) of a process tree, by the same names as memoryOfTree:
 * each live process's own time and that of the children it has reaped (PostgreSQL's
 * backends that ended), read from /proc. Differences between two readings say what the
 * server, PostgreSQL and Meilisearch each spent on the work between them, whatever the
 * machine's load does to wall-clock times.
 */
export function cpuOfTree(rootPid) {
  const tick = 1000 / Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
  const children = new Map();
  const stats = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ppid = Number(fields[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
      // utime, stime, cutime, cstime: fields 14-17 of stat, 11-14 after the name.
      stats.set(Number(entry), { comm: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), ms: (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) * tick });
    } catch {
      // gone meanwhile
    }
  }
  const byName = new Map();
  const visit = (pid) => {
    const s = stats.get(pid);
    if (s) {
      const name = processName(s.comm);
      byName.set(name, (byName.get(name) ?? 0) + s.ms);
    }
    for (const c of children.get(pid) ?? []) visit(c);
  };
  visit(rootPid);
  return byName;
}

/** CPU ms by process between two cpuOfTree readings. */
export function cpuBetween(before, after) {
  return new Map([...after].map(([name, ms]) => [name, ms - (before.get(name) ?? 0)]));
}

/** CPU seconds by process between two cpuOfTree readings, as a plain object (kept in a run's results). */
export function cpuSecondsBetween(before, after) {
  return Object.fromEntries([...cpuBetween(before, after)].map(([name, ms]) => [name, ms / 1000]));
}

/** "node (server) 19.7, postgres (all processes) 17.1, ...": CPU seconds by process, as the reports print them. */
export function cpuText(seconds, digits) {
  return Object.entries(seconds).map(([name, sec]) => `${name} ${round(sec, digits)}`).join(', ');
}

function processName(comm) {
  return comm === 'node' ? 'node (server)' : comm.startsWith('postgres') ? 'postgres (all processes)' : comm.startsWith('meili') ? 'meilisearch' : comm;
}

/** Bytes under a directory (du), 0 when it is missing. */
export function bytesUnder(dir) {
  try {
    return Number(execFileSync('du', ['-sb', dir], { encoding: 'utf8' }).split('\t')[0]);
  } catch {
    return 0;
  }
}

export function printMemory(memory) {
  for (const [name, m] of memory) console.log(`${name}: PSS ${round(m.pss)} MB (anonymous ${round(m.anon)}, mapped files ${round(m.file)}, shared memory ${round(m.shmem)}), RSS ${round(m.rss)} MB (${m.processes} processes)`);
}

export async function timeStartup(env) {
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

/** Datasets `from` to `to` (exclusive) as REST batches of `batch`, `inFlight` at a time. */
export async function bulkLoad(api, { from = 0, to, prefix, batch = 1000, inFlight = 2, query = '?async=true' }) {
  let next = from;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      for (;;) {
        const start = next;
        next += batch;
        if (start >= to) return;
        await api.post(`/openapi/v3/entity/dataset${query}`, Array.from({ length: Math.min(batch, to - start) }, (_, k) => entity(start + k, prefix)));
      }
    }),
  );
}

export async function countSearchable(api) {
  const res = await api.post('/api/graphql', {
    query: `{ scrollAcrossEntities(input: {types: [DATASET], query: "*", count: 0, orFilters: [{and: [{field: "structuredProperties.${PROPS[0][0]}", condition: EXISTS}]}]}) { total } }`,
  });
  return res.data.scrollAcrossEntities.total;
}

/** /health latency sampled back to back while `work` runs. */
export async function healthDuring(api, work, floor, alsoLive = false) {
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
  // With alsoLive, /health/live too: it checks nothing, so its delay is the event loop's own.
  const samplers = Promise.all([
    sample(() => api.get('/health')),
    sample(() => rawRequest(floor.url, 'GET', undefined, { authorization: `Bearer ${floor.token}` })),
    ...(alsoLive ? [sample(() => api.get('/health/live'))] : []),
  ]);
  const t = performance.now();
  await work();
  const workMs = performance.now() - t;
  done = true;
  const [health, bare, live] = await samplers;
  return { workMs, ...health, floor: bare, ...(live ? { live } : {}) };
}


/**
 * The embedded PostgreSQL's URL under `dataDir`, with its password: written where the
 * server looks for it before its first start (DATA_DIR/postgres-password), since the
 * embedded cluster takes no connection without one.
 */
export function embeddedDatabaseUrl(dataDir) {
  const password = randomBytes(24).toString('base64url');
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(path.join(dataDir, 'postgres-password'), `${password}\n`, { mode: 0o600 });
  return `postgresql://postgres:${password}@localhost/propgraph?host=${encodeURIComponent(path.join(dataDir, 'postgres'))}`;
}
