/**
 * The search indexer: drains the change log into Meilisearch in batches.
 *
 * - Durable: a change is marked indexed only after Meilisearch has applied the batch
 *   holding it; until then it stays pending in the database, whatever fails.
 * - Idempotent and ordered per entity: each batch rebuilds the touched entities'
 *   documents from the current database state (documentLoader.ts); batches are
 *   applied one after another, so the index ends at the latest state.
 * - One replica at a time: the holder of the `search-indexer` lease drains; the lease
 *   is renewed before every write to Meilisearch and a write is only sent within a
 *   third of the lease's time-to-live after a renewal, so a replica that lost the lease
 *   (paused, partitioned) never writes after its successor started.
 * - Retries with back-off when Meilisearch or the database is unavailable (the lease,
 *   the polling and the back-off are the loop every change-log consumer runs,
 *   ../consumerLoop.ts).
 * - Pipelined: while Meilisearch applies one batch, the next is read and sent (it queues
 *   tasks in arrival order); a batch is marked indexed once its own tasks succeeded.
 *   After any failure the pipeline restarts from the oldest pending change, rebuilding
 *   documents from the current state, so nothing is skipped or left stale.
 */
import { EventEmitter } from 'node:events';
import { findEntityType, searchableEntityTypes } from '../../domain/registry/entityTypes.js';
import type { Logger } from '../../platform/logger.js';
import { documentId, type SearchDocument } from '../../search/documents.js';
import { SearchRequestError, type DocumentWrites, type SearchEngine } from '../../search/engine.js';
import { databaseNow, pendingChanges, pruneIndexed, vacuumChangeLog, type PendingChange } from '../../store/changeLog.js';
import { anyEntity, catchUp, formatBuilt, formatState, formatUnbuilt, markIndexedFor, registerFormat } from '../../store/indexFormats.js';
import type { Db } from '../../store/database.js';
import { indexPageReader, type IndexPageReader } from '../../store/indexPage.js';
import { analyzeCatalog } from '../../store/statistics.js';
import { indexedChanges } from '../../telemetry/metrics.js';
import { inSpan, linksTo, SpanKind, tracing, type Link } from '../../telemetry/tracing.js';
import { ConsumerLoop } from '../consumerLoop.js';
import { loadDocuments } from './documentLoader.js';

export const INDEXER_LEASE = 'search-indexer';

export interface IndexerOptions {
  readonly db: Db;
  readonly engine: SearchEngine;
  readonly log: Logger;
  readonly batchSize?: number;
  /** How often an idle indexer looks for new changes. */
  readonly pollMs?: number;
  readonly leaseSeconds?: number;
  /** Called once the indexes exist, with the types whose index was created empty; draining waits for it. */
  readonly onIndexesCreated?: (types: string[]) => void | Promise<void>;
  /** Asks for a build of this format's indexes from the database (the rebuild job). */
  readonly requestBuild?: (reason: string) => void;
  /** Changes marked indexed before the change log is vacuumed (VACUUM_AFTER_CHANGES). */
  readonly vacuumAfterChanges?: number;
  /** Changes marked indexed before the catalog's tables are analyzed (ANALYZE_AFTER_CHANGES). */
  readonly analyzeAfterChanges?: number;
}

export interface IndexerState {
  /** Whether this process runs the indexing loop at all (BACKGROUND_WORKERS). */
  readonly running: boolean;
  readonly leader: boolean;
  readonly healthy: boolean;
  readonly lastError: string | null;
  readonly indexedChanges: number;
  readonly skippedDocuments: number;
}

/** A batch sent to Meilisearch: its changes, how to wait for its tasks, and the requests it serves (span links). */
interface InflightBatch {
  readonly ids: bigint[];
  wait(): Promise<void>;
  readonly links: Link[];
}

