/**
 * The cleanup job's decision for one entity (docs/contract.md §2, §5): drop a property's values
 * written under a generation that is no longer current (any, when the property is
 * gone), from the value rows and from the stored aspect. Readers stopped seeing them
 * when the change committed; this only reclaims them.
 */
import type { StructuredPropertiesAspect } from '../structuredProperties.js';
import type { AspectRow, EntityWriteDecision } from './writeDecision.js';
import type { WriteContext } from './entityWrite.js';
import { revisionOf, type EntityState } from './writeState.js';

/**
 * An older version of a structuredProperties aspect with the property taken out, the
 * rest as it was: a hard delete (or a version change that dropped the values) leaves
 * them in no version (issue #29).
 */
export function withoutPropertyInVersion(metadata: unknown, propertyUrn: string): unknown {
  const aspect = metadata as Partial<StructuredPropertiesAspect> | null;
  if (!aspect || typeof aspect !== 'object' || !Array.isArray(aspect.properties)) return metadata;
  return { ...aspect, properties: aspect.properties.filter((p) => p.propertyUrn !== propertyUrn) };
}

/** Null when the entity holds no stale value of the property (any more). */
export function decideValueCleanup(target: { readonly urn: string; readonly entityType: string }, entity: EntityState, propertyUrn: string, context: WriteContext): EntityWriteDecision | null {
  const stale = entity.values.find((v) => v.propertyUrn === propertyUrn && v.generation !== v.currentGeneration);
  if (!stale) return null;
  const writes: AspectRow[] = [];
  const stored = entity.aspects.get('structuredProperties');
  const aspect = stored?.metadata as StructuredPropertiesAspect | undefined;
  const kept = aspect?.properties.filter((p) => p.propertyUrn !== propertyUrn);
  if (stored && aspect && kept && kept.length !== aspect.properties.length) {
    writes.push({
      aspect: 'structuredProperties',
      metadata: { ...aspect, properties: kept },
      systemMetadata: { ...stored.systemMetadata, lastObserved: context.now, runId: 'property-cleanup', version: String(revisionOf(stored) + 1) },
    });
  }
  return {
    urn: target.urn,
    entityType: target.entityType,
    createdBy: context.actor,
    createdVia: context.via ?? null,
    creates: null,
    writes,
    valueRows: entity.values.filter((v) => v !== stale).map((v) => ({ propertyUrn: v.propertyUrn, generation: v.generation, values: v.values })),
    registry: [],
    jobs: [],
    reliesOn: [],
    results: [],
  };
}
