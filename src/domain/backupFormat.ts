/**
 * The backup file (docs/operations.md, "Backup, restore and move"), gzip-compressed:
 *
 *   {"header":{format, formatVersion, propgraph, migrations, postgres, createdOn}}
 *   {"table":"entity","columns":["urn",...]}
 *   <the table's rows in PostgreSQL's COPY text format, one line per row>
 *   \.
 *   ... one such section per table, parents before children ...
 *   {"end":{tables: {name: rows}, sequences: {table.column: value}, sha256}}
 *
 * `sha256` covers every byte before the end line. A COPY text row never reads `\.`
 * (a backslash in a value is written `\\`), so that line ends a section unambiguously,
 * as in pg_dump's plain format. The scanner below reads the format a chunk at a time,
 * for the server's restore and the CLI's check of what it downloaded alike.
 */
import { createHash, type Hash } from 'node:crypto';

export const BACKUP_FORMAT = 'propgraph-backup';
export const BACKUP_FORMAT_VERSION = 1;
export const SECTION_END = '\\.';

export interface BackupHeader {
  readonly format: typeof BACKUP_FORMAT;
  readonly formatVersion: number;
  /** The propgraph version that took the backup. */
  readonly propgraph: string;
  /** The migrations applied to the database it was taken from, in order. */
  readonly migrations: readonly string[];
  /** That database's server version. */
  readonly postgres: string;
  readonly createdOn: string;
}

export interface BackupSection {
  readonly table: string;
  readonly columns: readonly string[];
}

export interface BackupTrailer {
  /** Rows per table. */
  readonly tables: Readonly<Record<string, number>>;
  /** Each serial column's sequence (`table.column`) as it stood: a restore continues past it. */
  readonly sequences: Readonly<Record<string, string>>;
  readonly sha256: string;
}

export type BackupManifest = BackupHeader & BackupTrailer;

/** The file is not a whole, intact backup; the message says what is wrong. */
export class BackupFormatError extends Error {}

export function headerLine(header: BackupHeader): string {
  return `${JSON.stringify({ header })}\n`;
}

export function sectionLine(section: BackupSection): string {
  return `${JSON.stringify(section)}\n`;
}

export function endLine(trailer: BackupTrailer): string {
  return `${JSON.stringify({ end: trailer })}\n`;
}

export type ScanEvent =
  | { readonly kind: 'header'; readonly header: BackupHeader }
  | { readonly kind: 'section'; readonly section: BackupSection }
  /** Whole rows of the current section (COPY text, each ending in a newline). */
  | { readonly kind: 'rows'; readonly table: string; readonly data: Buffer; readonly count: number }
  | { readonly kind: 'sectionEnd'; readonly table: string; readonly rows: number }
  | { readonly kind: 'end'; readonly manifest: BackupManifest };

const NEWLINE = 0x0a;

function parseJsonLine(line: Buffer, what: string): Record<string, unknown> {
  try {
    const value = JSON.parse(line.toString('utf8')) as unknown;
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // Reported below.
  }
  throw new BackupFormatError(`expected ${what}, found ${JSON.stringify(line.subarray(0, 80).toString('utf8'))}`);
}

/**
 * Reads a backup (uncompressed) chunk by chunk: `push` returns the events the chunk
 * completes, `finish` checks that the file ended with an end line whose counts and
 * checksum match what was read, and returns the manifest.
 */
export class BackupScanner {
  private readonly hash: Hash = createHash('sha256');
  private pending: Buffer = Buffer.alloc(0);
  private header: BackupHeader | undefined;
  private section: BackupSection | undefined;
  private sectionRows = 0;
  private readonly counts: Record<string, number> = {};
  private manifest: BackupManifest | undefined;

