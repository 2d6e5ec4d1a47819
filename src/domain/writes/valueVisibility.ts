/**
 * Which property values readers see (docs/contract.md §2, §3, §5): only values whose property exists,
 * is not soft deleted, and whose generation (definition version) is current.
 */
import type { PropertyValueAssignment, StructuredPropertiesAspect } from '../structuredProperties.js';
import type { HeldValue } from './writeState.js';

export type Visibility = 'visible' | 'soft-deleted' | 'gone';

export function visibilityOf(held: Pick<HeldValue, 'generation' | 'currentGeneration' | 'removed'> | undefined): Visibility {
  if (!held || held.currentGeneration === null || held.currentGeneration !== held.generation) return 'gone';
  return held.removed ? 'soft-deleted' : 'visible';
}

/** The entries of a stored structuredProperties aspect (none when it has no list). */
export function entriesOf(stored: unknown): PropertyValueAssignment[] {
  const props = (stored as StructuredPropertiesAspect | undefined)?.properties;
  return Array.isArray(props) ? props : [];
}

/** What readers see of a stored structuredProperties aspect: its entries with visible values. */
export function visibleStructuredProperties(stored: unknown, held: readonly HeldValue[]): StructuredPropertiesAspect {
  const byProperty = new Map(held.map((h) => [h.propertyUrn, h]));
  return { properties: entriesOf(stored).filter((e) => visibilityOf(byProperty.get(e.propertyUrn)) === 'visible') };
}
