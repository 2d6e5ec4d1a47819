/**
 * Data-type and entity-type URNs (docs/contract.md §1). The canonical namespace is `svc` unless the
 * server is set up with URN_NAMESPACE=datahub (DataHub's own clients check for
 * `urn:li:dataType:datahub.<type>` when they read a definition back); on input both
 * namespaces and the bare short form are accepted, and anything else is a validation
 * error. Stored and returned values are always in the canonical namespace.
 *
 * The namespace is configuration passed in: every function that writes a type URN, or
 * names one in a message, takes it as an argument (the server's, from config.ts, handed
 * to the services and the GraphQL context at start-up). Reading needs none.
 */
import { closestWord } from './closestWord.js';
import { ENTITY_TYPES, findEntityType, type EntityTypeInfo } from './registry/entityTypes.js';
import { DATA_TYPES, valueType, type DataType, type StdDataType } from './registry/valueTypes.js';
import { ValidationError } from './errors.js';
import { quoteInput } from './inputLimits.js';

export const URN_NAMESPACES = ['svc', 'datahub'] as const;
export type UrnNamespace = (typeof URN_NAMESPACES)[number];
const ALIASES: readonly string[] = URN_NAMESPACES;

/**
 * The namespace unless URN_NAMESPACE says otherwise, as the seed writes type URNs; also
 * the CLI's, which checks files before any server sees them and does not know a
 * server's setting (the server writes what it stores in its own).
 */
export const DEFAULT_URN_NAMESPACE: UrnNamespace = 'svc';

export { DATA_TYPES, type DataType };

const DATA_TYPE_PREFIX = 'urn:li:dataType:';
const ENTITY_TYPE_PREFIX = 'urn:li:entityType:';

/** `svc.number`, `datahub.number` or `number` → `number`; undefined when not of that form. */
function stripNamespace(id: string): string | undefined {
  const dot = id.indexOf('.');
  if (dot < 0) return id;
  const ns = id.slice(0, dot);
  return ALIASES.includes(ns) ? id.slice(dot + 1) : undefined;
}

export function dataTypeUrn(type: DataType, namespace: UrnNamespace): string {
  return `${DATA_TYPE_PREFIX}${namespace}.${type}`;
}

export function entityTypeUrn(type: EntityTypeInfo, namespace: UrnNamespace): string {
  return `${ENTITY_TYPE_PREFIX}${namespace}.${type.name}`;
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

export type Resolved<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly reason: string };

/** The name inside a type URN in any accepted form (`urn:li:dataType:datahub.number` → `number`). */
function nameIn(text: string): string {
  const id = text.slice(text.lastIndexOf(':') + 1);
  return id.slice(id.indexOf('.') + 1);
}

/**
 * A data type named by URN (or, with `bareNames`, by its short name as the CLI's
 * files write it); the reason says which forms are accepted and what was probably meant.
 */
export function resolveDataType(text: string, namespace: UrnNamespace, bareNames = false): Resolved<DataType> {
  const type = tryParseDataType(bareNames && !text.startsWith('urn:') ? text.toLowerCase() : text, bareNames);
  if (type) return { ok: true, value: type };
  const urnOf = (t: DataType) => dataTypeUrn(t, namespace);
  const bare = tryParseDataType(text.toLowerCase(), true);
  if (bare && !bareNames) return { ok: false, reason: `${quoteInput(text)} is not a data type urn; write ${urnOf(bare)}` };
  const guess = closestWord(nameIn(text), DATA_TYPES) as DataType | undefined;
  const forms = bareNames ? DATA_TYPES.join(', ') : DATA_TYPES.map(urnOf).join(', ');
  const hint = guess ? ` (did you mean ${bareNames && !text.startsWith('urn:') ? guess : urnOf(guess)}?)` : '';
  return { ok: false, reason: `${quoteInput(text)} is not a data type; use one of ${forms}${hint}` };
}

/** The same for entity types (`urn:li:entityType:svc.dataset`, or `dataset` with `bareNames`). */
export function resolveEntityType(text: string, namespace: UrnNamespace, bareNames = false): Resolved<EntityTypeInfo> {
  const type = tryParseEntityType(text, bareNames);
  if (type) return { ok: true, value: type };
  const urnOf = (t: EntityTypeInfo) => entityTypeUrn(t, namespace);
  const bare = tryParseEntityType(text, true);
  if (bare && !bareNames) return { ok: false, reason: `${quoteInput(text)} is not an entity type urn; write ${urnOf(bare)}` };
  const guessName = closestWord(nameIn(text), ENTITY_TYPES.map((t) => t.name));
  const guess = guessName ? findEntityType(guessName) : undefined;
  const hint = guess ? `; did you mean ${bareNames && !text.startsWith('urn:') ? guess.name : urnOf(guess)}?` : `; write ${ENTITY_TYPE_PREFIX}${namespace}.<entity type>, e.g. ${urnOf(ENTITY_TYPES[0]!)}`;
  return { ok: false, reason: `${quoteInput(text)} is not an entity type${hint}` };
}

/** A data type URN from untrusted input; a ValidationError naming `field` and the accepted forms otherwise. */
export function parseDataTypeUrn(value: unknown, namespace: UrnNamespace, field = 'valueType'): DataType {
  const resolved = typeof value === 'string' ? resolveDataType(value, namespace) : undefined;
  if (resolved?.ok) return resolved.value;
  throw new ValidationError(`${field} ${resolved?.reason ?? `must be a data type urn such as ${dataTypeUrn('string', namespace)}`}`, field);
}

/**
 * The data type of a URN already checked (a stored definition's), in any namespace:
 * reading needs no namespace; a URN that is not one is a ValidationError naming `field`.
 */
export function dataTypeOf(urn: string, field = 'valueType'): DataType {
  const type = tryParseDataType(urn);
  if (!type) throw new ValidationError(`${field} ${quoteInput(urn)} is not a data type urn`, field);
  return type;
}

/** The same for an entity type URN. */
export function entityTypeOf(urn: string, field = 'entityTypes'): EntityTypeInfo {
  const type = tryParseEntityType(urn);
  if (!type) throw new ValidationError(`${field} ${quoteInput(urn)} is not an entity type urn`, field);
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

/** An entity type URN from untrusted input; a ValidationError naming `field` and the accepted forms otherwise. */
export function parseEntityTypeUrn(value: unknown, namespace: UrnNamespace, field = 'entityTypes'): EntityTypeInfo {
  const resolved = typeof value === 'string' ? resolveEntityType(value, namespace) : undefined;
  if (resolved?.ok) return resolved.value;
  throw new ValidationError(`${field} ${resolved?.reason ?? `must be an entity type urn such as ${ENTITY_TYPE_PREFIX}${namespace}.dataset`}`, field);
}

/** GraphQL's StdDataType enum value for a data type. */
export function stdDataType(type: DataType): StdDataType {
  return valueType(type).std;
}

/** A type URN in any accepted form, written in the canonical namespace; text that is not one is returned unchanged. */
export function canonicalTypeUrn(text: string, namespace: UrnNamespace): string {
  const dataType = tryParseDataType(text);
  if (dataType) return dataTypeUrn(dataType, namespace);
  const entityType = tryParseEntityType(text);
  return entityType ? entityTypeUrn(entityType, namespace) : text;
}
