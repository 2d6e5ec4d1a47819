/**
 * What the cleanup job does to history (docs/contract.md §2, §5): older versions of a
 * structuredProperties aspect lose a property whose values are gone (hard deleted, or
 * written under a version that is no longer current). The latest versions are cleaned
 * through the write path (jobs/cleanupPropertyValues.ts).
 */
import type { StructuredPropertiesAspect } from '../structuredProperties.js';

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
