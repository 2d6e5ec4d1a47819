/**
 * Names of the fields callers filter and facet on (SPEC 6):
 * - the entity key fields `urn`, `name`, `platform`, `origin`;
 * - `structuredProperties.<qualifiedName>` (GraphQL, dots kept) or
 *   `structuredProperties.<qualified_name_with_underscores>` (REST); both name the
 *   property whose search field (qualified name with `.` as `_`) matches;
 * - `structuredProperties._versioned.<name_with_underscores>.<version>.<type>`, which
 *   names the property only while that is its current version and value type.
 * Which property (and which of its generations) a name stands for is decided later
 * against the registry; this module only reads the name.
 */
import { ValidationError } from './errors.js';
import { searchFieldName, VERSION_PATTERN } from './propertyDefinition.js';
import { DATA_TYPES, type DataType } from './typeUrns.js';

export const KEY_FIELDS = ['urn', 'name', 'platform', 'origin'] as const;
export type KeyField = (typeof KEY_FIELDS)[number];

export const PROPERTY_FIELD_PREFIX = 'structuredProperties.';
const VERSIONED = '_versioned.';

export type SearchField =
  | { readonly kind: 'key'; readonly name: KeyField }
  | {
      readonly kind: 'property';
      /** The registry's search field: the qualified name with `.` as `_`. */
      readonly searchField: string;
      readonly versioned?: { readonly version: string; readonly valueType: DataType };
    };

export function parseSearchField(name: string): SearchField {
  if ((KEY_FIELDS as readonly string[]).includes(name)) return { kind: 'key', name: name as KeyField };
  if (!name.startsWith(PROPERTY_FIELD_PREFIX)) {
    throw new ValidationError(
      `Unknown search field ${name}; fields are ${KEY_FIELDS.join(', ')} and ${PROPERTY_FIELD_PREFIX}<qualified name>`,
      'field',
    );
  }
  const rest = name.slice(PROPERTY_FIELD_PREFIX.length);
  if (rest.startsWith(VERSIONED)) {
    const parts = rest.slice(VERSIONED.length).split('.');
    const valueType = parts.pop();
    const version = parts.pop();
    const qualified = parts.join('.');
    if (qualified === '' || version === undefined || !VERSION_PATTERN.test(version) || !(DATA_TYPES as readonly string[]).includes(valueType ?? '')) {
      throw new ValidationError(
        `Invalid versioned field ${name}; expected ${PROPERTY_FIELD_PREFIX}${VERSIONED}<name_with_underscores>.<yyyyMMddhhmmss>.<${DATA_TYPES.join('|')}>`,
        'field',
      );
    }
    return { kind: 'property', searchField: searchFieldName(qualified), versioned: { version, valueType: valueType as DataType } };
  }
  if (rest === '' || /\s/.test(rest)) throw new ValidationError(`Invalid search field ${name}`, 'field');
  return { kind: 'property', searchField: searchFieldName(rest) };
}
