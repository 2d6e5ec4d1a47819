// Benchmark 1 (issue #9): value writes over REST v3 (POST structuredProperties, 32
// concurrent clients, PostgreSQL) against raw Prisma upserts of the same rows, in the
// same run. Options: --ops N (per round, default 10000), --rounds R (default 3),
// --concurrency C (default 32), --datasets D (default 2000).
import { parseArgs } from 'node:util';
import path from 'node:path';
import pg from 'pg';
import { PrismaPg } from '@prisma/adapter-pg';
import { aspectWriteStatements, json, load, machine, median, ROOT, round, startPostgres, startServer, writeSection } from './support.mjs';

const PROPS = ['io.bench.retention', 'io.bench.tier', 'io.bench.owner'];
const urnOf = (qn) => `urn:li:structuredProperty:${qn}`;
const datasetUrn = (i) => `urn:li:dataset:(urn:li:dataPlatform:hive,bench.t${i},PROD)`;

function valuesFor(i) {
  return {
    properties: [
      { propertyUrn: urnOf(PROPS[0]), values: [{ double: (i % 365) + 1 }] },
      { propertyUrn: urnOf(PROPS[1]), values: [{ string: ['gold', 'silver', 'bronze'][i % 3] }] },
      { propertyUrn: urnOf(PROPS[2]), values: [{ string: `team-${i % 50}` }] },
    ],
  };
}

