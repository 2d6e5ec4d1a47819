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
import { entityTypeByGraphql, findEntityType } from './registry/entityTypes.js';
import { ValidationError } from './errors.js';
import { searchFieldName, VERSION_PATTERN } from './propertyDefinition.js';
import { DATA_TYPES, dataTypeUrn, entityTypeUrn, tryParseDataType, tryParseEntityType, type DataType, type UrnNamespace } from './typeUrns.js';

/** How a key field's values are held and compared. */
export type KeyValueKind = 'text' | 'boolean';

export interface KeyFieldInfo {
  readonly kind: KeyValueKind;
  /** Shown as a facet's displayName. */
  readonly displayName: string;
  /** A caller's value in the form the index holds; throws ValidationError when it cannot be one. */
  readonly normalize?: (value: string) => string;
  /** A stored value as facets show it (type URNs in the server's namespace). */
  readonly display?: (value: string, urnNamespace: UrnNamespace) => string;
}

const PLATFORM_PREFIX = 'urn:li:dataPlatform:';

/** A bare name (`pii`) as the URN of its entity type (`urn:li:tag:pii`); a URN stays as written. */
const urnOf = (entityType: string) => (v: string) => (v.startsWith('urn:') ? v : `urn:li:${entityType}:${v}`);

function entityTypeName(value: string): string {
  const type = findEntityType(value) ?? entityTypeByGraphql(value) ?? tryParseEntityType(value, true);
  if (!type) throw new ValidationError(`${JSON.stringify(value)} is not an entity type; use a name such as dataset or DATASET`, 'values');
  return type.name;
}

function dataTypeName(value: string): DataType {
  const type = tryParseDataType(value, true) ?? tryParseDataType(value.toLowerCase(), true);
  if (!type) throw new ValidationError(`${JSON.stringify(value)} is not a data type; use one of ${DATA_TYPES.join(', ')} or its urn`, 'values');
  return type;
}

function booleanText(value: string): string {
  const v = value.trim().toLowerCase();
  if (v !== 'true' && v !== 'false') throw new ValidationError(`${JSON.stringify(value)} is not a boolean; use true or false`, 'values');
  return v;
}

export const KEY_FIELDS = {
  urn: { kind: 'text', displayName: 'Urn' },
  /** Matches the exact name, or a word of it (`clicks` matches `analytics.daily_clicks`). */
  name: { kind: 'text', displayName: 'Name' },
  platform: {
    kind: 'text',
    displayName: 'Platform',
    normalize: (v) => (v.startsWith('urn:') ? v : `${PLATFORM_PREFIX}${v}`),
  },
  origin: { kind: 'text', displayName: 'Environment' },
  /** status.removed; without a filter on it, soft-deleted entities are left out. */
  removed: { kind: 'boolean', displayName: 'Soft deleted', normalize: booleanText },
  /** The entity type, as its name (`dataset`) or GraphQL value (`DATASET`); facets show the GraphQL value. */
  _entityType: {
    kind: 'text',
    displayName: 'Type',
    normalize: entityTypeName,
    display: (v) => findEntityType(v)?.graphql ?? v,
  },
  // Structured property definitions.
  qualifiedName: { kind: 'text', displayName: 'Qualified name' },
  displayName: { kind: 'text', displayName: 'Display name' },
  valueType: { kind: 'text', displayName: 'Value type', normalize: dataTypeName, display: (v, namespace) => dataTypeUrn(v as DataType, namespace) },
  entityTypes: {
    kind: 'text',
    displayName: 'Entity types',
    normalize: entityTypeName,
    display: (v, namespace) => {
      const type = findEntityType(v);
      return type ? entityTypeUrn(type, namespace) : v;
    },
  },
  cardinality: { kind: 'text', displayName: 'Cardinality', normalize: (v) => v.toUpperCase() },
  showInSearchFilters: { kind: 'boolean', displayName: 'Shown in search filters', normalize: booleanText },
  isHidden: { kind: 'boolean', displayName: 'Hidden', normalize: booleanText },
  showInAssetSummary: { kind: 'boolean', displayName: 'Shown in asset summary', normalize: booleanText },
  showInColumnsTable: { kind: 'boolean', displayName: 'Shown in columns table', normalize: booleanText },
  showAsAssetBadge: { kind: 'boolean', displayName: 'Shown as asset badge', normalize: booleanText },
  // Schema fields.
  fieldPath: { kind: 'text', displayName: 'Field path' },
  parent: { kind: 'text', displayName: 'Dataset' },
  // Assets' common aspects, under DataHub's field names (what its SDK's filters name).
  typeNames: { kind: 'text', displayName: 'Sub type' },
  domains: { kind: 'text', displayName: 'Domain', normalize: urnOf('domain') },
  container: { kind: 'text', displayName: 'Container', normalize: urnOf('container') },
  owners: { kind: 'text', displayName: 'Owner', normalize: urnOf('corpuser') },
  tags: { kind: 'text', displayName: 'Tag', normalize: urnOf('tag') },
  glossaryTerms: { kind: 'text', displayName: 'Glossary term', normalize: urnOf('glossaryTerm') },
  customProperties: { kind: 'text', displayName: 'Custom property' },
  /** The containers the entity sits in, from its browse path (DataHub's browsePathV2; F.container matches with CONTAIN). */
  browsePathV2: { kind: 'text', displayName: 'Browse path', normalize: urnOf('container') },
  // Metadata tests' stored results.
  passingTests: { kind: 'text', displayName: 'Passing tests', normalize: urnOf('test') },
  failingTests: { kind: 'text', displayName: 'Failing tests', normalize: urnOf('test') },
  hasPassingTests: { kind: 'boolean', displayName: 'Has passing tests', normalize: booleanText },
  hasFailingTests: { kind: 'boolean', displayName: 'Has failing tests', normalize: booleanText },
} satisfies Record<string, KeyFieldInfo>;

export type KeyField = keyof typeof KEY_FIELDS;
export const KEY_FIELD_NAMES = Object.keys(KEY_FIELDS) as KeyField[];

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
  return KEY_FIELDS[name];
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
