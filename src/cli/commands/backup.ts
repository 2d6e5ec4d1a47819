/**
 * `propgraph backup --out FILE`: asks the running server for a consistent snapshot of
 * its database (GET /openapi/v3/system/backup, admin scope) and saves it. The file is
 * checked while it arrives (its rows, counts and checksum, domain/backupFormat.ts) and
 * only renamed into place once whole, so FILE is never a partial backup. Ctrl-C stops
 * the download, closing the connection (the server then ends its snapshot and frees its
 * database connection) and removing the partial file.
 */
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { Readable, Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { BackupFormatError, BackupScanner, type BackupManifest } from '../../domain/backupFormat.js';
import type { CommandContext } from '../context.js';
import { CliError, EXIT, type ExitCode } from '../errors.js';
import { printLine } from '../terminal.js';

const CLEAR_LINE = '\r\u001b[K';

export async function backup(ctx: CommandContext, options: { out: string }): Promise<ExitCode> {
  const http = ctx.api().http;
  const started = Date.now();
  const response = await http.download(http.v3('/system/backup'));
  if (!response.body) throw new CliError('The server answered the backup request without a body.');
  const partial = `${options.out}.partial`;
  const scanner = new BackupScanner();
  const tty = Boolean(ctx.terminal.stderr.isTTY);
  let rows = 0;
  let shown = 0;
  const check = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      try {
        for (const event of scanner.push(chunk)) {
          if (event.kind !== 'rows') continue;
          rows += event.count;
          if (tty && rows - shown >= 50_000) {
            shown = rows;
            ctx.terminal.stderr.write(`${CLEAR_LINE}Backing up: ${rows.toLocaleString('en')} rows (${event.table})`);
          }
        }
        callback();
      } catch (err) {
        callback(err as Error);
      }
    },
  });
  const body = Readable.fromWeb(response.body as import('node:stream/web').ReadableStream<Uint8Array>);
  let manifest: BackupManifest;
  let bytes = 0;
  body.on('data', (chunk: Buffer) => {
    bytes += chunk.length;
  });
  const file = createWriteStream(partial, { mode: 0o600 });
  const gunzip = createGunzip();
  let interrupted = false;
  const interrupt = () => {
    interrupted = true;
    body.destroy(new Error('interrupted'));
  };
  process.once('SIGINT', interrupt);
  try {
    // One read of the download feeds both the file and the check (pipe waits for the slower).
    body.pipe(file);
    body.pipe(gunzip).pipe(check);
    await Promise.all([finished(body), finished(file), finished(gunzip), finished(check)]);
    manifest = scanner.finish();
  } catch (err) {
    for (const stream of [body, file, gunzip, check]) stream.destroy();
    await rm(partial, { force: true });
    if (tty) ctx.terminal.stderr.write(CLEAR_LINE);
    if (interrupted) throw new CliError(`Backup interrupted. Nothing was written to ${options.out}.`);
    if (err instanceof BackupFormatError) throw new CliError(`The backup from ${http.settings.server} is not usable: ${err.message}. Nothing was written to ${options.out}.`);
    throw new CliError(`The backup from ${http.settings.server} did not arrive whole (${(err as Error).message}). Nothing was written to ${options.out}.`);
  } finally {
    process.off('SIGINT', interrupt);
  }
  await rename(partial, options.out);
  if (tty) ctx.terminal.stderr.write(CLEAR_LINE);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  printLine(ctx.terminal.stdout, `Backup written to ${options.out} (${(bytes / 1e6).toFixed(1)} MB in ${seconds} s): propgraph ${manifest.propgraph}, PostgreSQL ${manifest.postgres}, ${manifest.migrations.length} migrations`);
  for (const [table, count] of Object.entries(manifest.tables)) printLine(ctx.terminal.stdout, `  ${table}: ${count} rows`);
  printLine(ctx.terminal.stdout, `sha256 ${manifest.sha256}`);
  return EXIT.ok;
}
