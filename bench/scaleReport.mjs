// The section the scale benchmark writes into BENCHMARKS.md: issue 32's targets at the
// largest size with met / not met, the figures at every size, and where one machine stops
// being enough, with the arithmetic.
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { machine, round } from './support.mjs';
import { cpuText, startFlags } from './outsideServer.mjs';
import { summarize } from './profileSummary.mjs';

const met = (ok) => (ok ? 'met' : '**not met**');
const MiB = 2 ** 20;
const GiB = 2 ** 30;
const fmt = (n) => Math.round(n).toLocaleString('en-US');
const loadText = (l) => (l ? `${round(l.median, 1)} (${round(l.min, 1)}–${round(l.max, 1)})` : '?');
const treePss = (m) => [...m.values()].reduce((a, x) => a + x.pss, 0);
const nodePss = (m) => m.get('node (server)')?.pss ?? NaN;
const byProcess = (m) => [...m].map(([k, x]) => `${k} ${round(x.pss)}`).join(', ');

/** A full load or rebuild past which one machine is not enough: an overnight window. */
const REBUILD_WINDOW_HOURS = 8;

/**
 * Where one machine stops being enough, from the two largest sizes: what each further
 * dataset costs in disk, in memory and in indexing time, against what this machine has.
 */
export function machineLimits(results) {
  const [a, b] = results.sizes.slice(-2);
  if (!a || !b) return undefined;
  const n = b.size - a.size;
  const diskPer = (b.disk.meili + b.disk.postgres - a.disk.meili - a.disk.postgres) / n;
  const indexPer = (b.disk.meili - a.disk.meili) / n;
  // Memory that must stay resident: the processes' own (anonymous) memory and PostgreSQL's
  // shared buffers, plus the Meilisearch index as page cache, so searches do not read the disk.
  const resident = (r) => [...r.memoryIdle.values()].reduce((s, x) => s + x.anon + x.shmem, 0) * MiB + r.disk.meili;
  const memPer = (resident(b) - resident(a)) / n;
  const memFixed = resident(b) - memPer * b.size;
  const diskUsed = b.disk.meili + b.disk.postgres;
  // The bulk rate falls as the index grows; fitted as rate ∝ size^-k through the two steps' midpoints.
  const [ra, rb] = [a.bulk.perSecond, b.bulk.perSecond];
  const [ma, mb] = [(a.bulk.from + a.size) / 2, (b.bulk.from + b.size) / 2];
  const k = Math.max(0, Math.log(ra / rb) / Math.log(mb / ma));
  const rateAt = (size) => rb * (size / mb) ** -k;
  // Time to load (or rebuild) N datasets: the integral of 1/rate from 0 to N = N^(1+k) / ((1+k) · rb · mb^k).
  const hoursFor = (size) => size ** (1 + k) / ((1 + k) * rb * mb ** k) / 3600;
  let windowSize = b.size;
  while (hoursFor(windowSize) < REBUILD_WINDOW_HOURS && windowSize < 1e12) windowSize *= 1.05;
  return {
    from: a.size,
    to: b.size,
    diskPer,
    indexPer,
    memPer,
    memFixed,
    diskUsed,
    diskLimit: (results.machine.diskFreeBytes + diskUsed) / diskPer,
    memLimit: (results.machine.memBytes - memFixed) / memPer,
    k,
    rateAt,
    hoursFor,
    windowSize,
  };
}

