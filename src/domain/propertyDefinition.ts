/**
 * Structured property definitions (SPEC 2): parsing an untrusted definition into its
 * canonical stored form, and the rules every definition must satisfy.
 */
import { ValidationError } from './errors.js';
import type { EntityTypeInfo } from './entityTypes.js';
import { LIMITS } from './limits.js';
import { coerceTypedValue, describeValue, sameValue, type TypedValue } from './typedValue.js';
import { entityTypeUrn, parseDataTypeUrn, parseEntityTypeUrn, dataTypeUrn, type DataType } from './typeUrns.js';

export type Cardinality = 'SINGLE' | 'MULTIPLE';

export interface AllowedValue {
  value: TypedValue;
  description?: string;
}

/** The `propertyDefinition` aspect as stored: canonical URNs, nothing added. */
export interface PropertyDefinition {
  qualifiedName: string;
  valueType: string;
  entityTypes: string[];
  displayName?: string;
  description?: string;
  cardinality?: Cardinality;
  allowedValues?: AllowedValue[];
  typeQualifier?: { allowedTypes: string[] };
  immutable?: boolean;
  version?: string;
}

/** A definition with its defaults applied and its URNs resolved: what the rules work on. */
export interface EffectiveDefinition {
  readonly urn: string;
  readonly qualifiedName: string;
  readonly valueType: DataType;
  readonly entityTypes: readonly string[];
  readonly cardinality: Cardinality;
  readonly allowedValues?: readonly AllowedValue[];
  readonly allowedUrnTypes?: readonly string[];
  readonly immutable: boolean;
  readonly version?: string;
}

const KNOWN_KEYS = new Set([
  'qualifiedName', 'valueType', 'entityTypes', 'displayName', 'description', 'cardinality',
  'allowedValues', 'typeQualifier', 'immutable', 'version',
]);

export const VERSION_PATTERN = /^[0-9]{14}$/;

