/**
 * Backups while the server runs (docs/operations.md, "Backup, restore and move"): a
 * consistent snapshot of the database (store/backup/dump.ts), gzip-compressed, as a
 * stream for the edge to send. The snapshot's transaction starts before the stream is
 * handed over, so an unreachable database is an error answer, not a cut download.
 */
import { createGzip } from 'node:zlib';
import type { Readable } from 'node:stream';
import type { BackupManifest } from '../domain/backupFormat.js';
import type { Logger } from '../platform/logger.js';
import type { SnapshotOpener } from '../store/database.js';
import type { Caller } from './caller.js';

export interface BackupStream {
  /** The backup file's bytes (gzip). */
  readonly stream: Readable;
  /** A file name for it: propgraph-<version>-<time>.backup. */
  readonly filename: string;
  /** Settles when the snapshot is complete (or failed; the stream is then destroyed). */
  readonly done: Promise<BackupManifest>;
}

export interface BackupService {
  /** Starts a snapshot of the whole database. */
  start(caller: Caller): Promise<BackupStream>;
}

export class DefaultBackupService implements BackupService {
  constructor(private readonly deps: { openSnapshot: SnapshotOpener; log: Logger; appVersion: string }) {}

  async start(caller: Caller): Promise<BackupStream> {
    const snapshot = await this.deps.openSnapshot(this.deps.appVersion);
    const gzip = createGzip({ level: 1 });
    const started = Date.now();
    const done = snapshot.write(gzip).then(
      (manifest) => {
        gzip.end();
        const rows = Object.values(manifest.tables).reduce((a, b) => a + b, 0);
        this.deps.log.info({ actor: caller.actor, rows, tables: manifest.tables, sha256: manifest.sha256, ms: Date.now() - started }, 'backup taken');
        return manifest;
      },
      (err: Error) => {
        this.deps.log.warn({ actor: caller.actor, err: err.message }, 'backup failed');
        gzip.destroy(err);
        throw err;
      },
    );
    // The edge reads the outcome from the stream; this only keeps a failure from going unhandled.
    done.catch(() => undefined);
    const stamp = snapshot.header.createdOn.replace(/[:.]/g, '-');
    return { stream: gzip, filename: `propgraph-${this.deps.appVersion}-${stamp}.backup`, done };
  }
}