function limitsText(results) {
  const l = results.limits;
  if (!l) return '';
  const { memBytes, diskFreeBytes } = results.machine;
  const sizes = [1e6, 1e7, 1e8];
  const first = [['disk', l.diskLimit], ['memory', l.memLimit], ['indexing', l.windowSize]].filter(([, n]) => n > 0).sort((x, y) => x[1] - y[1])[0];
  return `
### Where one machine stops being enough

From the step ${fmt(l.from)} → ${fmt(l.to)}: what each further dataset costs, against this machine (${round(memBytes / GiB, 1)} GiB of memory, ${round((diskFreeBytes + l.diskUsed) / GiB, 1)} GiB of disk free for data: ${round(diskFreeBytes / GiB, 1)} free after the run plus the ${round(l.diskUsed / GiB, 2)} GiB the run's data held).

- **Disk**: ${fmt(l.diskPer)} bytes per dataset (PostgreSQL and Meilisearch; the index ${fmt(l.indexPer)}). ${round((diskFreeBytes + l.diskUsed) / GiB, 1)} GiB / ${fmt(l.diskPer)} B ≈ **${fmt(l.diskLimit)} datasets**.
- **Memory**: to keep searches off the disk, the processes' own memory and PostgreSQL's buffers plus the Meilisearch index as page cache: ${l.memPer > 0 ? `${fmt(l.memPer)} bytes per dataset over a fixed ${round(l.memFixed / MiB)} MiB. (${round(memBytes / GiB, 1)} GiB − ${round(l.memFixed / GiB, 2)} GiB) / ${fmt(l.memPer)} B ≈ **${fmt(l.memLimit)} datasets**; past that, searches read the index from disk, and their p99 follows the disk.` : 'no growth between these sizes (too small to tell).'}
- **Indexing rate**: the bulk load's rate went from ${fmt(results.sizes.at(-2).bulk.perSecond)}/s (step to ${fmt(l.from)}) to ${fmt(results.sizes.at(-1).bulk.perSecond)}/s (step to ${fmt(l.to)}): ${l.k > 0 ? `fitted as rate ∝ size^−${round(l.k, 2)}` : 'it did not fall, so it is taken as constant (a rate that grew is not extrapolated)'}, ${sizes.map((s) => `${fmt(l.rateAt(s))}/s at ${fmt(s)}`).join(', ')}. Loading or rebuilding N datasets takes ∫₀ᴺ dn / rate(n) = ${sizes.map((s) => `${round(l.hoursFor(s), 1)} h for ${fmt(s)}`).join(', ')}. A rebuild no longer fits an ${REBUILD_WINDOW_HOURS}-hour night at about **${fmt(l.windowSize)} datasets**.

The first of these limits is where one machine stops being enough: **${fmt(first[1])} datasets** (${first[0]}). Past it: an external PostgreSQL and Meilisearch on machines of their own (\`DATABASE_URL\`, \`MEILI_URL\`), and the service's replicas in front of them.
`;
}

