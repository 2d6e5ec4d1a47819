// What each search index setting costs the index on disk and in indexing time (issue #44,
// "a million in 4 GB"). One server as `npm start` runs it (embedded engines) loads --n
// datasets (default 50,000: three property values and five schema fields each, as the
// other benchmarks') over REST; then the dataset index's documents, exactly as the server
// built them, go into fresh indexes of the same Meilisearch, one per variant of the shipped
// settings (src/search/settings.ts): as shipped, with the document id filterable as before
// 2026-12-07, and without each filterable attribute the documents hold, one at a time.
// Each variant: the index directory's size (`du`) and the time its documents took to index
// (batches of 10,000). A variant that drops what a filter needs is a measure, not a
// proposal: the settings say why each attribute is there.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { PROPS, propertyUrn } from './outsideData.mjs';
import { bulkLoad, countSearchable, sleep, startAsUser, tempDataDir } from './outsideServer.mjs';
import { machine, request, round, writeSection } from './support.mjs';

const kib = (dir) => Number(execFileSync('du', ['-sk', dir]).toString().split('\t')[0]);

export async function run(argv) {
  const { values } = parseArgs({ args: argv, options: { n: { type: 'string', default: '50000' } } });
  const n = Number(values.n);
  const { INDEX_SETTINGS } = await import('../dist/search/settings.js');
  const dataDir = tempDataDir('isize');
  const server = await startAsUser({ DATA_DIR: dataDir, RATE_LIMIT_PER_MINUTE: '100000000' });
  const rows = [];
  try {
    const token = readFileSync(path.join(dataDir, 'root-token'), 'utf8').trim();
    const key = readFileSync(path.join(dataDir, 'meili', 'master-key'), 'utf8').trim();
    const api = { post: (p, b) => request(server.url + p, 'POST', b, token) };
    for (const [qn, type] of PROPS) {
      await api.post(`/openapi/v3/entity/structuredProperty/${encodeURIComponent(propertyUrn(qn))}/propertyDefinition?createIfNotExists=false`, {
        value: { qualifiedName: qn, valueType: `urn:li:dataType:svc.${type}`, entityTypes: ['urn:li:entityType:svc.dataset'], cardinality: 'SINGLE' },
      });
    }
    await bulkLoad(api, { to: n, prefix: 'bench' });
    while ((await countSearchable(api)) < n) await sleep(500);
    const meili = (method, p, body) => request(server.meiliUrl + p, method, body, key);
    const finished = async ({ taskUid }) => {
      for (;;) {
        const task = await meili('GET', `/tasks/${taskUid}`);
        if (task.status === 'succeeded') return task;
        if (task.status === 'failed') throw new Error(JSON.stringify(task.error));
        await sleep(100);
      }
    };
    const datasets = (await meili('GET', '/indexes?limit=1000')).results.map((i) => i.uid).find((uid) => uid.includes('dataset'));
    // The documents as stored, every field (the shipped settings show only what a hit needs).
    await finished(await meili('PUT', `/indexes/${datasets}/settings/displayed-attributes`, ['*']));
    const docs = [];
    for (let offset = 0; ; offset += 1000) {
      const page = await meili('POST', `/indexes/${datasets}/documents/fetch`, { offset, limit: 1000 });
      docs.push(...page.results);
      if (page.results.length < 1000) break;
    }
    await finished(await meili('PUT', `/indexes/${datasets}/settings/displayed-attributes`, INDEX_SETTINGS.displayedAttributes));
    const held = new Set(docs.flatMap((d) => Object.keys(d)).flatMap((k) => (k === 'sp' ? ['sp.*'] : [k])));
    const [filterable] = INDEX_SETTINGS.filterableAttributes;
    const withPatterns = (patterns) => ({ ...INDEX_SETTINGS, filterableAttributes: [{ ...filterable, attributePatterns: patterns }] });
    const variants = [
      ['as shipped', INDEX_SETTINGS],
      ['the document id filterable too (before 2026-12-07)', withPatterns([...filterable.attributePatterns, 'id'].sort())],
      ...filterable.attributePatterns.filter((a) => held.has(a)).map((a) => [`without \`${a}\` filterable`, withPatterns(filterable.attributePatterns.filter((p) => p !== a))]),
      ['without typo tolerance', { ...INDEX_SETTINGS, typoTolerance: { enabled: false } }],
    ];
    const indexes = path.join(dataDir, 'meili', 'data.ms', 'indexes');
    for (const [name, settings] of variants) {
      const before = new Set(readdirSync(indexes));
      const uid = `bench_size_${rows.length}`;
      await finished(await meili('POST', '/indexes', { uid, primaryKey: 'id' }));
      await finished(await meili('PATCH', `/indexes/${uid}/settings`, settings));
      const t = performance.now();
      for (let i = 0; i < docs.length; i += 10_000) await finished(await meili('POST', `/indexes/${uid}/documents`, docs.slice(i, i + 10_000)));
      const seconds = (performance.now() - t) / 1000;
      const dir = readdirSync(indexes).find((d) => !before.has(d));
      rows.push({ name, kib: kib(path.join(indexes, dir)), seconds });
      console.log(`${name}: ${rows.at(-1).kib} KiB, indexed in ${round(seconds)} s`);
      await finished(await meili('DELETE', `/indexes/${uid}`));
    }
    const shipped = rows[0];
    const body = [
      `Command: \`npm run bench -- indexSize --n ${n}\`. Machine: ${machine()}. ${n.toLocaleString('en-US')} datasets loaded over REST into a server started as \`npm start\` starts it; their documents, as the server built them (${round(docs.reduce((s, d) => s + JSON.stringify(d).length, 0) / docs.length)} bytes of JSON each), then indexed again into a fresh index of the same Meilisearch per variant of src/search/settings.ts, in batches of 10,000. Size: the index directory on disk (\`du\`).`,
      '',
      '| Settings | index on disk | per dataset | against as shipped | indexing time |',
      '|---|---|---|---|---|',
      ...rows.map((r) => `| ${r.name} | ${round(r.kib / 1024)} MiB | ${Math.round((r.kib * 1024) / n).toLocaleString('en-US')} B | ${r === shipped ? '' : `${r.kib >= shipped.kib ? '+' : ''}${round(((r.kib - shipped.kib) / shipped.kib) * 100)}%`} | ${round(r.seconds)} s |`),
    ].join('\n');
    writeSection('What each index setting costs', body);
  } finally {
    await server.stop();
  }
}
