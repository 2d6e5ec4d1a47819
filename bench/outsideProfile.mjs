// The profiled run of the outside-in benchmark (--profile): the server's and the bare
// proxy's CPU profiles cut to each path's requests, summarised per request and per write.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { summarize } from './profileSummary.mjs';
import { machine, round } from './support.mjs';

/** Node flags for the bench's helper processes (`bare`, `apollo`, `hive`): a CPU profile each, under --profile. */
export const profileArgsFor = (opts, db) => (name) => (opts.profile ? ['--cpu-prof', '--cpu-prof-interval=100', `--cpu-prof-dir=${path.join(opts.profile, `${name}-${db}`)}`] : []);

export function profilesIn(dir) {
  try {
    return readdirSync(dir).filter((f) => f.endsWith('.cpuprofile')).map((f) => path.join(dir, f));
  } catch {
    return [];
  }
}

/** The categories of profileSummary.mjs grouped the way the summary table reads them. */
const GROUPS = [
  ['graphql-js + Apollo', (c) => c.startsWith('graphql-js') || c.startsWith('Apollo') || c === 'package @as-integrations/fastify' || c === 'package negotiator' || c === 'package whatwg-mimetype' || c === 'package lru-cache' || c === 'package dataloader'],
  ['Fastify and its plugins', (c) => c === 'package fastify' || c.startsWith('package @fastify/') || ['package helmet', 'package find-my-way', 'package secure-json-parse', 'package fast-querystring', 'package toad-cache', 'package fast-decode-uri-component', 'package pino', 'package @pinojs/redact'].includes(c)],
  ['propgraph', (c) => c.startsWith('propgraph ')],
  ['database driver (pg, Prisma)', (c) => c.startsWith('pg driver') || c === 'Prisma'],
  ['Node core (HTTP, sockets, timers, promises)', (c) => c.startsWith('Node: ')],
  ['V8 (GC, native, syscalls)', (c) => c.startsWith('V8')],
];

function grouped(p) {
  const out = new Map(GROUPS.map(([name]) => [name, 0]));
  let other = 0;
  for (const c of p.categories) {
    const g = GROUPS.find(([, test]) => test(c.name));
    if (g) out.set(g[0], out.get(g[0]) + c.ms);
    else other += c.ms;
  }
  out.set('other packages', other);
  return out;
}