const PRUNE_EVERY_MS = 10 * 60_000;
const KEEP_INDEXED_SECONDS = 24 * 3600;
/**
 * The change log is vacuumed once this many changes were marked indexed since it last
 * was, at most every VACUUM_EVERY_MS, when the indexer has nothing to do. A marked change
 * leaves its entry in the index of pending changes until vacuum; autovacuum comes after a
 * fifth of the table has changed, so during a migration of 100,000 holders every read of
 * the pending changes (the indexer's own batches, /health's count) walked up to 100,000
 * of them (docs/decisions.md, "The migration job waits for the search index").
 */
const VACUUM_AFTER_CHANGES = 20_000;
const VACUUM_EVERY_MS = 10_000;
/**
 * The catalog's tables are analyzed (store/statistics.ts) once this many changes were
 * marked indexed since they last were, at most every ANALYZE_EVERY_MS, when the indexer
 * has nothing to do: right after a large load, rather than when autovacuum comes by, up to
 * a minute or more later. Autovacuum keeps them current after that.
 */
const ANALYZE_AFTER_CHANGES = 10_000;
const ANALYZE_EVERY_MS = 5 * 60_000;
/** A format away from the indexer longer than this may have missed changes the log no longer holds: it is rebuilt instead. */
const CATCH_UP_HORIZON_MS = (KEEP_INDEXED_SECONDS - 3600) * 1000;

/** Work run when idle once `after` changes were marked indexed since it last ran, at most every `everyMs`. */
class AfterChanges {
  marked = 0;
  private last = 0;

  constructor(
    private readonly after: number,
    private readonly everyMs: number,
    private readonly run: () => Promise<unknown>,
  ) {}

  async runIfDue(): Promise<void> {
    if (this.marked < this.after || Date.now() - this.last < this.everyMs) return;
    this.marked = 0;
    this.last = Date.now();
    await this.run();
  }
}

export class SearchIndexer extends ConsumerLoop {
  private readonly events = new EventEmitter();
  private indexesReady = false;
  /** Whether this format's state was checked since this process last took the lease. */
  private tookOver = false;
  private indexedChanges = 0;
  private skippedDocuments = 0;
  private lastPrune = Date.now();
  /** Upkeep of the database when idle, after enough indexed changes (below). */
  private readonly upkeep: readonly AfterChanges[];
  /** The batch sent to Meilisearch and not yet confirmed. */
  private inflight: InflightBatch | null = null;
  /** After a rejected batch, send the next one alone, isolating bad documents. */
  private isolateNext = false;
  private readonly readIndexPage: IndexPageReader;

  constructor(private readonly options: IndexerOptions) {
    super({
      db: options.db,
      log: options.log,
      lease: INDEXER_LEASE,
      holderPrefix: 'indexer',
      name: 'search indexer',
      pollMs: options.pollMs,
      leaseSeconds: options.leaseSeconds,
      leaseLogFields: () => ({ format: options.engine.format }),
    });
    this.events.setMaxListeners(0);
    this.readIndexPage = indexPageReader(options.db);
    // A user that does not own a table is skipped by PostgreSQL with a warning of its own
    // (autovacuum does it later); a failure here is tried again after as many changes.
    const warn = (what: string) => (err: unknown) => options.log.warn({ err: (err as Error).message }, `search indexer: could not ${what}`);
    this.upkeep = [
      new AfterChanges(options.vacuumAfterChanges ?? VACUUM_AFTER_CHANGES, VACUUM_EVERY_MS, () => vacuumChangeLog(options.db).catch(warn('vacuum the change log'))),
      new AfterChanges(options.analyzeAfterChanges ?? ANALYZE_AFTER_CHANGES, ANALYZE_EVERY_MS, () => analyzeCatalog(options.db).catch(warn('analyze the catalog tables'))),
    ];
  }

  get state(): IndexerState {
    const { running, leader, healthy, lastError } = this.loopState;
    return {
      running,
      leader,
      healthy,
      lastError,
      indexedChanges: this.indexedChanges,
      skippedDocuments: this.skippedDocuments,
    };
  }

