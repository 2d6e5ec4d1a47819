/**
 * An entity as the services read it: its type and its aspects. A module of its own so
 * that the reads (entityReads.ts) and the entity service share it without importing
 * each other.
 */
import type { EntityTypeInfo } from '../domain/registry/entityTypes.js';

export interface AspectValue {
  readonly value: unknown;
  readonly systemMetadata: Record<string, unknown> | null;
}

export interface EntityView {
  readonly urn: string;
  readonly entityType: EntityTypeInfo;
  readonly aspects: ReadonlyMap<string, AspectValue>;
}
