/** The backup file format (domain/backupFormat.ts): read back whole however it is cut into chunks; damage and truncation refused. */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { BACKUP_FORMAT, BackupFormatError, BackupScanner, endLine, headerLine, sectionLine, type ScanEvent } from '../../src/domain/backupFormat.js';

const header = { format: BACKUP_FORMAT, formatVersion: 1, propgraph: '0.2.0', migrations: ['a', 'b'], postgres: '17.10', createdOn: '2026-11-27T00:00:00.000Z' } as const;

/** A backup of the given tables' COPY rows (each row already escaped, without its newline). */
function backup(tables: Record<string, string[]>, tamper: (sha: string) => string = (s) => s): Buffer {
  let body = headerLine(header);
  for (const [table, rows] of Object.entries(tables)) body += sectionLine({ table, columns: ['c'] }) + rows.map((r) => `${r}\n`).join('') + '\\.\n';
  const sha256 = createHash('sha256').update(body).digest('hex');
  const counts = Object.fromEntries(Object.entries(tables).map(([t, rows]) => [t, rows.length]));
  return Buffer.from(body + endLine({ tables: counts, sequences: {}, sha256: tamper(sha256) }));
}

function scan(file: Buffer, cuts: number[]): { events: ScanEvent[]; rows: Record<string, string> } {
  const scanner = new BackupScanner();
  const events: ScanEvent[] = [];
  let at = 0;
  for (const cut of [...cuts.filter((c) => c > 0 && c < file.length)].sort((a, b) => a - b).concat(file.length)) {
    events.push(...scanner.push(file.subarray(at, cut)));
    at = cut;
  }
  scanner.finish();
  const rows: Record<string, string> = {};
  for (const e of events) if (e.kind === 'rows') rows[e.table] = (rows[e.table] ?? '') + e.data.toString('utf8');
  return { events, rows };
}

const tables = { entity: ['a\\tb', 'line\\nbreak', 'back\\\\slash', '\\\\.'], aspect: [], job: ['x'] };

test('every row comes back exactly, in its table, however the file is cut into chunks', () => {
  const file = backup(tables);
  fc.assert(
    fc.property(fc.array(fc.integer({ min: 0, max: file.length }), { maxLength: 12 }), (cuts) => {
      const { events, rows } = scan(file, cuts);
      expect(rows).toEqual({ entity: tables.entity.map((r) => `${r}\n`).join(''), job: 'x\n' });
      expect(events.filter((e) => e.kind === 'sectionEnd').map((e) => [e.kind === 'sectionEnd' && e.table, e.kind === 'sectionEnd' && e.rows])).toEqual([
        ['entity', 4],
        ['aspect', 0],
        ['job', 1],
      ]);
      const end = events.find((e) => e.kind === 'end');
      expect(end?.kind === 'end' && end.manifest).toMatchObject({ propgraph: '0.2.0', migrations: ['a', 'b'], tables: { entity: 4, aspect: 0, job: 1 } });
    }),
  );
});

test('a file cut short is refused, naming where it ends', () => {
  const file = backup(tables);
  const scanner = new BackupScanner();
  scanner.push(file.subarray(0, file.indexOf('x\n')));
  expect(() => scanner.finish()).toThrow(new BackupFormatError('the backup is incomplete: it ends inside the rows of job without its end line (a download or a dump cut short?)'));
});

test('a changed byte fails the checksum; a recorded count that differs is refused', () => {
  const file = backup(tables);
  const damaged = Buffer.from(file);
  damaged[damaged.indexOf('line')] = 'L'.charCodeAt(0);
  expect(() => scan(damaged, [])).toThrow(/checksum does not match/);
  const wrongSha = backup(tables, () => '0'.repeat(64));
  expect(() => scan(wrongSha, [])).toThrow(/checksum does not match/);
});

test('something that is not a backup, or of another format version, is refused at its first line', () => {
  expect(() => new BackupScanner().push(Buffer.from('hello\n'))).toThrow(BackupFormatError);
  expect(() => new BackupScanner().push(Buffer.from(`${JSON.stringify({ header: { ...header, formatVersion: 2 } })}\n`))).toThrow(/format version 2 is not one this propgraph reads/);
});
