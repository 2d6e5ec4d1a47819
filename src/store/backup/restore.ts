/**
 * Loads a backup (domain/backupFormat.ts) into a PostgreSQL database, all or nothing:
 *
 * - the target must hold no propgraph data (entities, aspects, jobs, ...), or the
 *   caller passes `force` and everything in it is replaced; tokens, the version
 *   history and the registry counter are the backup's afterwards either way;
 * - a database without propgraph's tables gets exactly the schema the backup was
 *   taken from (its migrations), is loaded, then migrated to this version: restoring
 *   an older version's backup is an upgrade like any other. A target already migrated
 *   must have every migration the backup has (it is loaded by column names);
 * - every row is loaded in one transaction with `COPY ... FROM STDIN`; the checksum
 *   and the row counts are checked before it commits, so a damaged or cut file
 *   changes nothing;
 * - sequences continue past the backup's.
 */
import type { Logger } from 'pino';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { BackupScanner, type BackupHeader, type BackupManifest, type ScanEvent } from '../../domain/backupFormat.js';
import { compareVersions } from '../../domain/releases.js';
import { applyMigrations, listMigrations, poolRunner } from '../migrate.js';
import { appliedMigrations, quoteIdent, schemaTables, STATE_OF_ELSEWHERE, type TableShape } from './tables.js';

/** The restore cannot go ahead (the target holds data, the backup is from a newer version, ...); nothing was changed. */
export class RestoreRefusedError extends Error {}

/** Tables whose rows a fresh server writes by itself: they do not make a database "hold data". */
const BOOKKEEPING = new Set(['access_token', 'registry_epoch', 'propgraph_version']);

export interface RestoreProgress {
  readonly table: string;
  /** Rows of the table loaded so far. */
  readonly rows: number;
  readonly phase: 'loading' | 'loaded';
}

export interface RestoreOptions {
  readonly force: boolean;
  readonly log: Logger;
  readonly appVersion: string;
  readonly onProgress?: (p: RestoreProgress) => void;
  /** Called once the header is read, before anything is changed. */
  readonly onHeader?: (header: BackupHeader) => void;
}

/** Restores the backup read from `input` (uncompressed bytes) into the database at `url`; returns its manifest. */
export async function restoreDatabase(url: string, input: AsyncIterable<Buffer>, options: RestoreOptions): Promise<BackupManifest> {
  const scanner = new BackupScanner();
  const chunks = input[Symbol.asyncIterator]();
  // Read up to the header: what the target must be prepared for.
  const queued: ScanEvent[] = [];
  let header: BackupHeader | undefined;
  while (!header) {
    const next = await chunks.next();
    if (next.done) scanner.finish();
    else queued.push(...scanner.push(next.value));
    const found = queued.find((e): e is Extract<ScanEvent, { kind: 'header' }> => e.kind === 'header');
    if (found) header = found.header;
  }
  options.onHeader?.(header);
  if (compareVersions(header.propgraph, options.appVersion) > 0) {
    throw new RestoreRefusedError(`the backup was taken by propgraph ${header.propgraph}, newer than this propgraph ${options.appVersion}; restore it with propgraph ${header.propgraph} or later`);
  }
  const known = new Set(listMigrations().map((m) => m.name));
  const unknown = header.migrations.filter((m) => !known.has(m));
  if (unknown.length > 0) {
    throw new RestoreRefusedError(
      `the backup was taken by propgraph ${header.propgraph} with migrations this version (${options.appVersion}) does not have (${unknown.join(', ')}); restore it with propgraph ${header.propgraph} or later`,
    );
  }

  const pool = new pg.Pool({ connectionString: url, max: 2 });
  pool.on('error', () => undefined);
  try {
    const client = await pool.connect();
    let released = false;
    try {
      const existing = await appliedMigrations(client);
      if (existing.length > 0) {
        const missing = header.migrations.filter((m) => !existing.includes(m));
        if (missing.length > 0) {
          throw new RestoreRefusedError(
            `the target database was created by an older propgraph than the backup (it lacks the migrations ${missing.join(', ')}); use an empty database, or start propgraph ${options.appVersion} on it once first`,
          );
        }
        await refuseData(client, options.force);
      } else if (header.migrations.length > 0) {
        await refuseData(client, options.force);
        // The schema the backup was taken from; the rest of the migrations run after the load.
        await applyMigrations(poolRunner(pool), options.log, { upTo: header.migrations[header.migrations.length - 1]! });
      }
      const manifest = await load(client, scanner, queued, chunks, options);
      client.release();
      released = true;
      await applyMigrations(poolRunner(pool), options.log, { appVersion: options.appVersion });
      return manifest;
    } finally {
      if (!released) client.release();
    }
  } finally {
    await pool.end();
  }
}

async function refuseData(client: pg.PoolClient, force: boolean): Promise<void> {
  if (force) return;
  for (const shape of await schemaTables(client)) {
    if (BOOKKEEPING.has(shape.table)) continue;
    const rows = await client.query(`SELECT 1 FROM ${quoteIdent(shape.table)} LIMIT 1`);
    if (rows.rowCount! > 0) {
      throw new RestoreRefusedError(
        `the target database already holds propgraph data (table ${shape.table} has rows); restore onto an empty database, or pass --force to replace everything in it`,
      );
    }
  }
}

