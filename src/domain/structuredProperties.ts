/**
 * Values of structured properties on an entity (SPEC 3): the `structuredProperties`
 * aspect's shape, and every rule a value assignment must satisfy. Pure: the caller
 * supplies the definitions and the entity's current values.
 */
import { SoftDeletedError, ValidationError } from './errors.js';
import { LIMITS } from './limits.js';
import type { EffectiveDefinition } from './propertyDefinition.js';
import { coerceTypedValue, describeValue, sameValue, type TypedValue } from './typedValue.js';
import { tryParseUrn } from './urn.js';

export interface PropertyValueAssignment {
  propertyUrn: string;
  values: TypedValue[];
  created?: unknown;
  lastModified?: unknown;
  attribution?: unknown;
}

export interface StructuredPropertiesAspect {
  properties: PropertyValueAssignment[];
}

/** What the rules need to know of one property named in a write. */
export interface DefinitionState {
  readonly definition: EffectiveDefinition;
  readonly removed: boolean;
}

const ENTRY_KEYS = new Set(['propertyUrn', 'values', 'created', 'lastModified', 'attribution']);

/** Checks the aspect's shape and returns its entries; value types are checked later against definitions. */
export function parseStructuredPropertiesAspect(input: unknown): { properties: Array<{ propertyUrn: string; values: unknown[]; extra: Record<string, unknown> }> } {
  if (!input || typeof input !== 'object' || Array.isArray(input)) {
    throw new ValidationError('structuredProperties must be a JSON object with a "properties" list');
  }
  const obj = input as Record<string, unknown>;
  const unknown = Object.keys(obj).filter((k) => k !== 'properties');
  if (unknown.length > 0) throw new ValidationError(`Unknown field(s) in structuredProperties: ${unknown.join(', ')}`, unknown[0]);
  const props = obj.properties;
  if (!Array.isArray(props)) throw new ValidationError('structuredProperties.properties must be a list', 'properties');
  if (props.length > LIMITS.propertiesPerEntity) {
    throw new ValidationError(`properties has more than the limit of ${LIMITS.propertiesPerEntity} entries`, 'properties');
  }
  const seen = new Set<string>();
  return {
    properties: props.map((entry, i) => {
      const field = `properties[${i}]`;
      if (!entry || typeof entry !== 'object' || Array.isArray(entry)) throw new ValidationError(`${field} must be an object`, field);
      const e = entry as Record<string, unknown>;
      const extraKeys = Object.keys(e).filter((k) => !ENTRY_KEYS.has(k));
      if (extraKeys.length > 0) throw new ValidationError(`Unknown field(s) in ${field}: ${extraKeys.join(', ')}`, field);
      const propertyUrn = e.propertyUrn;
      if (typeof propertyUrn !== 'string') throw new ValidationError(`${field}.propertyUrn is required`, `${field}.propertyUrn`);
      const parsed = tryParseUrn(propertyUrn);
      if (!parsed.ok || parsed.urn.entityType.name !== 'structuredProperty') {
        throw new ValidationError(`${field}.propertyUrn ${propertyUrn} is not a structured property urn`, `${field}.propertyUrn`);
      }
      if (seen.has(propertyUrn)) throw new ValidationError(`Property ${propertyUrn} is listed more than once`, `${field}.propertyUrn`);
      seen.add(propertyUrn);
      const values = e.values;
      if (!Array.isArray(values)) throw new ValidationError(`${field}.values must be a list`, `${field}.values`);
      const extra: Record<string, unknown> = {};
      for (const k of ['created', 'lastModified', 'attribution']) if (e[k] !== undefined) extra[k] = e[k];
      return { propertyUrn, values, extra };
    }),
  };
}

export interface AssignmentContext {
  /** Entity type name of the entity receiving the values (e.g. `dataset`). */
  readonly targetType: string;
  /** Definitions of the properties named; a missing key means the property does not exist. */
  readonly definitions: ReadonlyMap<string, DefinitionState>;
  /** The entity's current visible values, for the immutability rule. */
  readonly current: ReadonlyMap<string, readonly TypedValue[]>;
}

/** Validates one property's values against its definition; returns them in canonical form. */
export function validateAssignment(propertyUrn: string, values: readonly unknown[], ctx: AssignmentContext): TypedValue[] {
  const state = ctx.definitions.get(propertyUrn);
  if (!state) throw new ValidationError(`Structured property ${propertyUrn} does not exist`, 'propertyUrn');
  if (state.removed) throw new SoftDeletedError(`Cannot apply a soft deleted Structured Property value: ${propertyUrn}`, 'propertyUrn');
  const def = state.definition;
  if (!def.entityTypes.includes(ctx.targetType)) {
    throw new ValidationError(
      `Property: ${propertyUrn} cannot be applied to entity type ${ctx.targetType}; allowed entity types: [${def.entityTypes.join(', ')}]`,
      'propertyUrn',
    );
  }
  if (values.length === 0) throw new ValidationError(`Property: ${propertyUrn} needs at least one value`, 'values');
  if (values.length > LIMITS.valuesPerProperty) {
    throw new ValidationError(`Property: ${propertyUrn} has more than the limit of ${LIMITS.valuesPerProperty} values`, 'values');
  }
  if (def.cardinality === 'SINGLE' && values.length > 1) {
    throw new ValidationError(
      `Property: ${propertyUrn} has cardinality SINGLE, but ${values.length} values were given: [${values.map(describeValue).join(', ')}]`,
      'values',
    );
  }
  const out: TypedValue[] = [];
  for (const raw of values) {
    const coerced = coerceTypedValue(raw, def.valueType, def.allowedUrnTypes ? { allowedEntityTypes: def.allowedUrnTypes } : {});
    if (!coerced.ok) throw new ValidationError(`Property: ${propertyUrn}, value: ${describeValue(raw)} ${coerced.reason}`, 'values');
    const value = coerced.value;
    if (def.allowedValues && def.allowedValues.length > 0 && !def.allowedValues.some((a) => sameValue(a.value, value))) {
      throw new ValidationError(
        `Property: ${propertyUrn}, value: ${describeValue(value)} should be one of [${def.allowedValues.map((a) => describeValue(a.value)).join(', ')}]`,
        'values',
      );
    }
    if (out.some((v) => sameValue(v, value))) {
      throw new ValidationError(`Property: ${propertyUrn}, value: ${describeValue(value)} is given more than once`, 'values');
    }
    out.push(value);
  }
  const current = ctx.current.get(propertyUrn);
  if (def.immutable && current && !sameValues(current, out)) {
    throw new ValidationError(`Property: ${propertyUrn} is immutable; its value cannot change once set`, 'values');
  }
  return out;
}

/** Checks that removing a property's values from an entity is allowed. */
export function checkRemoval(propertyUrn: string, ctx: AssignmentContext): void {
  const state = ctx.definitions.get(propertyUrn);
  if (state?.removed) throw new SoftDeletedError(`Cannot apply a soft deleted Structured Property value: ${propertyUrn}`, 'propertyUrn');
  if (state?.definition.immutable && ctx.current.has(propertyUrn)) {
    throw new ValidationError(`Property: ${propertyUrn} is immutable; its value cannot be removed`, 'propertyUrn');
  }
}

function sameValues(a: readonly TypedValue[], b: readonly TypedValue[]): boolean {
  return a.length === b.length && a.every((v) => b.some((w) => sameValue(v, w)));
}