export function scaleReport(results, opts, started) {
  const last = results.sizes.at(-1);
  const rows = [];
  const totalS = results.sizes.reduce((a, r) => a + r.bulk.searchableS, 0);
  const writtenS = results.sizes.reduce((a, r) => a + r.bulk.writtenS, 0);
  const bulkLoads = results.sizes.map((r) => loadText(r.bulk.load)).join(', ');
  rows.push(`| Bulk load of ${fmt(last.size)} datasets over REST batches until all are searchable ≤ 15 min | ${round(totalS / 60, 1)} min (written in ${round(writtenS / 60, 1)} min; ${fmt(last.size / totalS)} datasets/s) | | ${bulkLoads} | ${met(totalS <= 15 * 60)} |`);
  for (const q of last.search.rows) {
    const [d50, d99] = [q.service.p50 - q.raw.p50, q.service.p99 - q.raw.p99];
    // A row without a target (the web app's search page) is reported beside its raw requests.
    if (!q.rawTarget) {
      rows.push(`| ${q.label} | p50 ${round(q.service.p50, 2)} ms (+${round(d50, 2)}), p99 ${round(q.service.p99, 2)} ms (${d99 >= 0 ? '+' : ''}${round(d99, 2)}) | raw p50 ${round(q.raw.p50, 2)}, p99 ${round(q.raw.p99, 2)}; bare proxy p50 ${round(q.bare.p50, 2)}, p99 ${round(q.bare.p99, 2)} | ${loadText(last.searchLoad)} | reported |`);
      continue;
    }
    rows.push(`| ${q.label}: p50 ≤ raw + ${q.rawTarget.p50} ms, p99 ≤ raw + ${q.rawTarget.p99} ms | p50 ${round(q.service.p50, 2)} ms (+${round(d50, 2)}), p99 ${round(q.service.p99, 2)} ms (${d99 >= 0 ? '+' : ''}${round(d99, 2)}) | raw p50 ${round(q.raw.p50, 2)}, p99 ${round(q.raw.p99, 2)}; bare proxy p50 ${round(q.bare.p50, 2)}, p99 ${round(q.bare.p99, 2)} | ${loadText(last.searchLoad)} | ${met(d50 <= q.rawTarget.p50 && d99 <= q.rawTarget.p99)} |`);
  }
  const h = results.hardDelete;
  rows.push(`| Hard delete of a property held by ${fmt(h.total)} datasets: cleaned ≤ 5 min | cleanup done after ${round(h.cleanedS, 1)} s (holders rewritten after ${h.holdersS === undefined ? '?' : round(h.holdersS, 1)} s, then the older versions; DELETE answered in ${round(h.deleteMs)} ms); the index caught up after ${round(h.indexedS, 1)} s${h.cpuSeconds ? `; CPU s: ${cpuText(h.cpuSeconds, 1)}` : ''} | | ${loadText(results.hardDeleteLoad)} | ${met(h.cleanedS <= 300)} |`);
  rows.push(`| \`/health\` meanwhile: p99 < 100 ms | p50 ${round(h.health.p50, 1)} ms, p99 ${round(h.health.p99, 1)} ms, max ${round(h.health.max, 1)} ms (${h.health.samples} samples) | a bare Node server asked meanwhile: p50 ${round(h.health.floor.p50, 1)}, p99 ${round(h.health.floor.p99, 1)} ms | ${loadText(results.hardDeleteLoad)} | ${met(h.health.p99 < 100)} |`);
  rows.push(`| node process ≤ 300 MB PSS | ${round(nodePss(last.memory))} MB right after the searches, ${round(nodePss(last.memoryIdle))} MB 30 s later | | | right after: ${met(nodePss(last.memory) <= 300)}; 30 s later: ${met(nodePss(last.memoryIdle) <= 300)} |`);
  rows.push(`| whole process tree ≤ 4 GB PSS | ${round(treePss(last.memory))} MB (${byProcess(last.memory)}); 30 s later ${round(treePss(last.memoryIdle))} MB | | | right after: ${met(treePss(last.memory) <= 4096)}; 30 s later: ${met(treePss(last.memoryIdle) <= 4096)} |`);
  rows.push(`| restart until healthy < 5 s | ${round(results.restartMs / 1000, 2)} s (\`npm start\` on the ${fmt(last.size)}-dataset data directory) | | ${loadText(results.restartLoad)} | ${met(results.restartMs < 5000)} |`);
  rows.push(`| index size on disk | Meilisearch ${round(last.disk.meili / GiB, 2)} GiB; PostgreSQL ${round(last.disk.postgres / GiB, 2)} GiB | | | reported |`);

  const perSize = results.sizes.map((r) => {
    const q = (prefix) => r.search.rows.find((x) => x.label.startsWith(prefix));
    const cell = (x) => (x ? `${round(x.service.p50, 2)} / ${round(x.raw.p50, 2)} / ${round(x.bare.p50, 2)}` : '');
    return `| ${fmt(r.size)} | ${fmt(r.bulk.perSecond)}/s (${fmt(r.size - r.bulk.from)} in ${round(r.bulk.searchableS, 1)} s; CPU s: ${cpuText(r.bulk.cpuSeconds)}) | ${cell(q('GraphQL `scroll'))} | ${cell(q('GraphQL `aggregate'))} | ${cell(q('REST v3'))} | ${round(nodePss(r.memoryIdle))} / ${round(treePss(r.memoryIdle))} MB (${byProcess(r.memoryIdle)}) | ${round(r.disk.meili / MiB)} / ${round(r.disk.postgres / MiB)} MiB | ${loadText(r.bulk.load)}; ${loadText(r.searchLoad)} |`;
  });

  return `
Command: \`npm run bench -- scale --sizes ${opts.sizes.join(',')} --iterations ${opts.iterations} --batch ${opts.batch} --in-flight ${opts.inFlight}\`, started ${started.toISOString().slice(0, 16).replace('T', ' ')} UTC.
Machine: ${machine()}. Server: \`node ${startFlags().join(' ')} dist/main.js\` (the build and the flags \`npm start\` runs), authentication on (the generated admin token), \`RATE_LIMIT_PER_MINUTE=100000000\`, everything else default: the embedded PostgreSQL (durable: fsync and synchronous_commit on) and the bundled Meilisearch (256 MiB, 1 indexing thread). One server is grown to each size in turn by REST batches of ${opts.batch} datasets (\`async=true\`, ${opts.inFlight} in flight), each with 3 structured property values and a 5-field schemaMetadata; "searchable" means a GraphQL scroll with an EXISTS filter counts them all. At each size: ${opts.iterations} timed searches of each kind after a warm-up, taking turns with the raw Meilisearch request and the bare Node proxy (\`bench/bareProxy.mjs\`); memory as PSS over the server's process tree right after and 30 s later; the data directories' size on disk (\`du\`). The load column is the machine's 1-minute load average during the phase, median (min–max), sampled every 5 s: the machine is shared, and other sessions' work runs beside this one.

![Search p50, bulk-load rate and memory against the number of datasets](docs/benchmarks-scale.svg)

| Target (at ${fmt(last.size)} datasets) | Measured | Baseline, same run | Load | |
|---|---|---|---|---|
${rows.join('\n')}

| Datasets | Bulk load of the step, until searchable | scroll p50: service / raw / floor, ms | aggregate p50 | REST search p50 | node / tree PSS, 30 s after | index / PostgreSQL on disk | Load: load step; searches |
|---|---|---|---|---|---|---|---|
${perSize.join('\n')}
${limitsText(results)}`;
}

