// Shared pieces of the benchmarks: the machine, statistics, a PostgreSQL server, the
// built server as a child process, a closed-loop load generator, and BENCHMARKS.md.
import { execFileSync, execSync, spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export function machine() {
  const sh = (cmd) => execSync(cmd, { encoding: 'utf8' }).trim();
  const mem = sh('free -g').split('\n').find((l) => l.startsWith('Mem:'))?.replace(/\s+/g, ' ');
  return `\`nproc\` ${sh('nproc')} (${os.cpus()[0]?.model ?? 'unknown cpu'}), \`free -g\` "${mem}" (total used free shared buff/cache available), ${os.type()} ${os.release()}, Node ${process.version}`;
}

export function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}

export function median(values) {
  return percentile([...values].sort((a, b) => a - b), 50);
}

export const round = (n, d = 1) => Number.isFinite(n) ? Number(n.toFixed(d)) : n;

/** The test suite's throwaway PostgreSQL and Meilisearch helpers, compiled on the fly. */
export async function testServers() {
  const out = path.join(ROOT, 'bench', '.build');
  execFileSync(path.join(ROOT, 'node_modules/.bin/tsc'), ['--module', 'nodenext', '--target', 'es2023', '--skipLibCheck', '--outDir', out, path.join(ROOT, 'test/support/globalSetup.ts')], { stdio: 'inherit' });
  return import(path.join(out, 'globalSetup.js'));
}

export async function startPostgres() {
  return (await testServers()).startPostgres();
}

/**
 * The scripts that start the server: dist/main.js as `npm start` runs it (the bundle), and
 * tsc's modules (dist/boot/start.js, what main.js runs when tsc compiled after the bundle).
 */
export const SERVER_SCRIPTS = { bundle: path.join(ROOT, 'dist/main.js'), tsc: path.join(ROOT, 'dist/boot/start.js') };

/** The bundle's start, but under the profiler tsc's modules, so that a profile names each function's own file and package, not a chunk of the bundle. */
export function serverScript(nodeArgs) {
  return nodeArgs.some((a) => a.startsWith('--cpu-prof')) ? SERVER_SCRIPTS.tsc : SERVER_SCRIPTS.bundle;
}