async function load(
  client: pg.PoolClient,
  scanner: BackupScanner,
  queued: ScanEvent[],
  chunks: AsyncIterator<Buffer>,
  options: RestoreOptions,
): Promise<BackupManifest> {
  const shapes = new Map((await schemaTables(client)).map((s) => [s.table, s] as const));
  let copy: CopyInto | undefined;
  await client.query('BEGIN');
  try {
    await client.query("SET LOCAL DateStyle = 'ISO'; SET LOCAL IntervalStyle = 'postgres'; SET LOCAL TimeZone = 'UTC'");
    // Everything the backup will fill starts empty (a fresh server's own root token included).
    if (shapes.size > 0) await client.query(`TRUNCATE ${[...shapes.keys()].map(quoteIdent).join(', ')}`);
    // Rows are loaded as they were, derived ones included (test_result, kept by triggers on
    // aspect): the tables' own triggers stay off while they load, as pg_dump's data-only
    // restores do; foreign keys are still checked. Transactional: a rollback restores them.
    await setUserTriggers(client, shapes, 'DISABLE');
    // What the target knew of its search indexes no longer describes its data.
    for (const table of STATE_OF_ELSEWHERE) {
      const found = await client.query<{ found: boolean }>('SELECT to_regclass($1) IS NOT NULL AS found', [quoteIdent(table)]);
      if (found.rows[0]?.found) await client.query(`DELETE FROM ${quoteIdent(table)}`);
    }
    let manifest: BackupManifest | undefined;
    const handle = async (event: ScanEvent) => {
      switch (event.kind) {
        case 'section': {
          const shape = shapes.get(event.section.table);
          copy = await CopyInto.open(client, shape, event.section.table, event.section.columns);
          break;
        }
        case 'rows':
          await copy!.write(event.data, event.count);
          options.onProgress?.({ table: event.table, rows: copy!.rows, phase: 'loading' });
          break;
        case 'sectionEnd':
          await copy!.finish();
          options.onProgress?.({ table: event.table, rows: event.rows, phase: 'loaded' });
          copy = undefined;
          break;
        case 'end':
          manifest = event.manifest;
          break;
        default:
          break;
      }
    };
    for (const event of queued) await handle(event);
    for (let next = await chunks.next(); !next.done; next = await chunks.next()) {
      for (const event of scanner.push(next.value)) await handle(event);
    }
    manifest = scanner.finish();
    await setUserTriggers(client, shapes, 'ENABLE');
    await continueSequences(client, shapes, manifest);
    await client.query('COMMIT');
    return manifest;
  } catch (err) {
    // A COPY still open holds the connection: it is failed first, or the rollback would wait behind it.
    await copy?.abort(err as Error);
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
}

async function setUserTriggers(client: pg.PoolClient, shapes: ReadonlyMap<string, TableShape>, state: 'ENABLE' | 'DISABLE'): Promise<void> {
  for (const table of shapes.keys()) await client.query(`ALTER TABLE ${quoteIdent(table)} ${state} TRIGGER USER`);
}

async function continueSequences(client: pg.PoolClient, shapes: ReadonlyMap<string, TableShape>, manifest: BackupManifest): Promise<void> {
  for (const shape of shapes.values()) {
    for (const { column, sequence } of shape.sequences) {
      const recorded = manifest.sequences[`${shape.table}.${column}`] ?? '1';
      await client.query(`SELECT setval('${sequence.replace(/'/g, "''")}', GREATEST($1::bigint, (SELECT COALESCE(max(${quoteIdent(column)}), 1) FROM ${quoteIdent(shape.table)})))`, [recorded]);
    }
  }
}

/** One table's rows going into `COPY ... FROM STDIN`. */
class CopyInto {
  rows = 0;
  private failure: Error | undefined;

  private constructor(private readonly stream: ReturnType<typeof copyFrom>) {
    stream.on('error', (err: Error) => {
      this.failure = err;
    });
  }

  static async open(client: pg.PoolClient, shape: TableShape | undefined, table: string, columns: readonly string[]): Promise<CopyInto> {
    if (!shape) throw new RestoreRefusedError(`the backup holds a table ${table} that this database does not have`);
    const absent = columns.filter((c) => !shape.columns.includes(c));
    if (absent.length > 0) throw new RestoreRefusedError(`the backup's table ${table} has columns this database does not have: ${absent.join(', ')}`);
    return new CopyInto(client.query(copyFrom(`COPY ${quoteIdent(table)} (${columns.map(quoteIdent).join(', ')}) FROM STDIN`)));
  }

  async write(data: Buffer, count: number): Promise<void> {
    if (this.failure) throw this.failure;
    this.rows += count;
    if (!this.stream.write(data)) {
      await new Promise<void>((resolve, reject) => {
        const done = (err?: Error) => {
          this.stream.off('drain', onDrain);
          this.stream.off('error', done);
          if (err) reject(err);
          else resolve();
        };
        const onDrain = () => done();
        this.stream.on('drain', onDrain);
        this.stream.on('error', done);
      });
    }
  }

  /** Fails the COPY (CopyFail), so that the connection can roll back. */
  async abort(reason: Error): Promise<void> {
    if (this.stream.destroyed) return;
    await new Promise<void>((resolve) => {
      this.stream.destroy(reason);
      this.stream.once('close', () => resolve());
    });
  }

  async finish(): Promise<void> {
    if (this.failure) throw this.failure;
    await new Promise<void>((resolve, reject) => {
      this.stream.once('finish', () => resolve());
      this.stream.once('error', reject);
      this.stream.end();
    });
  }
}