function optionalString(obj: Record<string, unknown>, key: string, max: number): string | undefined {
  const v = obj[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new ValidationError(`${key} must be a string`, key);
  if (v.length > max) throw new ValidationError(`${key} is longer than the limit of ${max} characters`, key);
  return v;
}

function entityTypeList(raw: unknown, field: string): EntityTypeInfo[] {
  if (!Array.isArray(raw)) throw new ValidationError(`${field} must be a list of entity type urns`, field);
  if (raw.length > LIMITS.entityTypesPerDefinition) {
    throw new ValidationError(`${field} has more than the limit of ${LIMITS.entityTypesPerDefinition} entries`, field);
  }
  const types = raw.map((t) => parseEntityTypeUrn(t, field));
  const seen = new Set<string>();
  for (const t of types) {
    if (seen.has(t.name)) throw new ValidationError(`${field} lists ${entityTypeUrn(t)} more than once`, field);
    seen.add(t.name);
  }
  return types;
}

/**
 * Parses a definition for the property whose URN id is `urnId`. Throws a
 * ValidationError naming the field and the reason on the first problem found.
 */
export function parsePropertyDefinition(input: unknown, urnId: string): PropertyDefinition {
  if (!input || typeof input !== 'object' || Array.isArray(input)) {
    throw new ValidationError('propertyDefinition must be a JSON object');
  }
  const obj = input as Record<string, unknown>;
  const unknown = Object.keys(obj).filter((k) => !KNOWN_KEYS.has(k));
  if (unknown.length > 0) throw new ValidationError(`Unknown field(s) in propertyDefinition: ${unknown.join(', ')}`, unknown[0]);

  const qualifiedName = obj.qualifiedName;
  if (typeof qualifiedName !== 'string' || qualifiedName.length === 0) {
    throw new ValidationError('qualifiedName is required', 'qualifiedName');
  }
  if (/\s/.test(qualifiedName)) throw new ValidationError('Qualified names cannot have spaces', 'qualifiedName');
  if (qualifiedName.length > LIMITS.nameLength) {
    throw new ValidationError(`qualifiedName is longer than the limit of ${LIMITS.nameLength} characters`, 'qualifiedName');
  }
  if (qualifiedName !== urnId) {
    throw new ValidationError(`qualifiedName ${qualifiedName} must equal the urn id ${urnId}`, 'qualifiedName');
  }
  if (obj.valueType === undefined) throw new ValidationError('valueType is required', 'valueType');
  const valueType = parseDataTypeUrn(obj.valueType);
  if (obj.entityTypes === undefined) throw new ValidationError('entityTypes is required', 'entityTypes');
  const entityTypes = entityTypeList(obj.entityTypes, 'entityTypes');
  if (entityTypes.length === 0) throw new ValidationError('entityTypes must name at least one entity type', 'entityTypes');

  const def: PropertyDefinition = {
    qualifiedName,
    valueType: dataTypeUrn(valueType),
    entityTypes: entityTypes.map(entityTypeUrn),
  };
  const displayName = optionalString(obj, 'displayName', LIMITS.nameLength);
  if (displayName !== undefined) def.displayName = displayName;
  const description = optionalString(obj, 'description', LIMITS.descriptionLength);
  if (description !== undefined) def.description = description;

  if (obj.cardinality !== undefined && obj.cardinality !== null) {
    if (obj.cardinality !== 'SINGLE' && obj.cardinality !== 'MULTIPLE') {
      throw new ValidationError(`cardinality must be SINGLE or MULTIPLE, got ${JSON.stringify(obj.cardinality)}`, 'cardinality');
    }
    def.cardinality = obj.cardinality;
  }
  if (obj.immutable !== undefined && obj.immutable !== null) {
    if (typeof obj.immutable !== 'boolean') throw new ValidationError('immutable must be a boolean', 'immutable');
    def.immutable = obj.immutable;
  }
  if (obj.version !== undefined && obj.version !== null) {
    if (typeof obj.version !== 'string' || !VERSION_PATTERN.test(obj.version)) {
      throw new ValidationError('Invalid version specified. Must match [0-9]{14}', 'version');
    }
    def.version = obj.version;
  }
  let allowedUrnTypes: string[] | undefined;
  if (obj.typeQualifier !== undefined && obj.typeQualifier !== null) {
    const tq = obj.typeQualifier;
    if (!tq || typeof tq !== 'object' || Array.isArray(tq)) throw new ValidationError('typeQualifier must be an object', 'typeQualifier');
    const extra = Object.keys(tq).filter((k) => k !== 'allowedTypes');
    if (extra.length > 0) throw new ValidationError(`Unknown field(s) in typeQualifier: ${extra.join(', ')}`, 'typeQualifier');
    if (valueType !== 'urn') throw new ValidationError('typeQualifier applies only to urn-typed properties', 'typeQualifier');
    const types = entityTypeList((tq as Record<string, unknown>).allowedTypes ?? [], 'typeQualifier.allowedTypes');
    allowedUrnTypes = types.map((t) => t.name);
    def.typeQualifier = { allowedTypes: types.map(entityTypeUrn) };
  }
  if (obj.allowedValues !== undefined && obj.allowedValues !== null) {
    def.allowedValues = parseAllowedValues(obj.allowedValues, valueType, allowedUrnTypes);
  }
  return def;
}

function parseAllowedValues(raw: unknown, valueType: DataType, allowedUrnTypes?: string[]): AllowedValue[] {
  if (!Array.isArray(raw)) throw new ValidationError('allowedValues must be a list', 'allowedValues');
  if (raw.length > LIMITS.allowedValues) {
    throw new ValidationError(`allowedValues has more than the limit of ${LIMITS.allowedValues} entries`, 'allowedValues');
  }
  const out: AllowedValue[] = [];
  raw.forEach((entry, i) => {
    const field = `allowedValues[${i}]`;
    if (!entry || typeof entry !== 'object' || Array.isArray(entry)) throw new ValidationError(`${field} must be an object`, field);
    const e = entry as Record<string, unknown>;
    const extra = Object.keys(e).filter((k) => k !== 'value' && k !== 'description');
    if (extra.length > 0) throw new ValidationError(`Unknown field(s) in ${field}: ${extra.join(', ')}`, field);
    const coerced = coerceTypedValue(e.value, valueType, allowedUrnTypes ? { allowedEntityTypes: allowedUrnTypes } : {});
    if (!coerced.ok) throw new ValidationError(`${field}.value ${describeValue(e.value)} ${coerced.reason}`, `${field}.value`);
    if (out.some((o) => sameValue(o.value, coerced.value))) {
      throw new ValidationError(`${field}.value ${describeValue(coerced.value)} is listed more than once`, `${field}.value`);
    }
    const allowed: AllowedValue = { value: coerced.value };
    const description = optionalString(e, 'description', LIMITS.descriptionLength);
    if (description !== undefined) allowed.description = description;
    out.push(allowed);
  });
  return out;
}

/** Applies defaults and resolves URNs of a stored definition. */
export function effectiveDefinition(urn: string, def: PropertyDefinition): EffectiveDefinition {
  return {
    urn,
    qualifiedName: def.qualifiedName,
    valueType: parseDataTypeUrn(def.valueType),
    entityTypes: def.entityTypes.map((t) => parseEntityTypeUrn(t).name),
    cardinality: def.cardinality ?? 'SINGLE',
    ...(def.allowedValues ? { allowedValues: def.allowedValues } : {}),
    ...(def.typeQualifier ? { allowedUrnTypes: def.typeQualifier.allowedTypes.map((t) => parseEntityTypeUrn(t).name) } : {}),
    immutable: def.immutable ?? false,
    ...(def.version ? { version: def.version } : {}),
  };
}

/**
 * The name of a property's field in the REST query syntax and in search documents
 * (SPEC 6): dots become underscores, so two live properties that differ only by `.`
 * vs `_` would collide and the second is rejected.
 */
export function searchFieldName(qualifiedName: string): string {
  return qualifiedName.replace(/\./g, '_');
}
