/**
 * Facets as a person reads them (docs/contract.md §12): each carries a display name (a property's
 * `displayName`, else its qualified name; a key field's label), a property facet names
 * its definition, and an allowed value carries its description. Key-field values are
 * shown in the form callers write (entity types as `DATASET`, data types as URNs).
 */
import { keyFieldInfo } from '../domain/searchFields.js';
import { formatDouble, isDoubleValue, type TypedValue } from '../domain/typedValue.js';
import type { UrnNamespace } from '../domain/typeUrns.js';
import type { FacetValue, ResolvedField } from '../search/request.js';
import type { RegisteredProperty } from '../store/propertyRegistry.js';

/** The facets a request without `facets` gets, besides the properties shown in search filters. */
export const DEFAULT_KEY_FACETS = ['_entityType', 'platform'] as const;

export interface FacetAggregation {
  readonly value: string;
  readonly count: number;
  /** The allowed value's description, for a property that has allowed values. */
  readonly description?: string;
}

export interface Facet {
  /** As requested. */
  readonly field: string;
  readonly displayName: string;
  /** The structured property a property facet counts. */
  readonly propertyUrn?: string;
  readonly aggregations: readonly FacetAggregation[];
}

interface AllowedValueView {
  readonly value: TypedValue;
  readonly description?: string;
}

function definitionOf(property: RegisteredProperty): { displayName?: string; allowedValues?: AllowedValueView[] } {
  return (property.definition ?? {}) as { displayName?: string; allowedValues?: AllowedValueView[] };
}

function allowedDescriptions(property: RegisteredProperty): Map<string, string> {
  const out = new Map<string, string>();
  for (const allowed of definitionOf(property).allowedValues ?? []) {
    if (!allowed.description) continue;
    const v = allowed.value;
    // Facet texts come back in the engine's spelling (case may differ): match case-insensitively.
    out.set(isDoubleValue(v) ? formatDouble(v.double) : v.string.toLowerCase(), allowed.description);
  }
  return out;
}

/** A facet as answered; type URNs among its values are written in `urnNamespace`. */
export function describeFacet(field: string, resolved: ResolvedField, property: RegisteredProperty | undefined, values: readonly FacetValue[], urnNamespace: UrnNamespace): Facet {
  if (resolved.kind === 'key') {
    const info = keyFieldInfo(resolved.name);
    const display = info.display;
    return { field, displayName: info.displayName, aggregations: display ? values.map((v) => ({ ...v, value: display(v.value, urnNamespace) })) : values };
  }
  if (!property) return { field, displayName: field, aggregations: values };
  const descriptions = allowedDescriptions(property);
  return {
    field,
    displayName: definitionOf(property).displayName || property.qualifiedName,
    propertyUrn: property.urn,
    aggregations: values.map((v) => {
      const description = descriptions.get(resolved.numeric ? v.value : v.value.toLowerCase());
      return description === undefined ? v : { ...v, description };
    }),
  };
}

/** A facet on a field that matches nothing (a `_versioned` name of an older version). */
export function emptyFacet(field: string): Facet {
  return { field, displayName: field, aggregations: [] };
}
