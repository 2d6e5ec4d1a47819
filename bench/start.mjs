// `npm run bench -- start [--rounds 10]`: the server's start as `npm start` runs it (node
// with the start script's flags, the embedded engines on one data directory made by a
// first start), from its bundle (dist/main.js, which runs dist/bundle as `npm run build`
// leaves it) and from tsc's modules (dist/boot/start.js, what main.js runs when tsc has
// compiled after the bundle), taking turns. Each start is timed until /health answers ok,
// with the node process's CPU time and resident set read from /proc at that moment.
// Written to BENCHMARKS.md, "Start: the server from its bundle".
import { rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { machine, median, round, SERVER_SCRIPTS, writeSection } from './support.mjs';
import { cpuOfTree, memoryOfTree, startAsUser, startFlags, tempDataDir } from './outsideServer.mjs';

async function once(env, from) {
  const server = await startAsUser(env, { script: SERVER_SCRIPTS[from] });
  const pid = server.child.pid;
  const figures = { cpuMs: cpuOfTree(pid).get('node (server)'), rssMb: memoryOfTree(pid).get('node (server)').rss };
  const code = server.lines.find((l) => l.msg === 'propgraph listening')?.code;
  await server.stop();
  return { readyMs: server.readyMs, ...figures, code };
}

export async function run(args) {
  const { values } = parseArgs({ args, options: { rounds: { type: 'string', default: '10' } } });
  const rounds = Number(values.rounds);
  const dataDir = tempDataDir('start');
  const env = { DATA_DIR: dataDir };
  const runs = { bundle: [], tsc: [] };
  try {
    // The first start initialises the cluster and the index; it is not timed.
    await (await startAsUser(env)).stop();
    for (let i = 0; i < rounds; i++) {
      for (const from of i % 2 === 0 ? ['bundle', 'tsc'] : ['tsc', 'bundle']) {
        const r = await once(env, from);
        if (r.code !== from) throw new Error(`asked for the ${from} start, the server says it runs ${r.code}`);
        runs[from].push(r);
        console.log(`${from.padEnd(6)} healthy after ${round(r.readyMs)} ms, CPU ${round(r.cpuMs)} ms, RSS ${round(r.rssMb)} MB`);
      }
    }
  } finally {
    rmSync(path.dirname(dataDir), { recursive: true, force: true });
  }
  const med = (from, key) => median(runs[from].map((r) => r[key]));
  const row = (label, key, unit, d) => `| ${label} | ${round(med('bundle', key), d)} ${unit} | ${round(med('tsc', key), d)} ${unit} | ${round(med('bundle', key) / med('tsc', key), 2)} |`;
  writeSection(
    'Start: the server from its bundle',
    `Command: \`npm run bench -- start --rounds ${rounds}\`, ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC. Machine: ${machine()}; 1-minute load average ${round(loadavg()[0], 1)} at the end. The server as \`npm start\` runs it (\`node ${startFlags().join(' ')} dist/main.js\`, the embedded PostgreSQL and Meilisearch on one data directory, started once before the rounds), ${rounds} starts from the bundle (dist/main.js running dist/bundle, as \`npm run build\` leaves it) and ${rounds} from tsc's modules (\`dist/boot/start.js\`, what main.js runs when tsc has compiled after the bundle), taking turns. Each until \`/health\` answers ok; the node process's CPU time (user and system, with any children it reaped) and resident set read from /proc at that moment (bench/outsideServer.mjs, cpuOfTree and memoryOfTree). Medians.

| Start | from the bundle | from tsc's modules | ratio |
|---|---|---|---|
${row('until healthy', 'readyMs', 'ms', 0)}
${row('node CPU until healthy', 'cpuMs', 'ms', 0)}
${row('node resident set when healthy', 'rssMb', 'MB', 1)}`,
  );
}
