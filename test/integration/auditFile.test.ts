/**
 * Audit lines to a file operators keep (docs/operations.md, "Audit file"): with
 * AUDIT_LOG_FILE set, every audit line also goes to that file as a JSON line, and no
 * other line does; the file is rotated past AUDIT_LOG_MAX_SIZE as logrotate would
 * (audit.log.1 the newest rotated one), keeping AUDIT_LOG_FILES of them; the log keeps
 * every line as before; the lines written before a SIGTERM are in the file when the
 * server has exited. Bad settings stop the start with a message naming the variable.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pino } from 'pino';
import { ConfigError, loadConfig } from '../../src/platform/config.js';
import { createLogger } from '../../src/platform/logger.js';
import { AuditTrail } from '../../src/services/audit.js';
import { startBuiltServer, buildOnce } from '../support/builtServer.js';
import { http } from '../support/http.js';
import { tempDir } from '../support/tempDir.js';
import { waitFor } from '../support/waitFor.js';
import { expectEvery, nonEmpty } from '../support/nonEmpty.js';

const V3 = '/openapi/v3';
const TOKEN = 'audit-file-root-token-0123456789abcdef';

function fileLines(file: string): Array<Record<string, any>> {
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, any>) : [];
}

test('the settings: a file, its size and count of rotated files; bad values name the variable', () => {
  expect(loadConfig({}).auditLog).toBeUndefined();
  expect(loadConfig({ AUDIT_LOG_FILE: 'logs/audit.log', AUDIT_LOG_MAX_SIZE: '1MiB', AUDIT_LOG_FILES: '3' }).auditLog).toEqual({ file: path.resolve('logs/audit.log'), maxBytes: 1024 ** 2, files: 3 });
  expect(loadConfig({ AUDIT_LOG_FILE: '/var/log/propgraph/audit.log' }).auditLog).toEqual({ file: '/var/log/propgraph/audit.log', maxBytes: 10 * 1024 ** 2, files: 10 });
  expect(() => loadConfig({ AUDIT_LOG_FILES: '3' })).toThrow(ConfigError);
  expect(() => loadConfig({ AUDIT_LOG_FILES: '3' })).toThrow(/AUDIT_LOG_FILES set without AUDIT_LOG_FILE/);
  expect(() => loadConfig({ AUDIT_LOG_FILE: 'a.log', AUDIT_LOG_FILES: '0' })).toThrow(/AUDIT_LOG_FILES must be an integer >= 1/);
  expect(() => loadConfig({ AUDIT_LOG_FILE: 'a.log', AUDIT_LOG_MAX_SIZE: 'big' })).toThrow(/AUDIT_LOG_MAX_SIZE must be a size/);
});

test('audit lines, and only they, go to the file, rotated past its size with a bounded number kept; the log keeps them all', async () => {
  const dir = tempDir('propgraph-audit-');
  const file = path.join(dir, 'audit.log');
  const logged: string[] = [];
  const log = createLogger('info', 'json', { write: (line: string) => void logged.push(line) }, { file, maxBytes: 2048, files: 2 });
  const audit = new AuditTrail(log);
  const total = 60;
  // One at a time, as a server's acts come: the file is checked (and rotated) after each write.
  for (let i = 0; i < total; i++) {
    log.info({ access: { method: 'GET', route: '/x', status: 200 } }, `GET /x ${i}`);
    audit.record({ action: 'token.create', actor: 'urn:li:corpuser:ops', target: `token name t${i}`, outcome: 'done' });
    // A line that passed the size is in the newest rotated file once the rotation ran.
    const written = () => [file, `${file}.1`].flatMap(fileLines).some((l) => l.audit.target === `token name t${i}`);
    await waitFor(`audit line ${i} in the files`, 30_000, async () => (written() ? true : undefined), 5);
  }
  expect(logged.filter((l) => l.includes('"audit":')).length).toBe(total);
  expect(logged.filter((l) => l.includes('"access":')).length).toBe(total);
  expect(readdirSync(dir).sort()).toEqual(['audit.log', 'audit.log.1', 'audit.log.2']);
  const kept = [`${file}.2`, `${file}.1`, file].flatMap(fileLines);
  expectEvery(kept, (l) => l.audit?.action === 'token.create' && l.access === undefined);
  // Oldest first across the files, ending with the newest line; the oldest were rotated away.
  const numbers = kept.map((l) => Number(String(l.audit.target).slice('token name t'.length)));
  expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
  expect(numbers.at(-1)).toBe(total - 1);
  expect(numbers.length).toBeLessThan(total);
  for (const f of nonEmpty(readdirSync(dir))) expect(readFileSync(path.join(dir, f)).length).toBeLessThanOrEqual(2048 + 512);
  (log as unknown as Record<symbol, { end(): void }>)[pino.symbols.streamSym]!.end();
});

test("the file's folder is made if missing; a file that cannot be written stops the start naming it", () => {
  const dir = tempDir('propgraph-audit-dir-');
  const nested = path.join(dir, 'audit', 'trail', 'audit.log');
  createLogger('info', 'json', { write: () => undefined }, { file: nested, maxBytes: 4096, files: 1 });
  expect(existsSync(nested)).toBe(true);
  const blocked = path.join(nested, 'below-a-file.log');
  expect(() => createLogger('info', 'json', { write: () => undefined }, { file: blocked, maxBytes: 4096, files: 1 })).toThrow(`AUDIT_LOG_FILE ${blocked} cannot be written`);
});

test('the server writes its audit lines to AUDIT_LOG_FILE, and they are there once a SIGTERM has stopped it', async () => {
  await buildOnce();
  const dir = tempDir('propgraph-audit-server-');
  const file = path.join(dir, 'audit.log');
  const server = await startBuiltServer({ AUTH_ENABLED: 'true', ROOT_TOKEN: TOKEN, DATA_DIR: path.join(dir, 'data'), MEILI_EMBEDDED: 'false', AUDIT_LOG_FILE: file });
  try {
    const auth = { authorization: `Bearer ${TOKEN}` };
    const created = await http(server.url, 'POST', `${V3}/tokens`, { headers: auth, json: { name: 'audit-file', scope: 'read' } });
    expect(created.status).toBe(200);
    const id = created.body.metadata.id as string;
    expect((await http(server.url, 'DELETE', `${V3}/tokens/${id}`, { headers: auth })).status).toBe(200);
  } finally {
    server.child.kill('SIGTERM');
  }
  expect(await server.exited).toBe(0);
  const inFile = fileLines(file).map((l) => ({ action: l.audit.action, target: l.audit.target, outcome: l.audit.outcome }));
  expect(inFile).toEqual([
    { action: 'token.create', target: 'token name audit-file', outcome: 'done' },
    { action: 'token.revoke', target: expect.stringMatching(/^token /), outcome: 'done' },
  ]);
  // The log has them too, beside every other line.
  const logged = server.output.join('').split('\n').filter((l) => l.includes('"audit":{'));
  expect(logged).toHaveLength(2);
}, 180_000);