  push(chunk: Buffer): ScanEvent[] {
    if (this.manifest) {
      if (chunk.some((b) => b !== NEWLINE)) throw new BackupFormatError('data after the end line');
      return [];
    }
    const data = this.pending.length > 0 ? Buffer.concat([this.pending, chunk]) : chunk;
    const events: ScanEvent[] = [];
    let at = 0;
    while (at < data.length && !this.manifest) {
      if (this.section) {
        // Inside a section: pass whole rows through in one slice, up to the end marker.
        const start = at;
        let rows = 0;
        let ended = false;
        for (;;) {
          const nl = data.indexOf(NEWLINE, at);
          if (nl < 0) break;
          if (nl - at === 2 && data[at] === 0x5c && data[at + 1] === 0x2e) {
            ended = true;
            if (at > start) this.emitRows(events, data.subarray(start, at), rows);
            this.hash.update(data.subarray(start, nl + 1));
            at = nl + 1;
            break;
          }
          rows++;
          at = nl + 1;
        }
        if (!ended) {
          if (at > start) {
            this.emitRows(events, data.subarray(start, at), rows);
            this.hash.update(data.subarray(start, at));
          }
          break;
        }
        const table = this.section.table;
        this.counts[table] = this.sectionRows;
        events.push({ kind: 'sectionEnd', table, rows: this.sectionRows });
        this.section = undefined;
        continue;
      }
      const nl = data.indexOf(NEWLINE, at);
      if (nl < 0) break;
      const line = data.subarray(at, nl);
      at = nl + 1;
      if (line.length === 0) continue;
      if (!this.header) {
        const parsed = parseJsonLine(line, 'a propgraph backup header');
        const header = parsed.header as BackupHeader | undefined;
        if (!header || header.format !== BACKUP_FORMAT) throw new BackupFormatError('this is not a propgraph backup (no header line)');
        if (header.formatVersion !== BACKUP_FORMAT_VERSION) {
          throw new BackupFormatError(`backup format version ${header.formatVersion} is not one this propgraph reads (${BACKUP_FORMAT_VERSION}); restore it with propgraph ${header.propgraph} or later`);
        }
        this.header = header;
        this.hash.update(line).update('\n');
        events.push({ kind: 'header', header });
        continue;
      }
      const parsed = parseJsonLine(line, 'a table section or the end line');
      if (parsed.end) {
        this.manifest = this.check(parsed.end as BackupTrailer);
        events.push({ kind: 'end', manifest: this.manifest });
        if (data.subarray(at).some((b) => b !== NEWLINE)) throw new BackupFormatError('data after the end line');
        at = data.length;
        continue;
      }
      if (typeof parsed.table !== 'string' || !Array.isArray(parsed.columns)) throw new BackupFormatError(`expected a table section, found ${JSON.stringify(parsed).slice(0, 80)}`);
      this.section = { table: parsed.table, columns: parsed.columns as string[] };
      this.sectionRows = 0;
      this.hash.update(line).update('\n');
      events.push({ kind: 'section', section: this.section });
    }
    this.pending = Buffer.from(data.subarray(at));
    return events;
  }

  finish(): BackupManifest {
    if (!this.manifest) {
      const where = this.section ? ` inside the rows of ${this.section.table}` : '';
      throw new BackupFormatError(`the backup is incomplete: it ends${where} without its end line (a download or a dump cut short?)`);
    }
    return this.manifest;
  }

  private emitRows(events: ScanEvent[], data: Buffer, count: number): void {
    this.sectionRows += count;
    events.push({ kind: 'rows', table: this.section!.table, data, count });
  }

  private check(trailer: BackupTrailer): BackupManifest {
    const sha256 = this.hash.digest('hex');
    if (trailer.sha256 !== sha256) throw new BackupFormatError(`the backup's checksum does not match its content (sha256 ${sha256}, recorded ${trailer.sha256}): it is damaged`);
    for (const [table, rows] of Object.entries(trailer.tables)) {
      if ((this.counts[table] ?? -1) !== rows) throw new BackupFormatError(`the backup records ${rows} rows of ${table} but holds ${this.counts[table] ?? 'none'}`);
    }
    return { ...this.header!, ...trailer };
  }
}
