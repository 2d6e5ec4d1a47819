/**
 * Data-type and entity-type URNs (SPEC 1). The canonical namespace is `svc`; on input
 * the `datahub.` alias and the bare short form are accepted too, and anything else is
 * a validation error. Stored and returned values are always canonical.
 */
import { ValidationError } from './errors.js';
import { findEntityType, type EntityTypeInfo } from './entityTypes.js';

export const NAMESPACE = 'svc';
const ALIASES = ['svc', 'datahub'];

export const DATA_TYPES = ['string', 'rich_text', 'number', 'date', 'urn'] as const;
export type DataType = (typeof DATA_TYPES)[number];

const DATA_TYPE_PREFIX = 'urn:li:dataType:';
const ENTITY_TYPE_PREFIX = 'urn:li:entityType:';

/** `svc.number`, `datahub.number` or `number` → `number`; undefined when not of that form. */
function stripNamespace(id: string): string | undefined {
  const dot = id.indexOf('.');
  if (dot < 0) return id;
  const ns = id.slice(0, dot);
  return ALIASES.includes(ns) ? id.slice(dot + 1) : undefined;
}

export function dataTypeUrn(type: DataType): string {
  return `${DATA_TYPE_PREFIX}${NAMESPACE}.${type}`;
}

export function entityTypeUrn(type: EntityTypeInfo): string {
  return `${ENTITY_TYPE_PREFIX}${NAMESPACE}.${type.name}`;
}

/** Resolves a data type URN in any accepted form (or, where allowed, a bare name like `number`). */
export function tryParseDataType(value: unknown, allowBareName = false): DataType | undefined {
  if (typeof value !== 'string') return undefined;
  let id: string;
  if (value.startsWith(DATA_TYPE_PREFIX)) id = value.slice(DATA_TYPE_PREFIX.length);
  else if (allowBareName) id = value;
  else return undefined;
  // Only bare names (CLI short names) are case-insensitive; URN forms match exactly.
  const stripped = stripNamespace(id);
  const name = id === value ? stripped?.toLowerCase() : stripped;
  return DATA_TYPES.find((t) => t === name);
}

export function parseDataTypeUrn(value: unknown, field = 'valueType'): DataType {
  const type = tryParseDataType(value);
  if (!type) {
    throw new ValidationError(
      `${field}: ${JSON.stringify(value)} is not a known data type; expected one of ${DATA_TYPES.map(dataTypeUrn).join(', ')}`,
      field,
    );
  }
  return type;
}

/** Resolves an entity type URN in any accepted form (or, where allowed, a bare name like `dataset`). */
export function tryParseEntityType(value: unknown, allowBareName = false): EntityTypeInfo | undefined {
  if (typeof value !== 'string') return undefined;
  let id: string;
  if (value.startsWith(ENTITY_TYPE_PREFIX)) id = value.slice(ENTITY_TYPE_PREFIX.length);
  else if (allowBareName) id = value;
  else return undefined;
  const name = stripNamespace(id);
  const type = name ? findEntityType(name) : undefined;
  // findEntityType ignores case (for REST paths); inside a URN the name must match exactly.
  return type && (id === value || type.name === name) ? type : undefined;
}

export function parseEntityTypeUrn(value: unknown, field = 'entityTypes'): EntityTypeInfo {
  const type = tryParseEntityType(value);
  if (!type) throw new ValidationError(`${field}: ${JSON.stringify(value)} is not a known entity type urn`, field);
  return type;
}

/** GraphQL's StdDataType enum value for a data type. */
export function stdDataType(type: DataType): 'STRING' | 'RICH_TEXT' | 'NUMBER' | 'DATE' | 'URN' {
  return type.toUpperCase() as 'STRING' | 'RICH_TEXT' | 'NUMBER' | 'DATE' | 'URN';
}