/**
 * Where the server's CPU went in each phase, from its CPU profiles (one per server
 * process the run started): per dataset loaded, per search, per dataset cleaned.
 */
export function profileSection(dir, windows) {
  const profiles = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile')).map((f) => path.join(dir, f)).sort((a, b) => statSync(a).mtimeMs - statSync(b).mtimeMs);
  const parts = [];
  for (const w of windows) {
    const intervals = w.intervals ?? [w.interval];
    // The phase is in the profile whose samples cover it; summarize counts nothing from the others.
    const p = profiles.map((file) => summarize(file, intervals)).find((x) => x.busyMs > 0 || x.idleMs > 0);
    if (!p) continue;
    const scale = intervals.length / w.per;
    parts.push(`**${w.name}**: the server's CPU ${round(p.busyMs * scale, 3)} ms per ${w.unit} (idle ${round(p.idleMs * scale, 3)}). By kind: ${p.categories.slice(0, 8).map((c) => `${c.name} ${round(c.ms * scale, 3)}`).join(', ')}. Heaviest, self: ${p.self.slice(0, 8).map((f) => `\`${f.name}\` ${round(f.ms * scale, 3)}`).join('; ')}. propgraph inclusive: ${p.inclusive.slice(0, 6).map((f) => `\`${f.name}\` ${round(f.ms * scale, 3)}`).join('; ')}.`);
  }
  return `
### Where the time goes (the same run under \`--profile\`)

The server under \`node --cpu-prof --cpu-prof-interval=1000\`, cut to each phase (the client and V8 read the same monotonic clock).

${parts.join('\n\n')}
`;
}
