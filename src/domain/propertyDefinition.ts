/**
 * Structured property definitions (docs/contract.md §2): parsing an untrusted definition into its
 * canonical stored form, and the rules every definition must satisfy.
 */
import { DATA_TYPES, valueType as registryValueType } from './registry/valueTypes.js';
import type { EntityTypeInfo } from './registry/entityTypes.js';
import { quoteInput, type PathSegment } from './inputLimits.js';
import { propertyDefinitionShape, VERSION_PATTERN, type PropertyDefinitionShape } from './shapes/propertyDefinition.js';
import { shapeOf, throwProblems, type Problem } from './shapes/shape.js';
import { coerceTypedValue, sameValue, valueAsWritten, type TypedValue } from './typedValue.js';
import { canonicalTypeUrn, dataTypeOf, dataTypeUrn, entityTypeOf, entityTypeUrn, resolveDataType, resolveEntityType, type DataType, type UrnNamespace } from './typeUrns.js';

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
  /** DataHub's fields, kept as given. */
  searchConfiguration?: Record<string, unknown>;
  allowedPlatforms?: string[];
  created?: { time: number; actor: string };
  lastModified?: { time: number; actor: string };
  filterStatus?: string;
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

export { VERSION_PATTERN };

export interface DefinitionOptions {
  /** The namespace its type URNs are written in (the server's URN_NAMESPACE). */
  readonly namespace: UrnNamespace;
  /** The URN id the qualified name must equal, when it is known. */
  readonly urnId?: string;
  /** Accept type names without their URN prefix (`number`, `dataset`), as the CLI's files write them. */
  readonly bareNames?: boolean;
}

function entityTypeList(raw: readonly string[], path: PathSegment[], options: DefinitionOptions, problems: Problem[]): EntityTypeInfo[] {
  const types: EntityTypeInfo[] = [];
  raw.forEach((text, i) => {
    const resolved = resolveEntityType(text, options.namespace, options.bareNames ?? false);
    if (!resolved.ok) problems.push({ path: [...path, i], reason: resolved.reason });
    else if (types.some((t) => t.name === resolved.value.name)) problems.push({ path: [...path, i], reason: `lists ${entityTypeUrn(resolved.value, options.namespace)} more than once` });
    else types.push(resolved.value);
  });
  return types;
}

/**
 * The rules of a definition beyond its shape: type URNs resolve, the qualified name
 * has no spaces and equals the URN id, a type qualifier only on urn properties,
 * allowed values typed like the property and listed once. Every problem is reported
 * (the CLI lists them all); the definition comes back in canonical form when there
 * are none. Fields DataHub's clients send that propgraph does not interpret
 * (created, lastModified, searchConfiguration, filterStatus, allowedPlatforms) are kept as given.
 */
export function resolveDefinition(shape: PropertyDefinitionShape, options: DefinitionOptions): { definition?: PropertyDefinition; problems: Problem[] } {
  const problems: Problem[] = [];
  const { namespace } = options;
  const bareNames = options.bareNames ?? false;
  const { qualifiedName } = shape;
  if (/\s/.test(qualifiedName)) problems.push({ path: ['qualifiedName'], reason: `${quoteInput(qualifiedName)} cannot have spaces; use dots or underscores` });
  else if (options.urnId !== undefined && qualifiedName !== options.urnId) {
    problems.push({ path: ['qualifiedName'], reason: `${quoteInput(qualifiedName)} must equal the urn id ${quoteInput(options.urnId)}` });
  }
  const valueType = resolveDataType(shape.valueType, namespace, bareNames);
  if (!valueType.ok) problems.push({ path: ['valueType'], reason: valueType.reason });
  const entityTypes = entityTypeList(shape.entityTypes, ['entityTypes'], options, problems);

  let allowedUrnTypes: string[] | undefined;
  let typeQualifier: { allowedTypes: string[] } | undefined;
  if (shape.typeQualifier) {
    if (valueType.ok && !registryValueType(valueType.value).namesEntities) {
      const namingTypes = DATA_TYPES.filter((t) => registryValueType(t).namesEntities).map((t) => dataTypeUrn(t, namespace)).join(' or ');
      problems.push({ path: ['typeQualifier'], reason: `applies only to urn-typed properties (valueType ${namingTypes}); remove it or change the valueType` });
    }
    const types = entityTypeList(shape.typeQualifier.allowedTypes ?? [], ['typeQualifier', 'allowedTypes'], options, problems);
    allowedUrnTypes = types.map((t) => t.name);
    typeQualifier = { allowedTypes: types.map((t) => entityTypeUrn(t, namespace)) };
  }
  const allowedValues = shape.allowedValues && valueType.ok ? checkAllowedValues(shape.allowedValues, valueType.value, allowedUrnTypes, problems) : undefined;
  if (problems.length > 0 || !valueType.ok) return { problems };

  const def: PropertyDefinition = { qualifiedName, valueType: dataTypeUrn(valueType.value, namespace), entityTypes: entityTypes.map((t) => entityTypeUrn(t, namespace)) };
  if (shape.displayName != null) def.displayName = shape.displayName;
  if (shape.description != null) def.description = shape.description;
  if (shape.cardinality != null) def.cardinality = shape.cardinality;
  if (shape.immutable != null) def.immutable = shape.immutable;
  if (shape.version != null) def.version = shape.version;
  if (typeQualifier) def.typeQualifier = typeQualifier;
  if (allowedValues) def.allowedValues = allowedValues;
  for (const key of PASS_THROUGH) if (shape[key] != null) (def as unknown as Record<string, unknown>)[key] = shape[key];
  return { definition: def, problems };
}

