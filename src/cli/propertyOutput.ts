/**
 * The CLI's read form of a definition (docs/contract.md §9): snake_case keys in a
 * fixed order, full type URNs, allowed values as strings (numbers with a decimal
 * part, `30.0`).
 */
import type { PropertyDefinition } from '../domain/propertyDefinition.js';
import { valueAsString } from '../domain/typedValue.js';

export function snakeCaseDefinition(urn: string, definition: PropertyDefinition): Record<string, unknown> {
  const out: Record<string, unknown> = {
    urn,
    qualified_name: definition.qualifiedName,
    type: definition.valueType,
  };
  if (definition.version !== undefined) out.version = definition.version;
  if (definition.description !== undefined) out.description = definition.description;
  if (definition.displayName !== undefined) out.display_name = definition.displayName;
  out.entity_types = definition.entityTypes;
  out.cardinality = definition.cardinality ?? 'SINGLE';
  if (definition.allowedValues && definition.allowedValues.length > 0) {
    out.allowed_values = definition.allowedValues.map((a) => ({
      value: valueAsString(a.value),
      ...(a.description !== undefined ? { description: a.description } : {}),
    }));
  }
  // Settable from the file, so shown when set, after the keys docs/contract.md §9 lists.
  if (definition.immutable) out.immutable = true;
  if (definition.typeQualifier) out.type_qualifier = { allowed_types: definition.typeQualifier.allowedTypes };
  return out;
}
