/**
 * The cleanup job behind hard delete and breaking version changes (SPEC 2, 5): it
 * removes, entity by entity and in batches, the values of a property that were
 * written under another generation than the property's current one (all of them
 * when the property is gone). Readers stopped seeing those values when the change
 * committed; this job only reclaims them. Each batch is one transaction, so a crash
 * loses at most the batch in flight, which the next attempt redoes.
 */
import type { StructuredPropertiesAspect } from '../../domain/structuredProperties.js';
import { lockEntitiesForWrite, writeAspectsBulk, type AspectWrite } from '../../store/entityWrites.js';
import type { Db } from '../../store/database.js';
import { findProperty } from '../../store/propertyRegistry.js';
import { countStaleHolders, staleHolders } from '../../store/propertyValues.js';
import { inTransaction } from '../../store/transaction.js';

export interface CleanupBatch {
  readonly removed: number;
  readonly changeIds: bigint[];
}

export async function remainingStaleValues(db: Db, propertyUrn: string): Promise<number> {
  const current = (await findProperty(db, propertyUrn))?.generation ?? null;
  return countStaleHolders(db, propertyUrn, current);
}

/** Removes up to `limit` stale values of the property; 0 removed means done. */
export async function cleanupBatch(db: Db, propertyUrn: string, actor: string, limit: number): Promise<CleanupBatch> {
  const current = (await findProperty(db, propertyUrn))?.generation ?? null;
  const holders = await staleHolders(db, propertyUrn, current, limit);
  if (holders.length === 0) return { removed: 0, changeIds: [] };
  return inTransaction(db, async (tx) => {
    const states = await lockEntitiesForWrite(
      tx,
      holders.map((h) => ({ urn: h.entityUrn, entityType: h.entityType, create: false, withValues: false })),
      ['structuredProperties'],
    );
    // Re-checked under the entity locks: the property may have been re-created meanwhile.
    const gone = await tx.$queryRaw<{ entity_urn: string }[]>`
      DELETE FROM property_value pv
      WHERE pv.entity_urn = ANY(${holders.map((h) => h.entityUrn)}::text[]) AND pv.property_urn = ${propertyUrn}
        AND pv.generation IS DISTINCT FROM (SELECT generation FROM structured_property WHERE urn = ${propertyUrn})
      RETURNING pv.entity_urn`;
    const typeOf = new Map(holders.map((h) => [h.entityUrn, h.entityType]));
    const writes: AspectWrite[] = [];
    for (const { entity_urn: entityUrn } of gone) {
      const stored = states.get(entityUrn)?.aspects.get('structuredProperties');
      if (!stored) continue;
      const aspect = stored.metadata as StructuredPropertiesAspect;
      const kept = aspect.properties.filter((p) => p.propertyUrn !== propertyUrn);
      if (kept.length === aspect.properties.length) continue;
      const revision = Number(stored.systemMetadata?.version ?? 1) || 1;
      writes.push({
        urn: entityUrn,
        entityType: typeOf.get(entityUrn)!,
        aspect: 'structuredProperties',
        metadata: { ...aspect, properties: kept },
        systemMetadata: { ...stored.systemMetadata, lastObserved: Date.now(), runId: 'property-cleanup', version: String(revision + 1) },
        createdBy: actor,
      });
    }
    const ids = writes.length > 0 ? await writeAspectsBulk(tx, { writes }) : new Map<string, bigint>();
    return { removed: gone.length, changeIds: [...ids.values()] };
  });
}
