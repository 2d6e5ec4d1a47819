/**
 * A consistent snapshot of the database while it serves, the way pg_dump takes one:
 * one REPEATABLE READ, READ ONLY transaction (every table as of one moment; writers are
 * never blocked), each table sent with `COPY ... TO STDOUT` in PostgreSQL's text
 * format, in the file format of domain/backupFormat.ts. pg_dump itself is not used: the
 * npm PostgreSQL packages ship only initdb, pg_ctl and postgres, and an older pg_dump
 * cannot dump a newer server (docs/decisions.md, "Backups over the driver").
 */
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { open } from 'node:fs/promises';
import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { BACKUP_FORMAT, BACKUP_FORMAT_VERSION, endLine, headerLine, SECTION_END, sectionLine, type BackupHeader, type BackupManifest } from '../../domain/backupFormat.js';
import { appliedMigrations, quoteIdent, schemaTables } from './tables.js';

export interface DumpProgress {
  readonly table: string;
  /** Rows of this table written so far. */
  readonly rows: number;
}

/**
 * Starts the snapshot on `client` (its transaction begins now) and returns the header;
 * `write` then streams it. When `write` fails, the connection is unusable: end it (or
 * release it to its pool as broken).
 */
export async function beginDump(client: pg.ClientBase, appVersion: string): Promise<{ header: BackupHeader; write: (out: Writable, onProgress?: (p: DumpProgress) => void) => Promise<BackupManifest> }> {
  await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY');
  let header: BackupHeader;
  try {
    // Values written the same whatever the server's or the session's settings (as pg_dump sets them).
    await client.query("SET LOCAL DateStyle = 'ISO'; SET LOCAL IntervalStyle = 'postgres'; SET LOCAL TimeZone = 'UTC'; SET LOCAL extra_float_digits = 3");
    const version = await client.query<{ server_version: string }>('SHOW server_version');
    header = {
      format: BACKUP_FORMAT,
      formatVersion: BACKUP_FORMAT_VERSION,
      propgraph: appVersion,
      migrations: await appliedMigrations(client),
      postgres: version.rows[0]!.server_version,
      createdOn: new Date().toISOString(),
    };
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
  return {
    header,
    // A failure part-way (the reader went away mid-COPY) leaves the connection inside a COPY
    // that a ROLLBACK would queue behind for good: the caller discards the connection
    // instead, and its session's end rolls the snapshot back (issue #46 item 7).
    write: async (out, onProgress) => {
      const manifest = await writeSnapshot(client, header, out, onProgress);
      await client.query('COMMIT');
      return manifest;
    },
  };
}

async function writeSnapshot(client: pg.ClientBase, header: BackupHeader, out: Writable, onProgress?: (p: DumpProgress) => void): Promise<BackupManifest> {
  const hash = createHash('sha256');
  const write = async (chunk: Buffer | string) => {
    hash.update(chunk);
    if (!out.write(chunk)) await drained(out);
  };
  await write(headerLine(header));
  const tables: Record<string, number> = {};
  const sequences: Record<string, string> = {};
  for (const shape of await schemaTables(client)) {
    await write(sectionLine({ table: shape.table, columns: shape.columns }));
    let rows = 0;
    let reported = 0;
    const stream = client.query(copyTo(`COPY ${quoteIdent(shape.table)} (${shape.columns.map(quoteIdent).join(', ')}) TO STDOUT`));
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      for (let i = chunk.indexOf(0x0a); i >= 0; i = chunk.indexOf(0x0a, i + 1)) rows++;
      await write(chunk);
      if (onProgress && rows - reported >= 10_000) {
        reported = rows;
        onProgress({ table: shape.table, rows });
      }
    }
    await write(`${SECTION_END}\n`);
    tables[shape.table] = rows;
    onProgress?.({ table: shape.table, rows });
    for (const { column, sequence } of shape.sequences) {
      // A sequence is outside the snapshot (it never rolls back); its value now is at or past every row in it.
      const value = await client.query<{ last_value: string }>(`SELECT last_value::text AS last_value FROM ${sequence}`);
      sequences[`${shape.table}.${column}`] = value.rows[0]!.last_value;
    }
  }
  const trailer = { tables, sequences, sha256: hash.digest('hex') };
  out.write(endLine(trailer));
  return { ...header, ...trailer };
}

/** A backup of the database at `url` written to `file` (gzip, synced to disk), for the local commands; returns its manifest. */
export async function dumpToFile(url: string, file: string, appVersion: string, onProgress?: (p: DumpProgress) => void): Promise<BackupManifest> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const dump = await beginDump(client, appVersion);
    const gzip = createGzip({ level: 1 });
    const written = gzip.pipe(createWriteStream(file, { mode: 0o600 }));
    const manifest = await dump.write(gzip, onProgress);
    gzip.end();
    await finished(written);
    const handle = await open(file, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
    return manifest;
  } finally {
    await client.end();
  }
}

/** Resolves when `out` wants more; rejects when it closed or failed first (the client went away). */
function drained(out: Writable): Promise<void> {
  // Closed already: its 'close' came before this wait began and would never come again.
  if (out.destroyed || out.writableEnded) return Promise.reject(new Error('the backup stream closed before the snapshot was complete'));
  return new Promise((resolve, reject) => {
    const settle = (err?: Error) => {
      out.off('drain', onDrain);
      out.off('close', onClose);
      out.off('error', onClose);
      if (err) reject(err);
      else resolve();
    };
    const onDrain = () => settle();
    const onClose = () => settle(new Error('the backup stream closed before the snapshot was complete'));
    out.on('drain', onDrain);
    out.on('close', onClose);
    out.on('error', onClose);
  });
}
