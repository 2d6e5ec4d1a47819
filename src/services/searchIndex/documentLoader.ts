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
import type { IndexPageReader } from '../../store/indexPage.js';
import { loopTurn } from '../../platform/turns.js';
import { visibilityOf, visibleValues } from '../../domain/writes/valueVisibility.js';

/**
 * The document of each URN, or null when the entity does not exist (its document is to
 * be deleted), from one read of the index's page (store/indexPage.ts: existence and
 * times, the aspects the types show, the held values).
 */
export async function loadDocuments(readIndexPage: IndexPageReader, urns: readonly string[]): Promise<Map<string, SearchDocument | null>> {
  const out = new Map<string, SearchDocument | null>();
  const parsed = new Map<string, Urn>();
  for (const urn of urns) {
    const p = tryParseUrn(urn);
    if (p.ok) parsed.set(urn, p.urn);
    const wait = loopTurn();
    if (wait) await wait;
  }
  // Every aspect any of these types shows (names, descriptions, definitions), with the soft delete mark.
  const aspectNames = new Set([SOFT_DELETE.aspect]);
  for (const type of new Set([...parsed.values()].map((u) => u.entityType))) for (const a of searchAspects(type)) aspectNames.add(a);
  const page = await readIndexPage([...parsed.keys()], [...aspectNames]);
  for (const urn of urns) {
    const wait = loopTurn();
    if (wait) await wait;
    const parsedUrn = parsed.get(urn);
    const row = page.get(urn);
    if (!parsedUrn || !row) {
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
    const removed = isSoftDeleted(row.aspects.get(SOFT_DELETE.aspect));
    out.set(urn, buildDocument({ urn: parsedUrn, facts: searchFacts(parsedUrn, removed, row.aspects), values: rows, times: row.times }));
  }
  return out;
}
