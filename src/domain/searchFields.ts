/**
 * Names of the fields callers filter and facet on (docs/contract.md §6, §12):
 * - the key fields of KEY_FIELDS (`urn`, `name`, `platform`, ..., `removed`);
 * - `structuredProperties.<qualifiedName>` (GraphQL, dots kept) or
 *   `structuredProperties.<qualified_name_with_underscores>` (REST); both name the
 *   property whose search field (qualified name with `.` as `_`) matches;
 * - `structuredProperties._versioned.<name_with_underscores>.<version>.<type>`, which
 *   names the property only while that is its current version and value type.
 * Which property (and which of its generations) a name stands for is decided later
 * against the registry; this module reads the name and, for key fields, puts the
 * values callers write into the form the index holds (`hive` is a platform URN).
 */
import { ASPECT_SEARCH_FIELDS } from './aspects/index.js';
import { findEntityType } from './registry/entityTypes.js';
import { ValidationError } from './errors.js';
import { searchFieldName, VERSION_PATTERN } from './propertyDefinition.js';
import { booleanField, entityTypeName, textField, type KeyFieldInfo } from './searchFieldKinds.js';
import { DATA_TYPES, type DataType } from './typeUrns.js';

export type { KeyFieldInfo, KeyValueKind } from './searchFieldKinds.js';

const PLATFORM_PREFIX = 'urn:li:dataPlatform:';

/** The fields every entity has, from its URN and its text aspects; the aspects' own facts add theirs (domain/aspects/). */
const URN_FIELDS: Readonly<Record<string, KeyFieldInfo>> = {
  urn: textField('Urn'),
  /** Matches the exact name, or a word of it (`clicks` matches `analytics.daily_clicks`). */
  name: textField('Name'),
  platform: textField('Platform', (v) => (v.startsWith('urn:') ? v : `${PLATFORM_PREFIX}${v}`)),
  origin: textField('Environment'),
  /** The soft delete mark (status.removed); without a filter on it, soft-deleted entities are left out. */
  removed: booleanField('Soft deleted'),
  /** The entity type, as its name (`dataset`) or GraphQL value (`DATASET`); facets show the GraphQL value. */
  _entityType: { ...textField('Type', entityTypeName), display: (v) => findEntityType(v)?.graphql ?? v },
  /** From the aspects' text fields (a definition's displayName, a user's fullName). */
  displayName: textField('Display name'),
  // Schema fields' keys.
  fieldPath: textField('Field path'),
  parent: textField('Dataset'),
};

function keyFields(): Readonly<Record<string, KeyFieldInfo>> {
  const taken = Object.keys(ASPECT_SEARCH_FIELDS).filter((name) => Object.hasOwn(URN_FIELDS, name));
  if (taken.length > 0) throw new Error(`aspect modules define search fields every entity has: ${taken.join(', ')}`);
  return { ...URN_FIELDS, ...ASPECT_SEARCH_FIELDS };
}

export const KEY_FIELDS: Readonly<Record<string, KeyFieldInfo>> = keyFields();

/** A key field's name (checked against KEY_FIELDS where it comes from a caller: parseSearchField). */
export type KeyField = string;
export const KEY_FIELD_NAMES: readonly KeyField[] = Object.keys(KEY_FIELDS);

/**
 * Aliases callers use for key fields: DataHub writes `entityType` and `_entityType`, its
 * SDK's environment filter `env`, its web app `owners`' older name `owner`.
 */
const KEY_FIELD_ALIASES: Record<string, KeyField> = { entityType: '_entityType', env: 'origin', owner: 'owners', tag: 'tags', domain: 'domains' };

/** DataHub's clients name a field's exact-match form `<field>.keyword`; here every key field matches exactly. */
const KEYWORD_SUFFIX = '.keyword';

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

/** Whether `name` is a key field or one of its aliases (anything else names a property). */
export function isKeyFieldName(name: string): boolean {
  return keyFieldNamed(name) !== undefined;
}

/** The key field a name stands for (its aliases and `.keyword` form included); undefined for anything else. */
function keyFieldNamed(name: string): KeyField | undefined {
  const bare = name.endsWith(KEYWORD_SUFFIX) ? name.slice(0, -KEYWORD_SUFFIX.length) : name;
  const key = KEY_FIELD_ALIASES[bare] ?? bare;
  return Object.hasOwn(KEY_FIELDS, key) ? (key as KeyField) : undefined;
}

export function keyFieldInfo(name: KeyField): KeyFieldInfo {
  const info = KEY_FIELDS[name];
  if (!info) throw new Error(`no key search field ${name}`);
  return info;
}

export function parseSearchField(name: string): SearchField {
  const key = keyFieldNamed(name);
  if (key !== undefined) return { kind: 'key', name: key };
  if (!name.startsWith(PROPERTY_FIELD_PREFIX)) {
    throw new ValidationError(
      `Unknown search field ${name}; fields are ${KEY_FIELD_NAMES.join(', ')} and ${PROPERTY_FIELD_PREFIX}<qualified name>`,
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