/** The server's CPU per request on each search path and per write, from its CPU profile. */
export function profileReport(results, opts) {
  const parts = [];
  const summary = [];
  for (const r of results) {
    if (!r.profile) throw new Error(`no CPU profile of the ${r.db} server in ${opts.profile}`);
    for (const q of r.search?.rows ?? []) {
      const p = summarize(r.profile, q.service.intervals);
      const b = r.bareProfile ? summarize(r.bareProfile, q.bare.intervals) : undefined;
      const gw = q.gateway && r.gatewayProfiles?.[q.gateway] ? summarize(r.gatewayProfiles[q.gateway], q.service.intervals) : undefined;
      const g = grouped(p);
      summary.push(`| ${q.label} (${r.db}) | +${round(q.service.p50 - q.raw.p50, 2)} / +${round(q.bare.p50 - q.raw.p50, 2)} | ${round(p.busyMs, 2)} / ${b ? round(b.busyMs, 2) : '?'} | ${[...g.values()].map((ms) => round(ms, 2)).join(' | ')} |`);
      const gap = q.service.p50 - q.raw.p50;
      parts.push(`### ${q.label} (${r.db} PostgreSQL)

p50 ${round(q.service.p50, 2)} ms vs ${round(q.raw.p50, 2)} ms raw (+${round(gap, 2)} ms); a bare Node proxy sending the same engine requests${q.floorReadsPage ? ', then the same page read,' : ''} ${round(q.bare.p50, 2)} ms (+${round(q.bare.p50 - q.raw.p50, 2)} ms). The server's CPU per request: **${round(p.busyMs, 3)} ms** busy, ${round(p.idleMs, 3)} ms idle (waiting on Meilisearch and PostgreSQL), over ${p.requests} requests.${b ? ` The bare proxy's CPU per request: ${round(b.busyMs, 3)} ms (of which Node's HTTP stack ${round(b.categories.find((c) => c.name.startsWith('Node: HTTP'))?.ms ?? 0, 3)} ms).` : ''}${q.gateway ? ` The direct call of the same query, timed in the same turns: p50 ${round(q.direct.p50, 2)} ms, so the gateway adds ${round(q.service.p50 - q.direct.p50, 2)} ms; it sent ${q.subgraphRequests} subgraph request(s) per request.` : ''}${gw ? ` The gateway process's CPU per request: **${round(gw.busyMs, 3)} ms** (${gw.categories.slice(0, 6).map((c) => `${c.name} ${round(c.ms, 3)}`).join(', ')}); heaviest functions, self time: ${gw.self.slice(0, 6).map((f) => `\`${f.name}\` ${round(f.ms, 3)}`).join('; ')}.` : ''}

| Where the server's CPU went | ms per request |
|---|---|
${p.categories.map((c) => `| ${c.name} | ${round(c.ms, 3)} |`).join('\n')}

Heaviest functions, self time: ${p.self.map((f) => `\`${f.name}\` ${round(f.ms, 3)}`).join('; ')}.

propgraph's functions, inclusive: ${p.inclusive.map((f) => `\`${f.name}\` ${round(f.ms, 3)}`).join('; ')}.
`);
    }
    for (const [kind, label] of [['rest', 'REST v3 value writes, waiting for the index'], ['restAsync', 'REST v3 value writes with `async=true`']]) {
      const windows = r.writes?.windows?.[kind];
      if (!windows?.length) continue;
      // Whole rounds: summarize's "per request" is per round here, of opts.writes writes each.
      const p = summarize(r.profile, windows);
      const perWrite = (ms) => ms / opts.writes;
      parts.push(`### ${label} (${r.db} PostgreSQL), ${opts.concurrency} clients

${round(r.writes[kind].opsPerSecond)}/s, p50 ${round(r.writes[kind].p50, 1)} ms, p99 ${round(r.writes[kind].p99, 1)} ms; Prisma writing the same rows: ${round(r.writes.prisma.opsPerSecond)}/s, p99 ${round(r.writes.prisma.p99, 1)} ms.${kind === 'rest' ? ` Meilisearch meanwhile: ${round(r.writes.indexTasks.perSecond, 1)} document tasks/s of ${round(r.writes.indexTasks.documents, 1)} documents each (medians), queued ${round(r.writes.indexTasks.queuedMs)} ms, applied in ${round(r.writes.indexTasks.runMs)} ms.` : ''} The server's CPU per write: **${round(perWrite(p.busyMs), 3)} ms** busy (${round((p.busyMs * windows.length) / (windows.reduce((a, w) => a + (w[1] - w[0]), 0) / 1000) * 100)}% of one core over the rounds).

| Where the server's CPU went | ms per write |
|---|---|
${p.categories.slice(0, 14).map((c) => `| ${c.name} | ${round(perWrite(c.ms), 3)} |`).join('\n')}

Heaviest functions, self time: ${p.self.map((f) => `\`${f.name}\` ${round(perWrite(f.ms), 3)}`).join('; ')}.
`);
    }
  }
  const summaryTable = summary.length === 0 ? '' : `
How to read it: the first column is what a user sees (p50 over the raw engine request) for the service and for the bare proxy, a \`node:http\` server in its own process that checks the token and sends the same engine requests, and for the REST search then the same page read on PostgreSQL (\`bench/bareProxy.mjs\`): the floor any Node service in front of the engine (and the database) pays here. The second is the CPU each spends per request (from the profiles, which slow both a little); the rest splits the service's CPU by what ran. The gap between service and floor is the service's extra CPU: GraphQL execution, Fastify's request handling and its plugins (security headers, rate limit, CORS), and propgraph's own code (authentication, query compilation, answer shaping) are each a fraction of a millisecond; no single one holds the gap.

| Path | p50 over raw, ms: service / bare proxy | server CPU per request, ms: service / bare proxy | ${[...GROUPS.map(([name]) => name), 'other packages'].join(' | ')} |
|---|---|---|${GROUPS.map(() => '---|').join('')}---|
${summary.join('\n')}
`;
  return `
Command: \`npm run bench -- outside --n ${opts.n} --db ${opts.db} --iterations ${opts.iterations} --profile <dir>${opts.only ? ` --only ${opts.only}` : ''}\`: the same run as above with the server under \`node --cpu-prof --cpu-prof-interval=100\` (a sample every 100 µs, which slows it a little); the profile is cut to the timed requests of each path (the client and V8 read the same monotonic clock).
Machine: ${machine()}.
${summaryTable}
${parts.join('\n')}`;
}
