// The longest stretches a V8 CPU profile of the server spent without going idle, each
// with what ran in it: the heaviest functions by self time, and the propgraph and
// package functions on the stack the longest (inclusive). A stretch is one long task
// when the server is otherwise quiet; a saturated server (every client sending its next
// request at once) goes from one callback to the next without idling, so its stretches
// are many tasks and say less. On a loaded machine a stretch also holds the time the
// process waited for a core, counted with whatever was on the stack when it was taken off.
//
//   node bench/profileSlices.mjs <file.cpuprofile> [--top 15] [--over 5] [--from <s>]
// (--from: only stretches that begin that many seconds into the profile, e.g. after a load phase)
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

const frameName = ({ functionName, url, lineNumber }) => {
  const where = url ? url.replace(/^.*\/(node_modules|dist)\//, '$1/').replace(/^file:\/\//, '') : '';
  return `${functionName || '(anonymous)'}${where ? ` ${where}:${lineNumber + 1}` : ''}`;
};

/** Busy stretches (consecutive samples that are not `(idle)`), longest first, each with its heaviest frames. */
export function longestSlices(profile, { top = 15, overMs = 5, fromS = 0 } = {}) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const slices = [];
  let current;
  let t = profile.startTime;
  let busyUs = 0;
  const lengths = [];
  for (let i = 0; i < profile.samples.length; i++) {
    const dt = profile.timeDeltas[i];
    t += dt;
    const node = byId.get(profile.samples[i]);
    if (node.callFrame.functionName === '(idle)') {
      if (current && current.startUs - profile.startTime >= fromS * 1e6) {
        lengths.push(current.us);
        if (current.us >= overMs * 1000) slices.push(current);
      }
      current = undefined;
      continue;
    }
    busyUs += dt;
    current ??= { startUs: t - dt, us: 0, samples: [] };
    current.us += dt;
    current.samples.push([node.id, dt]);
  }
  slices.sort((a, b) => b.us - a.us);
  const described = slices.slice(0, top).map((s) => {
    const self = new Map();
    const inclusive = new Map();
    for (const [id, dt] of s.samples) {
      const name = frameName(byId.get(id).callFrame);
      self.set(name, (self.get(name) ?? 0) + dt);
      const seen = new Set();
      for (let p = id; p !== undefined; p = parent.get(p)) {
        const f = byId.get(p).callFrame;
        if (!f.url || f.url.startsWith('node:')) continue;
        const n = frameName(f);
        if (seen.has(n)) continue;
        seen.add(n);
        inclusive.set(n, (inclusive.get(n) ?? 0) + dt);
      }
    }
    const heaviest = (m, k) => [...m].sort((a, b) => b[1] - a[1]).slice(0, k).map(([name, us]) => ({ name, ms: us / 1000 }));
    return { ms: s.us / 1000, atS: (s.startUs - profile.startTime) / 1e6, self: heaviest(self, 6), inclusive: heaviest(inclusive, 12) };
  });
  lengths.sort((a, b) => a - b);
  const at = (q) => (lengths.length ? lengths[Math.min(lengths.length - 1, Math.floor((q / 100) * lengths.length))] / 1000 : 0);
  const spanS = (t - profile.startTime) / 1e6;
  return { spanS, busyS: busyUs / 1e6, stretches: lengths.length, p50: at(50), p99: at(99), overCount: slices.length, overMs, slices: described };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { top: { type: 'string', default: '15' }, over: { type: 'string', default: '5' }, from: { type: 'string', default: '0' } } });
  const r = longestSlices(JSON.parse(readFileSync(positionals[0], 'utf8')), { top: Number(values.top), overMs: Number(values.over), fromS: Number(values.from) });
  console.log(`${r.spanS.toFixed(1)} s profiled, ${r.busyS.toFixed(1)} s busy in ${r.stretches} stretches: p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms; ${r.overCount} of ${r.overMs} ms or more`);
  for (const s of r.slices) {
    console.log(`\n${s.ms.toFixed(1)} ms at ${s.atS.toFixed(2)} s`);
    console.log(`  self: ${s.self.map((f) => `${f.name} ${f.ms.toFixed(1)}`).join('; ')}`);
    console.log(`  inclusive: ${s.inclusive.map((f) => `${f.name} ${f.ms.toFixed(1)}`).join('; ')}`);
  }
}