export async function run(argv) {
  const { values: opts } = parseArgs({ args: argv, options: { ops: { type: 'string', default: '10000' }, rounds: { type: 'string', default: '3' }, concurrency: { type: 'string', default: '32' }, datasets: { type: 'string', default: '2000' } } });
  const ops = Number(opts.ops);
  const rounds = Number(opts.rounds);
  const concurrency = Number(opts.concurrency);
  const datasets = Number(opts.datasets);

  const postgres = await startPostgres();
  const server = await startServer({ DATABASE_URL: postgres.url, DATABASE_POOL_SIZE: '20', LOG_LEVEL: 'info' });
  const v3 = `${server.url}/openapi/v3`;
  const pool = new pg.Pool({ connectionString: postgres.url, max: 20 });
  const { PrismaClient } = await import(path.join(ROOT, 'dist/store/generated/prisma/client.js'));
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
  try {
    for (const [i, qn] of PROPS.entries()) {
      await json(`${v3}/entity/structuredProperty/${encodeURIComponent(urnOf(qn))}/propertyDefinition?createIfNotExists=false`, 'POST', {
        value: { qualifiedName: qn, valueType: i === 0 ? 'urn:li:dataType:svc.number' : 'urn:li:dataType:svc.string', entityTypes: ['urn:li:entityType:svc.dataset'] },
      });
    }
    for (let start = 0; start < datasets; start += 500) {
      const batch = Array.from({ length: Math.min(500, datasets - start) }, (_, k) => ({ urn: datasetUrn(start + k), status: { value: { removed: false } } }));
      await json(`${v3}/entity/dataset?async=true`, 'POST', batch);
    }
    // Warm up both paths.
    await load(500, concurrency, (i) => json(`${v3}/entity/dataset/${encodeURIComponent(datasetUrn(i % datasets))}/structuredProperties?createIfNotExists=false&async=true`, 'POST', { value: valuesFor(i) }));
    const upsert = (i) => {
      const urn = datasetUrn(i % datasets);
      const metadata = valuesFor(i);
      return prisma.aspect.upsert({
        where: { urn_aspect_version: { urn, aspect: 'structuredProperties', version: 0n } },
        create: { urn, aspect: 'structuredProperties', version: 0n, metadata, systemMetadata: {}, createdBy: 'bench' },
        update: { metadata },
      });
    };
    await load(500, concurrency, upsert);
    // The same rows a REST write produces, written with Prisma's client in one
    // transaction: the new latest aspect, its history row, the entity's version, a
    // change-log row and the three property-value index rows.
    let historyVersion = 1_000_000n;
    const sameRows = (i) => {
      const urn = datasetUrn(i % datasets);
      const metadata = valuesFor(i);
      const version = historyVersion++;
      return prisma.$transaction([
        ...aspectWriteStatements(prisma, { urn, metadata, version }),
        ...metadata.properties.map((p) =>
          prisma.propertyValue.upsert({
            where: { entityUrn_propertyUrn: { entityUrn: urn, propertyUrn: p.propertyUrn } },
            create: { entityUrn: urn, propertyUrn: p.propertyUrn, entityType: 'dataset', generation: 1n, values: p.values },
            update: { values: p.values },
          }),
        ),
      ]);
    };
    await load(500, concurrency, sameRows);

    const service = [];
    const raw = [];
    const rawSame = [];
    for (let r = 0; r < rounds; r++) {
      const s = await load(ops, concurrency, (i) =>
        json(`${v3}/entity/dataset/${encodeURIComponent(datasetUrn(i % datasets))}/structuredProperties?createIfNotExists=false&async=true`, 'POST', { value: valuesFor(i + r) }));
      const b = await load(ops, concurrency, (i) => upsert(i + r));
      const c = await load(ops, concurrency, (i) => sameRows(i + r));
      service.push(s);
      raw.push(b);
      rawSame.push(c);
      console.log(`round ${r + 1}: REST ${round(s.opsPerSecond)} ops/s (p99 ${round(s.p99)} ms), raw Prisma same rows ${round(c.opsPerSecond)} ops/s (p99 ${round(c.p99)} ms), raw Prisma one upsert ${round(b.opsPerSecond)} ops/s (p99 ${round(b.p99)} ms)`);
    }
    const m = (xs, k) => median(xs.map((x) => x[k]));
    const ratio = m(service, 'opsPerSecond') / m(rawSame, 'opsPerSecond');
    const floorRatio = m(service, 'opsPerSecond') / m(raw, 'opsPerSecond');
    const table = `
Command: \`npm run bench -- writes --ops ${ops} --rounds ${rounds} --concurrency ${concurrency} --datasets ${datasets}\`
Machine: ${machine()}. PostgreSQL 15 (throwaway cluster, fsync off), server as a child process (\`node dist/main.js\`, pool 20), load generator in the benchmark process.

Each REST write is \`POST /openapi/v3/entity/dataset/{urn}/structuredProperties\` replacing 3 values (number, 2 strings) with full validation, history version, value index and change log in one transaction. Two baselines, same concurrency, same run, rounds interleaved with the REST rounds: **raw Prisma, same rows** writes the rows a REST write produces (latest aspect, history row, entity version, change-log row, 3 value-index rows) with Prisma's client in one \`$transaction\`; **raw Prisma, one upsert** is a single \`prisma.aspect.upsert\` of the aspect row alone, the floor no write with history and an index can reach. Medians of ${rounds} rounds of ${ops} writes. REST can beat the same-rows baseline: the service reads once and writes all rows in one guarded statement (two round trips), where the Prisma transaction makes nine (BEGIN, seven statements, COMMIT).

| | throughput (ops/s) | p50 (ms) | p99 (ms) | REST / this |
|---|---|---|---|---|
| REST v3 write | ${round(m(service, 'opsPerSecond'))} | ${round(m(service, 'p50'), 2)} | ${round(m(service, 'p99'), 2)} | |
| raw Prisma, same rows | ${round(m(rawSame, 'opsPerSecond'))} | ${round(m(rawSame, 'p50'), 2)} | ${round(m(rawSame, 'p99'), 2)} | **${round(ratio * 100)}%** (target ≥ 50%) |
| raw Prisma, one upsert | ${round(m(raw, 'opsPerSecond'))} | ${round(m(raw, 'p50'), 2)} | ${round(m(raw, 'p99'), 2)} | ${round(floorRatio * 100)}% |
`;
    console.log(table);
    writeSection('1. Value writes over REST v3 vs raw Prisma', table);
  } finally {
    await prisma.$disconnect();
    await pool.end();
    await server.stop();
    await postgres.stop();
  }
}