/** Starts `node dist/main.js` (build first with `npm run build`) and resolves its URL. */
export function startServer(env) {
  // BENCH_CPU_PROFILE=<dir> writes a V8 CPU profile of the server when it exits.
  const profile = process.env.BENCH_CPU_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROFILE}`] : [];
  // The flags `npm start` runs the server with (package.json), so figures are a user's.
  const child = spawn(process.execPath, ['--max-semi-space-size=8', ...profile, serverScript(profile)], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: os.tmpdir(), HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', AUTH_ENABLED: 'false', MEILI_EMBEDDED: 'false', RATE_LIMIT_PER_MINUTE: '100000000', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let buffer = '';
    child.stdout.on('data', (chunk) => {
      buffer += chunk;
      for (const line of buffer.split('\n')) {
        try {
          const entry = JSON.parse(line);
          if (entry.msg === 'propgraph listening') resolve({ child, url: entry.url, stop: () => new Promise((r) => { child.once('exit', r); child.kill('SIGTERM'); }) });
        } catch {}
      }
      buffer = buffer.slice(buffer.lastIndexOf('\n') + 1);
    });
    child.once('exit', (code) => reject(new Error(`server exited (${code}) before listening`)));
  });
}

/**
 * Runs `total` operations with `concurrency` workers in a closed loop; `op(i)` does
 * operation i. Returns throughput and latency percentiles (ms).
 */
export async function load(total, concurrency, op) {
  const latencies = new Array(total);
  let next = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (;;) {
        const i = next++;
        if (i >= total) return;
        const t0 = process.hrtime.bigint();
        await op(i);
        latencies[i] = Number(process.hrtime.bigint() - t0) / 1e6;
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const sorted = latencies.sort((a, b) => a - b);
  return { opsPerSecond: total / seconds, p50: percentile(sorted, 50), p99: percentile(sorted, 99), seconds };
}

// node:http with keep-alive: several times cheaper per request than fetch, so the load
// generator takes less of the CPU it shares with the server.
export const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

export function json(url, method, body, contentType = 'application/json') {
  return request(url, method, body, undefined, contentType);
}

/** One JSON request with an optional bearer token; resolves the parsed body, rejects on a non-2xx status. */
export function request(url, method, body, token, contentType = 'application/json') {
  const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
  const headers = {
    ...(payload === undefined ? {} : { 'content-type': contentType, 'content-length': Buffer.byteLength(payload) }),
    ...(token ? { authorization: `Bearer ${token}` } : {}),
  };
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, agent, headers }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        if (res.statusCode < 200 || res.statusCode >= 300) reject(new Error(`${method} ${url} -> ${res.statusCode} ${text.slice(0, 300)}`));
        else resolve(text ? JSON.parse(text) : undefined);
      });
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/**
 * A section's text from this line on is written by hand (runs compared, what a profile
 * showed) and kept when the benchmark writes the section again: a rewrite used to drop
 * it, and each writer restored the file by hand.
 */
export const KEPT_BELOW = '<!-- Written by hand from here to the next section: a new run of the benchmark keeps it. -->';

/** Replaces (or appends) the section `## <title>` of BENCHMARKS.md, keeping its part below KEPT_BELOW. */
export function writeSection(title, body) {
  const file = path.join(ROOT, 'BENCHMARKS.md');
  const header = '# Benchmarks\n\nMeasured with `npm run bench -- <name>` on the machine each section names. Figures are medians of the rounds; ratios compare with a baseline measured in the same run, because absolute times on shared machines drift.\n';
  let text = existsSync(file) ? readFileSync(file, 'utf8') : header;
  let section = `## ${title}\n\n${body.trim()}\n`;
  const start = text.indexOf(`## ${title}\n`);
  if (start >= 0) {
    const end = text.indexOf('\n## ', start + 1);
    const old = text.slice(start, end >= 0 ? end + 1 : text.length);
    const kept = old.indexOf(KEPT_BELOW);
    if (kept >= 0) section = `${section}\n${old.slice(kept).trimEnd()}\n`;
    // A blank line before the next section, as between every two.
    text = text.slice(0, start) + section + (end >= 0 ? `\n${text.slice(end + 1)}` : '');
  } else {
    text = `${text.trimEnd()}\n\n${section}`;
  }
  writeFileSync(file, text);
}

/** One request on the shared keep-alive agent: resolves status, headers and the parsed body, whatever the status. */
export function rawRequest(url, method, body, headers = {}) {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, agent, headers: { ...headers, ...(payload === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }) } }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        if (res.statusCode >= 400) return reject(new Error(`${method} ${url} -> ${res.statusCode} ${text.slice(0, 300)}`));
        let json;
        try {
          json = text ? JSON.parse(text) : undefined;
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode, headers: res.headers, json });
      });
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/**
 * The statements of one REST structuredProperties write other than its value rows, as
 * Prisma's client writes them for the baselines: the new latest aspect, its history
 * row, the entity's version and a change-log row.
 */
export function aspectWriteStatements(prisma, { urn, metadata, version }) {
  return [
    prisma.aspect.upsert({
      where: { urn_aspect_version: { urn, aspect: 'structuredProperties', version: 0n } },
      create: { urn, aspect: 'structuredProperties', version: 0n, metadata, systemMetadata: {}, createdBy: 'bench' },
      update: { metadata },
    }),
    prisma.aspect.create({ data: { urn, aspect: 'structuredProperties', version, metadata, systemMetadata: {}, createdBy: 'bench' } }),
    prisma.entity.update({ where: { urn }, data: { version: { increment: 1 } } }),
    prisma.changeLog.create({ data: { urn, entityType: 'dataset', aspect: 'structuredProperties', changeType: 'UPSERT', indexedOn: new Date() } }),
  ];
}
