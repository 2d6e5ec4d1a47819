/**
 * system-update's search step (docs/contract.md §5): rebuilds every index from the
 * database. Each type's documents go into a scratch index that then replaces the live
 * one in a single swap, so searches keep working throughout and fields no document
 * uses any more (hard-deleted properties, old generations) disappear from the index; a
 * type that holds no entity has its live index emptied in place instead.
 * Whatever the indexer wrote to the old indexes while the rebuild ran is replayed
 * afterwards from the change log, so no change made during the rebuild is lost. Once
 * done, the index format is recorded as built (store/indexFormats.ts).
 */
import { searchableEntityTypes } from '../../domain/registry/entityTypes.js';
import type { Logger } from '../../platform/logger.js';
import type { SearchDocument } from '../../search/documents.js';
import type { SearchEngine } from '../../search/engine.js';
import { countEntitiesByType, listEntityUrns } from '../../store/aspects.js';
import { databaseNow, reopenIndexedSince } from '../../store/changeLog.js';
import type { Db } from '../../store/database.js';
import { formatBuilt } from '../../store/indexFormats.js';
import { indexPageReader } from '../../store/indexPage.js';
import { loadDocuments } from './documentLoader.js';

export interface RebuildDeps {
  readonly db: Db;
  readonly engine: SearchEngine;
  readonly log: Logger;
  readonly batchSize?: number;
}

export interface RebuildProgress {
  readonly total: number;
  readonly done: number;
  /** The entity type being rebuilt. */
  readonly type: string;
}

export async function rebuildIndexes(
  deps: RebuildDeps,
  onProgress: (p: RebuildProgress) => Promise<void>,
  stopping: () => boolean = () => false,
): Promise<'done' | 'stopped'> {
  const { db, engine, log } = deps;
  const batchSize = deps.batchSize ?? 1000;
  const started = await databaseNow(db);
  const types = searchableEntityTypes().map((t) => t.name);
  const counts = await countEntitiesByType(db, types);
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  let done = 0;
  await engine.ensureIndexes(types);
  // A type without entities is emptied in place: the same end state as an empty scratch
  // index swapped in, in one round of tasks for all of them rather than several each.
  const empty = types.filter((t) => !counts.get(t));
  if (empty.length > 0) {
    if (stopping()) return 'stopped';
    // Progress is reported before any work, as it always was, even when no type holds an entity.
    await onProgress({ total, done, type: empty[0]! });
    await engine.clearIndexes(empty);
  }
  for (const type of types.filter((t) => counts.get(t))) {
    await onProgress({ total, done, type });
    const scratch = await engine.createScratchIndex(type, 'rebuild');
    let after: string | null = null;
    const readIndexPage = indexPageReader(db);
    for (;;) {
      if (stopping()) return 'stopped';
      const urns = await listEntityUrns(db, type, after, batchSize);
      if (urns.length === 0) break;
      after = urns[urns.length - 1]!;
      const docs = await loadDocuments(readIndexPage, urns);
      const upserts = urns.map((u) => docs.get(u)).filter((d): d is SearchDocument => d !== null && d !== undefined);
      await engine.writeTo([{ uid: scratch, type, upserts, deletes: [] }]);
      done += urns.length;
      await onProgress({ total: Math.max(total, done), done, type });
    }
    await engine.promoteScratchIndex(type, scratch);
    log.info({ type, done }, 'search index rebuilt');
  }
  const replayed = await reopenIndexedSince(db, started);
  await formatBuilt(db, engine.format, started);
  log.info({ total: done, replayed }, 'search indexes rebuilt from the database');
  return 'done';
}
