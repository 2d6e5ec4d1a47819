/**
 * The cleanup job behind hard delete and breaking version changes (SPEC 2, 5): it
 * removes, entity by entity and in batches, the values of a property that were
 * written under another generation than the property's current one (all of them
 * when the property is gone). Readers stopped seeing those values when the change
 * committed; this job only reclaims them. Each batch is one transaction, so a crash
 * loses at most the batch in flight, which the next attempt redoes.
 */
import type { StructuredPropertiesAspect } from '../../domain/structuredProperties.js';
import { latestAspect, lockEntity, writeAspect } from '../../store/aspects.js';
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
    const changeIds: bigint[] = [];
    let removed = 0;
    for (const { entityUrn, entityType } of holders) {
      if ((await lockEntity(tx, entityUrn, entityType, false)) === 'missing') continue;
      // Re-checked under the entity lock: the property may have been re-created meanwhile.
      const gone = await tx.$queryRaw<{ one: number }[]>`
        DELETE FROM property_value pv
        WHERE pv.entity_urn = ${entityUrn} AND pv.property_urn = ${propertyUrn}
          AND pv.generation IS DISTINCT FROM (SELECT generation FROM structured_property WHERE urn = ${propertyUrn})
        RETURNING 1 AS one`;
      if (gone.length === 0) continue;
      removed++;
      const stored = await latestAspect(tx, entityUrn, 'structuredProperties');
      if (!stored) continue;
      const aspect = stored.metadata as StructuredPropertiesAspect;
      const kept = aspect.properties.filter((p) => p.propertyUrn !== propertyUrn);
      if (kept.length === aspect.properties.length) continue;
      const revision = Number(stored.systemMetadata?.version ?? 1) || 1;
      changeIds.push(
        await writeAspect(tx, {
          urn: entityUrn,
          entityType,
          aspect: 'structuredProperties',
          metadata: { ...aspect, properties: kept },
          systemMetadata: { ...stored.systemMetadata, lastObserved: Date.now(), runId: 'property-cleanup', version: String(revision + 1) },
          createdBy: actor,
        }),
      );
    }
    return { removed, changeIds };
  });
}
