/**
 * Builds search documents from the database's current state. Documents are always
 * rebuilt whole from what is committed now, never patched from a change's content, so
 * applying a change twice, late, or out of order gives the same document.
 */
import { tryParseUrn } from '../../domain/urn.js';
import type { TypedValue } from '../../domain/typedValue.js';
import { buildDocument, type SearchDocument } from '../../search/documents.js';
import { existingEntities, latestAspectOfMany } from '../../store/aspects.js';
import type { Db } from '../../store/database.js';
import { valuesOfEntities } from '../../store/propertyValues.js';

/** The document of each URN, or null when the entity does not exist (its document is to be deleted). */
export async function loadDocuments(db: Db, urns: readonly string[]): Promise<Map<string, SearchDocument | null>> {
  const out = new Map<string, SearchDocument | null>();
  const existing = await existingEntities(db, urns);
  const live = urns.filter((u) => existing.has(u));
  const values = await valuesOfEntities(db, live);
  const statuses = await latestAspectOfMany(db, live, 'status');
  for (const urn of urns) {
    const parsed = tryParseUrn(urn);
    if (!existing.has(urn) || !parsed.ok) {
      out.set(urn, null);
      continue;
    }
    const rows = (values.get(urn) ?? [])
      // Only current generations: older ones are hidden, and soft-deleted properties keep
      // their values here so that a restore needs no reindex (filters on them are refused).
      .filter((v) => v.currentGeneration !== null && v.generation === v.currentGeneration)
      .map((v) => ({ generation: v.generation, values: v.values as TypedValue[] }));
    const removed = (statuses.get(urn)?.metadata as { removed?: unknown } | undefined)?.removed === true;
    out.set(urn, buildDocument({ urn: parsed.urn, removed, values: rows }));
  }
  return out;
}