  /** Resolves after the next batch this process indexes, or after `ms`. */
  nextBatch(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.events.off('indexed', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.events.once('indexed', done);
    });
  }

  /** One step of the loop, as the lease holder: after taking the lease, the format's state; then the indexes; then a batch. */
  protected override async step(): Promise<number> {
    if (!this.tookOver) {
      await this.takeOver();
      this.tookOver = true;
    }
    if (!this.indexesReady) {
      const created = await this.options.engine.ensureIndexes(searchableEntityTypes().map((t) => t.name));
      this.indexesReady = true;
      if (created.length > 0) await this.options.onIndexesCreated?.(created);
    }
    return this.drainBatch();
  }

  /** A failed step: the pipeline restarts from the oldest pending change; a rejected batch is isolated next time. */
  protected override failed(err: unknown): void {
    this.resetPipeline();
    if (err instanceof SearchRequestError && err.code !== 'index_not_found') this.isolateNext = true;
    if (err instanceof SearchRequestError && err.code === 'index_not_found') this.indexesReady = false;
  }

  /** A process without the lease checks the format's state again when it takes it. */
  protected override notHeld(): void {
    this.tookOver = false;
  }

  protected override async idle(): Promise<void> {
    for (const task of this.upkeep) await task.runIfDue();
    await this.maybePrune();
  }

  /**
   * Reads and sends the next batch of pending changes, then confirms the batch sent
   * before it; returns how many changes were confirmed or sent. While tracing is on,
   * the sending and the confirming each run in a span linked to the spans of the
   * requests that wrote the batch's changes, so each write's trace leads to its index
   * update; a poll that finds nothing makes no span.
   */
  private async drainBatch(): Promise<number> {
    const { db } = this.options;
    const changes = await pendingChanges(db, this.options.batchSize ?? 5000, this.inflight?.ids ?? []);
    if (changes.length === 0) return this.confirmInflight();
    if (!tracing()) return this.sendBatch(changes, []);
    const links = linksTo(changes.map((c) => c.traceParent));
    return inSpan('search.index send', SpanKind.CONSUMER, { 'propgraph.changes': changes.length }, () => this.sendBatch(changes, links), links);
  }

  private async sendBatch(changes: readonly PendingChange[], links: Link[]): Promise<number> {
    const writes = await this.documentWrites(changes);
    // Fencing: only the current lease holder may write, and only soon after renewing.
    if (!(await this.holdLease())) {
      this.resetPipeline();
      return 0;
    }
    const ids = changes.map((c) => c.id);
    if (this.isolateNext) {
      await this.confirmInflight();
      if (writes.length > 0) await this.writeIsolatingBadDocuments(writes);
      this.isolateNext = false;
      await this.markDone(ids);
      return changes.length;
    }
    const sent = writes.length > 0 ? await this.options.engine.enqueue(writes) : { wait: async () => {} };
    const previous = this.inflight;
    this.inflight = { ids, wait: () => sent.wait(), links };
    if (previous) await this.confirm(previous);
    return changes.length;
  }

  /** Waits for the batch in flight, marks it indexed; returns how many changes it held. */
  private async confirmInflight(): Promise<number> {
    const inflight = this.inflight;
    if (!inflight) return 0;
    await this.confirm(inflight);
    this.inflight = null;
    return inflight.ids.length;
  }

  /**
   * On taking the lease: a format never built (a new version's first start) is built
   * from the database by the rebuild job; a built one re-reads the changes marked since
   * its own last batch, which another version's indexer may have taken meanwhile (a
   * rolling upgrade) or, after too long away, is rebuilt.
   */
  private async takeOver(): Promise<void> {
    const { db, engine, log } = this.options;
    const format = engine.format;
    const state = await formatState(db, format);
    if (!state?.builtOn) {
      await registerFormat(db, format);
      if (await anyEntity(db)) this.options.requestBuild?.(state ? `index format ${format} not built yet` : `new index format ${format}`);
      else await formatBuilt(db, format, await databaseNow(db));
      return;
    }
    if (Date.now() - state.marksSeenUntil.getTime() > CATCH_UP_HORIZON_MS) {
      await formatUnbuilt(db, format);
      this.options.requestBuild?.(`index format ${format} has not indexed since ${state.marksSeenUntil.toISOString()}`);
      return;
    }
    const reread = await catchUp(db, state.marksSeenUntil);
    if (reread > 0) log.info({ format, changes: reread, since: state.marksSeenUntil }, 'search indexer: re-reading changes marked since this format last indexed');
  }

  private confirm(batch: InflightBatch): Promise<void> {
    const run = async () => {
      await batch.wait();
      await this.markDone(batch.ids);
    };
    if (!tracing() || batch.links.length === 0) return run();
    return inSpan('search.index confirm', SpanKind.CONSUMER, { 'propgraph.changes': batch.ids.length }, run, batch.links);
  }

  private async markDone(ids: bigint[]): Promise<void> {
    await markIndexedFor(this.options.db, ids, this.options.engine.format);
    this.indexedChanges += ids.length;
    for (const task of this.upkeep) task.marked += ids.length;
    indexedChanges.inc(ids.length);
    this.events.emit('indexed');
  }

  private resetPipeline(): void {
    this.inflight = null;
  }

  /** Whole documents, rebuilt from the database now, of the entities the changes touch. */
  private async documentWrites(changes: ReadonlyArray<{ urn: string; entityType: string }>): Promise<DocumentWrites[]> {
    const urnsByType = new Map<string, Set<string>>();
    for (const c of changes) {
      if (!findEntityType(c.entityType)?.searchable) continue;
      const set = urnsByType.get(c.entityType) ?? new Set<string>();
      set.add(c.urn);
      urnsByType.set(c.entityType, set);
    }
    const docs = await loadDocuments(this.readIndexPage, [...urnsByType.values()].flatMap((set) => [...set]));
    return [...urnsByType].map(([type, urns]) => {
      const upserts: SearchDocument[] = [];
      const deletes: string[] = [];
      for (const urn of urns) {
        const doc = docs.get(urn);
        if (doc) upserts.push(doc);
        else deletes.push(documentId(urn));
      }
      return { type, upserts, deletes };
    });
  }

  /**
   * Meilisearch rejects a whole batch for one bad document; then each document is
   * sent alone and those still rejected are logged and skipped, so one entity cannot
   * stop the indexing of all the others.
   */
  private async writeIsolatingBadDocuments(writes: DocumentWrites[]): Promise<void> {
    const { engine, log } = this.options;
    try {
      await engine.write(writes);
      return;
    } catch (err) {
      if (!(err instanceof SearchRequestError) || err.code === 'index_not_found') throw err;
      log.warn({ err: err.message }, 'search indexer: batch rejected; retrying document by document');
    }
    for (const w of writes) {
      if (w.deletes.length > 0) await engine.write([{ type: w.type, upserts: [], deletes: w.deletes }]);
      for (const doc of w.upserts) {
        if (!(await this.holdLease())) throw new Error('lost the indexer lease');
        try {
          await engine.write([{ type: w.type, upserts: [doc], deletes: [] }]);
        } catch (err) {
          if (!(err instanceof SearchRequestError) || err.code === 'index_not_found') throw err;
          this.skippedDocuments++;
          log.error({ urn: doc.urn, err: err.message }, 'search indexer: Meilisearch rejects this document; skipped');
        }
      }
    }
  }

  private async maybePrune(): Promise<void> {
    if (Date.now() - this.lastPrune < PRUNE_EVERY_MS) return;
    this.lastPrune = Date.now();
    await pruneIndexed(this.options.db, KEEP_INDEXED_SECONDS).catch(() => undefined);
  }
}
