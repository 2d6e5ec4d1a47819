/**
 * Values of structured properties on an entity (docs/contract.md §3): the `structuredProperties`
 * aspect's shape, and every rule a value assignment must satisfy. Pure: the caller
 * supplies the definitions and the entity's current values.
 */
import { ENTITY } from './registry/entityTypes.js';
import { SoftDeletedError, ValidationError } from './errors.js';
import { quoteInput } from './inputLimits.js';
import { LIMITS } from './limits.js';
import type { EffectiveDefinition } from './propertyDefinition.js';
import type * as z from 'zod';
import { shapeOf, throwProblems, type Problem } from './shapes/shape.js';
import { structuredPropertiesShape } from './shapes/structuredProperties.js';
import { coerceTypedValue, describeValue, describeValues, sameValue, type TypedValue } from './typedValue.js';
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

/**
 * What a write does with the values of a property that does not exist (never defined, or
 * hard deleted): `refuse` the write (docs/contract.md §3, the default) or `drop` those
 * values with a warning and store the rest, as DataHub does with
 * structuredProperties.dropMissingPropertyValuesWithWarning
 * (DROP_UNDEFINED_PROPERTY_VALUES, passed to the write path as configuration).
 */
export type UndefinedPropertyValues = 'refuse' | 'drop';

/** What the rules need to know of one property named in a write. */
export interface DefinitionState {
  readonly definition: EffectiveDefinition;
  readonly removed: boolean;
}

type AspectShape = z.output<typeof structuredPropertiesShape>;

/**
 * The aspect's shape and the rules on its entries alone (each names a structured
 * property, once); every problem with its path. Value types are checked later,
 * against the definitions.
 */
export function structuredPropertiesProblems(input: unknown): { aspect?: AspectShape; problems: Problem[] } {
  const shaped = shapeOf(structuredPropertiesShape, input);
  if (!shaped.ok) return { problems: shaped.problems };
  const seen = new Set<string>();
  const problems: Problem[] = [];
  shaped.value.properties.forEach(({ propertyUrn, attribution }, i) => {
    const parsed = tryParseUrn(propertyUrn);
    // One entry per property and attribution source, as DataHub keys them: several sources may each set a property.
    const key = `${propertyUrn}\u241F${attribution?.source ?? ''}`;
    if (!parsed.ok || parsed.urn.entityType !== ENTITY.structuredProperty) {
      problems.push({ path: ['properties', i, 'propertyUrn'], reason: `${quoteInput(propertyUrn)} is not a structured property urn; write urn:li:structuredProperty:<qualified name>` });
    } else if (seen.has(key)) {
      const source = attribution?.source ? ` with attribution source ${attribution.source}` : '';
      problems.push({ path: ['properties', i, 'propertyUrn'], reason: `lists ${propertyUrn} more than once${source}; give each property once per source, with all its values` });
    }
    seen.add(key);
  });
  return { aspect: shaped.value, problems };
}

/** Checks the aspect's shape and returns its entries; value types are checked later against definitions. */
export function parseStructuredPropertiesAspect(input: unknown): { properties: Array<{ propertyUrn: string; values: unknown[]; extra: Record<string, unknown> }> } {
  const { aspect, problems } = structuredPropertiesProblems(input);
  if (!aspect || problems.length > 0) throwProblems(problems, 'structuredProperties');
  return {
    properties: aspect.properties.map(({ propertyUrn, values, ...rest }) => {
      const extra: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(rest)) if (v != null) extra[k] = v;
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
  if (!state) throw new ValidationError(`Structured property ${propertyUrn} does not exist`, 'propertyUrn', { propertyUrn });
  if (state.removed) throw new SoftDeletedError(`Cannot apply a soft deleted Structured Property value: ${propertyUrn}`, 'propertyUrn', { propertyUrn });
  const def = state.definition;
  if (!def.entityTypes.includes(ctx.targetType)) {
    throw new ValidationError(
      `Property: ${propertyUrn} cannot be applied to entity type ${ctx.targetType}; allowed entity types: [${def.entityTypes.join(', ')}]`,
      'propertyUrn',
      { propertyUrn },
    );
  }
  if (values.length === 0) throw new ValidationError(`Property: ${propertyUrn} needs at least one value`, 'values', { propertyUrn });
  if (values.length > LIMITS.valuesPerProperty) {
    throw new ValidationError(`Property: ${propertyUrn} has more than the limit of ${LIMITS.valuesPerProperty} values`, 'values', { propertyUrn });
  }
  if (def.cardinality === 'SINGLE' && values.length > 1) {
    throw new ValidationError(
      `Property: ${propertyUrn} has cardinality SINGLE, but ${values.length} values were given: ${describeValues(values)}`,
      'values',
      { propertyUrn },
    );
  }
  const out: TypedValue[] = [];
  for (const raw of values) {
    const coerced = coerceTypedValue(raw, def.valueType, def.allowedUrnTypes ? { allowedEntityTypes: def.allowedUrnTypes } : {});
    if (!coerced.ok) throw new ValidationError(`Property: ${propertyUrn}, value: ${describeValue(raw)} ${coerced.reason}`, 'values', { propertyUrn });
    const value = coerced.value;
    if (def.allowedValues && def.allowedValues.length > 0 && !def.allowedValues.some((a) => sameValue(a.value, value))) {
      throw new ValidationError(
        `Property: ${propertyUrn}, value: ${describeValue(value)} should be one of ${describeValues(def.allowedValues.map((a) => a.value))}`,
        'values',
      );
    }
    if (out.some((v) => sameValue(v, value))) {
      throw new ValidationError(`Property: ${propertyUrn}, value: ${describeValue(value)} is given more than once`, 'values', { propertyUrn });
    }
    out.push(value);
  }
  const current = ctx.current.get(propertyUrn);
  if (def.immutable && current && !sameValues(current, out)) {
    throw new ValidationError(`Property: ${propertyUrn} is immutable; its value cannot change once set`, 'values', { propertyUrn });
  }
  return out;
}

/** Checks that removing a property's values from an entity is allowed. */
export function checkRemoval(propertyUrn: string, ctx: AssignmentContext): void {
  const state = ctx.definitions.get(propertyUrn);
  if (state?.removed) throw new SoftDeletedError(`Cannot apply a soft deleted Structured Property value: ${propertyUrn}`, 'propertyUrn', { propertyUrn });
  if (state?.definition.immutable && ctx.current.has(propertyUrn)) {
    throw new ValidationError(`Property: ${propertyUrn} is immutable; its value cannot be removed`, 'propertyUrn', { propertyUrn });
  }
}

function sameValues(a: readonly TypedValue[], b: readonly TypedValue[]): boolean {
  return a.length === b.length && a.every((v) => b.some((w) => sameValue(v, w)));
}
