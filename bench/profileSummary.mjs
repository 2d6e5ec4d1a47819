// Reads a V8 CPU profile of the server (node --cpu-prof) and says where the server's CPU
// went during given requests: the profile's samples are cut to the intervals the client
// timed (both sides read the same monotonic clock, in microseconds), then counted per
// request by what ran: the engine's own work (GC, native code), Node's HTTP stack,
// graphql-js, Apollo Server, the pg driver, other packages, and propgraph's modules.
import { readFileSync } from 'node:fs';

/** What a frame belongs to, from its script URL. */
export function categoryOf(frame) {
  const { functionName, url } = frame;
  if (!url) {
    if (functionName === '(garbage collector)') return 'V8: garbage collection';
    if (functionName === '(program)') return 'V8 and native (parsing, compiling, syscalls)';
    if (functionName === '(idle)') return 'idle';
    return 'V8 and native (parsing, compiling, syscalls)';
  }
  if (url.startsWith('node:')) {
    if (/_http_|http|net|stream|socket|tcp/.test(url)) return 'Node: HTTP, sockets, streams';
    return 'Node: other core modules';
  }
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1];
  if (pkg === 'graphql') return 'graphql-js (parse, validate, execute)';
  if (pkg?.startsWith('@apollo/')) return `Apollo (${pkg})`;
  if (pkg === 'pg' || pkg?.startsWith('pg-') || pkg === '@prisma/adapter-pg') return 'pg driver and adapter';
  if (pkg?.startsWith('@prisma/') || pkg === 'prisma') return 'Prisma';
  if (pkg) return `package ${pkg}`;
  const mod = /\/dist\/(.+?)\.js/.exec(url)?.[1];
  if (mod) return `propgraph ${mod.split('/').slice(0, mod.includes('/') ? -1 : 1).join('/') || mod}`;
  return 'other';
}

/**
 * `intervals`: [startUs, endUs] pairs of requests (monotonic clock). Returns CPU time per
 * request by category and the heaviest functions, self and inclusive.
 */
export function summarize(profilePath, intervals) {
  const profile = JSON.parse(readFileSync(profilePath, 'utf8'));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const sorted = [...intervals].sort((a, b) => a[0] - b[0]);
  let k = 0;
  let t = profile.startTime;
  const self = new Map();
  const categories = new Map();
  const inclusive = new Map();
  let busyUs = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const dt = profile.timeDeltas[i];
    t += dt;
    while (k < sorted.length && sorted[k][1] < t) k++;
    if (k >= sorted.length) break;
    if (t < sorted[k][0]) continue;
    // A sample stands for the time since the previous one.
    const node = byId.get(profile.samples[i]);
    const category = categoryOf(node.callFrame);
    categories.set(category, (categories.get(category) ?? 0) + dt);
    if (category === 'idle') continue;
    busyUs += dt;
    const name = frameName(node.callFrame);
    self.set(name, (self.get(name) ?? 0) + dt);
    const seen = new Set();
    for (let id = node.id; id !== undefined; id = parent.get(id)) {
      const f = byId.get(id).callFrame;
      if (!f.url.includes('/dist/') || f.url.includes('/node_modules/')) continue;
      const n = frameName(f);
      if (seen.has(n)) continue;
      seen.add(n);
      inclusive.set(n, (inclusive.get(n) ?? 0) + dt);
    }
  }
  const perRequest = (us) => us / 1000 / intervals.length;
  const top = (m, count) => [...m].sort((a, b) => b[1] - a[1]).slice(0, count).map(([name, us]) => ({ name, ms: perRequest(us) }));
  return {
    requests: intervals.length,
    busyMs: perRequest(busyUs),
    categories: top(categories, 30).filter((c) => c.name !== 'idle'),
    idleMs: perRequest(categories.get('idle') ?? 0),
    self: top(self, 12),
    inclusive: top(inclusive, 12),
  };
}

function frameName({ functionName, url, lineNumber }) {
  const where = url ? url.replace(/^.*\/(node_modules|dist)\//, '$1/').replace(/^file:\/\//, '') : '';
  return `${functionName || '(anonymous)'}${where ? ` ${where}:${lineNumber + 1}` : ''}`;
}
