/**
 * Builds search documents from the database's current state. Documents are always
 * rebuilt whole from what is committed now, never patched from a change's content, so
 * applying a change twice, late, or out of order gives the same document.
 */
import { isSoftDeleted, SOFT_DELETE } from '../../domain/aspects/index.js';
import { searchAspects, searchFacts } from '../../domain/searchFacts.js';
import { tryParseUrn, type Urn } from '../../domain/urn.js';
import type { TypedValue } from '../../domain/typedValue.js';
import { buildDocument, type SearchDocument } from '../../search/documents.js';
import type { EntityPageReader } from '../../store/aspects.js';
import type { EntityTimesReader } from '../../store/entityTimes.js';
import { loopTurn } from '../../platform/turns.js';
import { visibilityOf, visibleValues } from '../../domain/writes/valueVisibility.js';

/** What documents are built from: the entity page (existence, aspects, values) and the entities' times. */
export interface DocumentReads {
  readonly readEntityPage: EntityPageReader;
  readonly readEntityTimes: EntityTimesReader;
}

/**
 * The document of each URN, or null when the entity does not exist (its document is to
 * be deleted). One page read for the whole batch (existence, the aspects the types
 * show, the held values): three reads cost the event loop more in result handling than
 * the documents themselves; the times, a few columns per entity, are a second.
 */
export async function loadDocuments(reads: DocumentReads, urns: readonly string[]): Promise<Map<string, SearchDocument | null>> {
  const out = new Map<string, SearchDocument | null>();
  const parsed = new Map<string, Urn>();
  for (const urn of urns) {
    const p = tryParseUrn(urn);
    if (p.ok) parsed.set(urn, p.urn);
  }
  // Every aspect any of these types shows (names, descriptions, definitions), with the soft delete mark.
  const aspectNames = new Set([SOFT_DELETE.aspect]);
  for (const type of new Set([...parsed.values()].map((u) => u.entityType))) for (const a of searchAspects(type)) aspectNames.add(a);
  const [page, times] = await Promise.all([reads.readEntityPage([...parsed.keys()].map((urn) => ({ urn, values: true })), [...aspectNames]), reads.readEntityTimes([...parsed.keys()])]);
  for (const urn of urns) {
    await loopTurn();
    const parsedUrn = parsed.get(urn);
    const row = page.get(urn);
    if (!parsedUrn || !row?.present) {
      out.set(urn, null);
      continue;
    }
    // Only current generations: older ones are hidden, and soft-deleted properties keep
    // their values here so that a restore needs no reindex (filters on them are refused).
    // Values a migration has still to rewrite are indexed as it will write them.
    const rows = row.values.flatMap((v) => {
      if (v.currentGeneration !== null && v.generation === v.currentGeneration) return [{ generation: v.generation, values: v.values as TypedValue[] }];
      const migrated = visibilityOf(v) === 'migrating' ? visibleValues(v, v.values, parsedUrn.entityType.name) : null;
      return migrated ? [{ generation: v.currentGeneration!, values: [...migrated] }] : [];
    });
    const own = new Map([...row.aspects.entries()].map(([name, stored]) => [name, stored.metadata]));
    const removed = isSoftDeleted(own.get(SOFT_DELETE.aspect));
    out.set(urn, buildDocument({ urn: parsedUrn, facts: searchFacts(parsedUrn, removed, own), values: rows, times: times.get(urn) }));
  }
  return out;
}