const PASS_THROUGH = ['searchConfiguration', 'created', 'lastModified', 'filterStatus', 'allowedPlatforms'] as const;

/**
 * A stored definition with its type URNs in `namespace`, the server's: one written
 * while the server ran with the other URN_NAMESPACE reads, and compares, as if written now.
 */
export function inCanonicalNamespace(stored: PropertyDefinition, namespace: UrnNamespace): PropertyDefinition {
  const canonical = (text: string) => canonicalTypeUrn(text, namespace);
  const def: PropertyDefinition = { ...stored, valueType: canonical(stored.valueType), entityTypes: stored.entityTypes.map(canonical) };
  if (stored.typeQualifier) def.typeQualifier = { ...stored.typeQualifier, allowedTypes: stored.typeQualifier.allowedTypes.map(canonical) };
  return def;
}

/**
 * Parses a definition for the property whose URN id is `urnId`, its type URNs written in
 * `namespace`. Throws a ValidationError naming each field at fault, the reason and the fix.
 */
export function parsePropertyDefinition(input: unknown, urnId: string, namespace: UrnNamespace): PropertyDefinition {
  const shaped = shapeOf(propertyDefinitionShape, input);
  if (!shaped.ok) throwProblems(shaped.problems, 'propertyDefinition');
  const { definition, problems } = resolveDefinition(shaped.value, { urnId, namespace });
  if (!definition) throwProblems(problems, 'propertyDefinition');
  return definition;
}

function checkAllowedValues(raw: PropertyDefinitionShape['allowedValues'] & object, valueType: DataType, allowedUrnTypes: string[] | undefined, problems: Problem[]): AllowedValue[] {
  const out: AllowedValue[] = [];
  raw.forEach((entry, i) => {
    const path = ['allowedValues', i, 'value'];
    const coerced = coerceTypedValue(entry.value, valueType, allowedUrnTypes ? { allowedEntityTypes: allowedUrnTypes } : {});
    if (!coerced.ok) problems.push({ path, reason: `${valueAsWritten(entry.value)} ${coerced.reason}` });
    else if (out.some((o) => sameValue(o.value, coerced.value))) problems.push({ path, reason: `${valueAsWritten(coerced.value)} is listed more than once` });
    else out.push({ value: coerced.value, ...(entry.description != null ? { description: entry.description } : {}) });
  });
  return out;
}

/** Applies defaults and resolves URNs of a stored definition. */
export function effectiveDefinition(urn: string, def: PropertyDefinition): EffectiveDefinition {
  return {
    urn,
    qualifiedName: def.qualifiedName,
    valueType: dataTypeOf(def.valueType),
    entityTypes: def.entityTypes.map((t) => entityTypeOf(t).name),
    cardinality: def.cardinality ?? 'SINGLE',
    ...(def.allowedValues ? { allowedValues: def.allowedValues } : {}),
    ...(def.typeQualifier ? { allowedUrnTypes: def.typeQualifier.allowedTypes.map((t) => entityTypeOf(t, 'typeQualifier.allowedTypes').name) } : {}),
    immutable: def.immutable ?? false,
    ...(def.version ? { version: def.version } : {}),
  };
}

/**
 * The name of a property's field in the REST query syntax and in search documents
 * (docs/contract.md §6): dots become underscores, so two live properties that differ only by `.`
 * vs `_` would collide and the second is rejected.
 */
export function searchFieldName(qualifiedName: string): string {
  return qualifiedName.replace(/\./g, '_');
}

type Stamp = { readonly time: number; readonly actor: string };

/** Whether the definition carries both audit stamps itself (then the server's record is not needed). */
export const hasOwnAudit = (definition: Pick<PropertyDefinition, 'created' | 'lastModified'>): boolean => Boolean(definition.created && definition.lastModified);

/**
 * A definition's audit stamps as readers see them: those its writer gave (DataHub's
 * clients may send created and lastModified; REST returns the aspect as written, as
 * DataHub does), else the server's record of the aspect's first and latest write.
 */
export function definitionAudit(
  definition: Pick<PropertyDefinition, 'created' | 'lastModified'>,
  recorded: { readonly created: Stamp; readonly lastModified: Stamp } | undefined,
): { created: Stamp | null; lastModified: Stamp | null } {
  return { created: definition.created ?? recorded?.created ?? null, lastModified: definition.lastModified ?? recorded?.lastModified ?? null };
}
