// `npm run bench -- upgrade [--n 100000]`: the in-place upgrade where users stand. The
// previous release (src/domain/releases.ts; its build from the upgrade suite, kept per
// commit under the temporary directory, or built here the same way) starts as
// `npm start` would on a fresh DATA_DIR, N datasets with values are written through it
// over HTTP with a token, and it is stopped; then this build starts on the same data
// directory. Measured: how long until it listens and until /health answers 200 (the
// migrations run before it listens), and how long its new search index takes to be
// built in the background (the `search-index-build` job), while it already serves.
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { machine, request, ROOT, round, writeSection } from './support.mjs';

const TOKEN = 'bench-upgrade-root-token-0123456789abcdef';

async function previousRelease() {
  const { RELEASES, compareVersions } = await import(path.join(ROOT, 'dist/domain/releases.js'));
  const { APP_VERSION } = await import(path.join(ROOT, 'dist/platform/version.js'));
  const release = [...RELEASES].filter((r) => compareVersions(r.version, APP_VERSION) < 0).sort((a, b) => compareVersions(b.version, a.version))[0];
  if (!release) throw new Error('no earlier release in src/domain/releases.ts');
  const root = path.join(tmpdir(), 'propgraph-release-builds', release.commit);
  if (!existsSync(path.join(root, '.propgraph-release-ready'))) {
    console.log(`building propgraph ${release.version} from ${release.commit} (git archive, npm ci)`);
    const work = `${root}.building`;
    rmSync(work, { recursive: true, force: true });
    execFileSync('sh', ['-c', `mkdir -p "${work}" && git -C "${ROOT}" archive ${release.commit} | tar -x -C "${work}"`]);
    execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: work, stdio: 'ignore' });
    writeFileSync(path.join(work, '.propgraph-release-ready'), `${release.version} ${release.commit}\n`);
    rmSync(root, { recursive: true, force: true });
    renameSync(work, root);
  }
  return { release, root, current: APP_VERSION };
}

/** `node --max-semi-space-size=8 dist/main.js` of the package at `root`, as its start script runs it. */
function start(root, env) {
  const started = performance.now();
  const child = spawn(process.execPath, ['--max-semi-space-size=8', path.join(root, 'dist/main.js')], {
    cwd: root,
    env: { PATH: process.env.PATH, HOME: process.env.HOME ?? '/tmp', HOST: '127.0.0.1', PORT: '0', LOG_FORMAT: 'json', ROOT_TOKEN: TOKEN, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (c) => (out += c));
  child.stderr.on('data', (c) => (out += c));
  const exited = new Promise((resolve) => child.on('exit', resolve));
  const listening = new Promise((resolve, reject) => {
    const timer = setInterval(() => {
      const line = out.split('\n').find((l) => l.includes('"msg":"propgraph listening"'));
      if (line) {
        clearInterval(timer);
        resolve({ url: JSON.parse(line).url, ms: performance.now() - started });
      } else if (child.exitCode !== null) {
        clearInterval(timer);
        reject(new Error(`server exited:\n${out.slice(-3000)}`));
      }
    }, 5);
  });
  return { child, exited, listening, started, output: () => out };
}

async function healthy(url, started) {
  for (;;) {
    try {
      if ((await fetch(`${url}/health`)).status === 200) return performance.now() - started;
    } catch {
      // not yet
    }
    await new Promise((r) => setTimeout(r, 10));
  }
}

export async function run(args) {
  const n = Number(args[args.indexOf('--n') + 1] ?? 100_000) || 100_000;
  const { release, root, current } = await previousRelease();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'propgraph-bench-upgrade-'));
  chmodSync(dataDir, 0o755);
  const env = { DATA_DIR: dataDir, RATE_LIMIT_PER_MINUTE: '100000000' };
  try {
    const old = start(root, env);
    const { url } = await old.listening;
    const base = `${url}/openapi/v3`;
    const property = 'urn:li:structuredProperty:bench.upgrade.tier';
    await request(`${base}/entity/structuredProperty/${encodeURIComponent(property)}/propertyDefinition?createIfNotExists=false`, 'POST', {
      value: { qualifiedName: 'bench.upgrade.tier', valueType: 'urn:li:dataType:svc.string', cardinality: 'SINGLE', entityTypes: ['urn:li:entityType:svc.dataset'] },
    }, TOKEN);
    let t = performance.now();
    for (let i = 0; i < n; i += 1000) {
      const batch = Array.from({ length: Math.min(1000, n - i) }, (_, k) => ({
        urn: `urn:li:dataset:(urn:li:dataPlatform:hive,bench.upgrade.d${i + k},PROD)`,
        status: { value: { removed: false } },
        structuredProperties: { value: { properties: [{ propertyUrn: property, values: [{ string: (i + k) % 2 ? 'gold' : 'silver' }] }] } },
      }));
      await request(`${base}/entity/dataset?async=true`, 'POST', batch, TOKEN);
    }
    for (;;) {
      const health = await request(`${url}/health`, 'GET', undefined, TOKEN);
      if (health.changeLog?.pending === 0) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    const loadSeconds = (performance.now() - t) / 1000;
    console.log(`propgraph ${release.version}: ${n} datasets written and indexed in ${loadSeconds.toFixed(0)} s`);
    old.child.kill('SIGTERM');
    await old.exited;

    const next = start(ROOT, env);
    const listened = await next.listening;
    const healthyMs = await healthy(listened.url, next.started);
    const upgraded = next.output().split('\n').find((l) => l.includes('"msg":"propgraph upgraded the database"'));
    t = performance.now();
    let job;
    for (;;) {
      const { jobs } = await request(`${listened.url}/openapi/v3/jobs`, 'GET', undefined, TOKEN);
      job = jobs.find((j) => j.kind === 'search-index-build' && j.status === 'done');
      if (job) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    const buildSeconds = (new Date(job.finishedOn).getTime() - new Date(job.createdOn).getTime()) / 1000;
    next.child.kill('SIGTERM');
    await next.exited;
    const line = upgraded ? JSON.parse(upgraded) : {};
    console.log(`upgrade ${release.version} -> ${current}: listening ${round(listened.ms / 1000, 2)} s, healthy ${round(healthyMs / 1000, 2)} s, index built in ${buildSeconds.toFixed(0)} s`);
    writeSection(
      `In-place upgrade from ${release.version}, ${n.toLocaleString('en')} datasets`,
      `Machine: ${machine()}.

\`npm run bench -- upgrade --n ${n}\`: propgraph ${release.version} (built from ${release.commit.slice(0, 7)}) on a fresh \`DATA_DIR\` (embedded PostgreSQL and Meilisearch), ${n.toLocaleString('en')} datasets with a value written over REST with a token (${loadSeconds.toFixed(0)} s until indexed), stopped with SIGTERM; then this build (${current}) started on the same directory as \`npm start\` starts it.

| step | time |
|---|---|
| start until listening (migrations ${JSON.stringify(line.migrations ?? [])} applied, upgrade logged from ${line.fromVersion} to ${line.toVersion}) | ${round(listened.ms / 1000, 2)} s |
| start until \`GET /health\` answers 200 | ${round(healthyMs / 1000, 2)} s |
| the new search index built from the database in the background (job \`search-index-build\`, ${job.done} entities), while serving | ${buildSeconds.toFixed(0)} s |
`,
    );
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
