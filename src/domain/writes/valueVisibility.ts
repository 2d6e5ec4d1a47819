/**
 * Which property values readers see (docs/contract.md §2, §3, §5): only values whose
 * property exists, is not soft deleted, and whose generation (definition version) is
 * current; and, while a migration rewrites them (domain/valueMigration.ts), the values of
 * the generation it migrates from, read through its rules, so that no reader sees a
 * value the current definition refuses, nor misses one the migration keeps.
 */
import type { PropertyValueAssignment, StructuredPropertiesAspect } from '../structuredProperties.js';
import type { TypedValue } from '../typedValue.js';
import { translateEntry } from '../valueMigration.js';
import type { HeldValue } from './writeState.js';

export type Visibility = 'visible' | 'migrating' | 'soft-deleted' | 'gone';

export function visibilityOf(held: Pick<HeldValue, 'generation' | 'currentGeneration' | 'removed' | 'migration'> | undefined): Visibility {
  if (!held || held.currentGeneration === null) return 'gone';
  if (held.currentGeneration !== held.generation) return held.migration && held.migration.fromGeneration === held.generation && !held.removed ? 'migrating' : 'gone';
  return held.removed ? 'soft-deleted' : 'visible';
}

/** What readers see of one held row's values (on an entity of `entityType`); null when they see none. */
export function visibleValues(held: HeldValue | undefined, values: readonly TypedValue[], entityType: string): readonly TypedValue[] | null {
  switch (visibilityOf(held)) {
    case 'visible':
      return values;
    case 'migrating':
      return translateEntry(values, entityType, held!.migration!.rules, held!.migration!.target).values;
    default:
      return null;
  }
}

/** The entries of a stored structuredProperties aspect (none when it has no list). */
export function entriesOf(stored: unknown): PropertyValueAssignment[] {
  const props = (stored as StructuredPropertiesAspect | undefined)?.properties;
  return Array.isArray(props) ? props : [];
}

/** What readers see of a stored structuredProperties aspect (of an entity of `entityType`): its entries with visible values. */
export function visibleStructuredProperties(stored: unknown, held: readonly HeldValue[], entityType: string): StructuredPropertiesAspect {
  const byProperty = new Map(held.map((h) => [h.propertyUrn, h]));
  const properties: PropertyValueAssignment[] = [];
  for (const e of entriesOf(stored)) {
    const h = byProperty.get(e.propertyUrn);
    const values = visibleValues(h, e.values, entityType);
    if (values === null) continue;
    properties.push(values === e.values ? e : { ...e, values: [...values] });
  }
  return { properties };
}
