/** Values of structured properties on an entity (docs/contract.md §3, §5): shape and assignment rules. */
import { ServiceError, SoftDeletedError, ValidationError } from '../../src/domain/errors.js';
import { LIMITS } from '../../src/domain/limits.js';
import type { EffectiveDefinition } from '../../src/domain/propertyDefinition.js';
import {
  checkRemoval,
  parseStructuredPropertiesAspect,
  validateAssignment,
  type AssignmentContext,
  type DefinitionState,
} from '../../src/domain/structuredProperties.js';
import type { TypedValue } from '../../src/domain/typedValue.js';
import { thrown } from './thrown.js';

const PROP = 'urn:li:structuredProperty:io.acryl.retention';
const OTHER = 'urn:li:structuredProperty:io.acryl.other';

function def(extra: Partial<EffectiveDefinition> = {}): EffectiveDefinition {
  return { urn: PROP, qualifiedName: 'io.acryl.retention', valueType: 'string', entityTypes: ['dataset'], cardinality: 'SINGLE', immutable: false, ...extra };
}

function ctx(
  definition: EffectiveDefinition | undefined = def(),
  options: { removed?: boolean; targetType?: string; current?: readonly TypedValue[] } = {},
): AssignmentContext {
  const definitions = new Map<string, DefinitionState>();
  if (definition) definitions.set(definition.urn, { definition, removed: options.removed ?? false });
  const current = new Map<string, readonly TypedValue[]>();
  if (options.current && definition) current.set(definition.urn, options.current);
  return { targetType: options.targetType ?? 'dataset', definitions, current };
}

function validationErrorOf(fn: () => unknown): ValidationError {
  const err = thrown(fn);
  expect(err).toBeInstanceOf(ValidationError);
  return err as ValidationError;
}

describe('aspect shape', () => {
  test('a well-formed aspect gives its entries with their values unchecked', () => {
    const parsed = parseStructuredPropertiesAspect({ properties: [{ propertyUrn: PROP, values: [{ string: 'a' }] }] });

    expect(parsed.properties).toEqual([{ propertyUrn: PROP, values: [{ string: 'a' }], extra: {} }]);
  });

  test('an aspect with no properties is valid', () => {
    expect(parseStructuredPropertiesAspect({ properties: [] }).properties).toEqual([]);
  });

  test('audit fields of an entry are kept aside', () => {
    const created = { time: 1, actor: 'urn:li:corpuser:jdoe' };
    const parsed = parseStructuredPropertiesAspect({ properties: [{ propertyUrn: PROP, values: [], created }] });

    expect(parsed.properties[0]!.extra).toEqual({ created });
  });

  test('an aspect that is not an object is refused', () => {
    expect(validationErrorOf(() => parseStructuredPropertiesAspect([])).message).toBe('structuredProperties must be a JSON object, not a list');
  });

  test('an aspect without a properties list is refused', () => {
    expect(validationErrorOf(() => parseStructuredPropertiesAspect({})).message).toBe('properties is required: a list of {"propertyUrn": <urn>, "values": [...]}');
  });

  test('an aspect with an unknown top-level field is refused', () => {
    expect(validationErrorOf(() => parseStructuredPropertiesAspect({ properties: [], extra: 1 })).message).toBe(
      'extra is not a known field; expected one of properties',
    );
  });

  test('an entry with an unknown field is refused', () => {
    expect(validationErrorOf(() => parseStructuredPropertiesAspect({ properties: [{ propertyUrn: PROP, values: [], value: 1 }] })).message).toBe(
      "properties[0].value is not a known field; did you mean 'values'?",
    );
  });

  test('an entry that is not an object is refused', () => {
    expect(validationErrorOf(() => parseStructuredPropertiesAspect({ properties: [PROP] })).message).toBe(`properties[0] must be a JSON object, not "${PROP}"`);
  });

  test('an entry without a propertyUrn is refused', () => {
    expect(validationErrorOf(() => parseStructuredPropertiesAspect({ properties: [{ values: [] }] })).message).toBe('properties[0].propertyUrn is required');
  });

  test('a propertyUrn that is not a urn is a validation error, not an invalid-urn error', () => {
    const err = validationErrorOf(() => parseStructuredPropertiesAspect({ properties: [{ propertyUrn: 'retention', values: [] }] }));

    expect(err.message).toBe('properties[0].propertyUrn "retention" is not a structured property urn; write urn:li:structuredProperty:<qualified name>');
  });

  test('a propertyUrn of another entity type is refused', () => {
    expect(validationErrorOf(() => parseStructuredPropertiesAspect({ properties: [{ propertyUrn: 'urn:li:tag:pii', values: [] }] })).field).toBe(
      'properties[0].propertyUrn',
    );
  });

  test('the same propertyUrn twice from the same source in one aspect is refused', () => {
    const err = validationErrorOf(() =>
      parseStructuredPropertiesAspect({ properties: [{ propertyUrn: PROP, values: [] }, { propertyUrn: PROP, values: [] }] }),
    );

    expect(err.message).toBe(`properties[1].propertyUrn lists ${PROP} more than once; give each property once per source, with all its values`);
    expect(err.field).toBe('properties[1].propertyUrn');
  });

  test('the same propertyUrn from two attribution sources is two entries, as DataHub keeps them', () => {
    const from = (source: string) => ({ time: 1, actor: 'urn:li:corpuser:x', source });
    const aspect = { properties: [{ propertyUrn: PROP, values: [] }, { propertyUrn: PROP, values: [], attribution: from('urn:li:dataHubAction:sync') }] };

    expect(parseStructuredPropertiesAspect(aspect).properties).toHaveLength(2);
    const twice = { properties: [...aspect.properties, { propertyUrn: PROP, values: [], attribution: from('urn:li:dataHubAction:sync') }] };
    expect(validationErrorOf(() => parseStructuredPropertiesAspect(twice)).message).toBe(
      `properties[2].propertyUrn lists ${PROP} more than once with attribution source urn:li:dataHubAction:sync; give each property once per source, with all its values`,
    );
  });

  test('values that are not a list are refused', () => {
    expect(validationErrorOf(() => parseStructuredPropertiesAspect({ properties: [{ propertyUrn: PROP, values: { string: 'a' } }] })).message).toBe(
      'properties[0].values must be a list, not an object',
    );
  });

  test('more property entries than the limit are refused', () => {
    const properties = Array.from({ length: LIMITS.propertiesPerEntity + 1 }, (_, i) => ({ propertyUrn: `${PROP}${i}`, values: [] }));

    expect(validationErrorOf(() => parseStructuredPropertiesAspect({ properties })).message).toBe(
      `properties has more than the limit of ${LIMITS.propertiesPerEntity} entries`,
    );
  });
});

describe('the property must exist and be active', () => {
  test('a value for a property that does not exist is refused', () => {
    expect(validationErrorOf(() => validateAssignment(OTHER, [{ string: 'a' }], ctx())).message).toBe(`Structured property ${OTHER} does not exist`);
  });

  test('a value for a soft deleted property is refused with "Cannot apply a soft deleted Structured Property value"', () => {
    const err = thrown(() => validateAssignment(PROP, [{ string: 'a' }], ctx(def(), { removed: true })));

    expect(err).toBeInstanceOf(SoftDeletedError);
    expect(err.message).toBe(`Cannot apply a soft deleted Structured Property value: ${PROP}`);
  });
});

describe('a refusal names the property it is about', () => {
  test('each refusal of a value carries the property URN as a field, for an interface to place it at its own input path', () => {
    const refusals: Array<[string, () => unknown]> = [
      [OTHER, () => validateAssignment(OTHER, [{ string: 'a' }], ctx())],
      [PROP, () => validateAssignment(PROP, [{ string: 'a' }], ctx(def(), { removed: true }))],
      [PROP, () => validateAssignment(PROP, [{ string: 'a' }], ctx(def(), { targetType: 'schemaField' }))],
      [PROP, () => validateAssignment(PROP, [], ctx())],
      [PROP, () => validateAssignment(PROP, [{ string: 'a' }, { string: 'b' }], ctx())],
      [PROP, () => validateAssignment(PROP, [{ double: 1 }], ctx())],
      [PROP, () => checkRemoval(PROP, ctx(def(), { removed: true }))],
    ];
    for (const [urn, refuse] of refusals) {
      const err = thrown(refuse);
      expect(err).toBeInstanceOf(ServiceError);
      expect((err as ServiceError).propertyUrn).toBe(urn);
    }
  });
});

describe('entity type scope', () => {
  test('a value on an entity whose type is in the definition entityTypes is accepted', () => {
    expect(validateAssignment(PROP, [{ string: 'a' }], ctx(def({ entityTypes: ['dataset', 'schemaField'] }), { targetType: 'schemaField' }))).toEqual([
      { string: 'a' },
    ]);
  });

  test('a value on an entity whose type is not in the definition entityTypes is refused', () => {
    const err = validationErrorOf(() => validateAssignment(PROP, [{ string: 'a' }], ctx(def(), { targetType: 'schemaField' })));

    expect(err.message).toBe(`Property: ${PROP} cannot be applied to entity type schemaField; allowed entity types: [dataset]`);
  });
});

describe('cardinality', () => {
  test('a SINGLE property accepts one value', () => {
    expect(validateAssignment(PROP, [{ string: 'a' }], ctx())).toEqual([{ string: 'a' }]);
  });

  test('a SINGLE property refuses two values, listing them', () => {
    const err = validationErrorOf(() => validateAssignment(PROP, [{ string: 'a' }, { string: 'b' }], ctx()));

    expect(err.message).toBe(`Property: ${PROP} has cardinality SINGLE, but 2 values were given: [{string=a}, {string=b}]`);
  });

  test('a MULTIPLE property accepts several values, in the order given', () => {
    const values = [{ string: 'b' }, { string: 'a' }, { string: 'c' }];

    expect(validateAssignment(PROP, values, ctx(def({ cardinality: 'MULTIPLE' })))).toEqual(values);
  });

  test('an entry with no values is refused', () => {
    expect(validationErrorOf(() => validateAssignment(PROP, [], ctx())).message).toBe(`Property: ${PROP} needs at least one value`);
  });

  test('a MULTIPLE property accepts values up to the limit of 1000', () => {
    const values = Array.from({ length: LIMITS.valuesPerProperty }, (_, i) => ({ string: `v${i}` }));

    expect(validateAssignment(PROP, values, ctx(def({ cardinality: 'MULTIPLE' })))).toHaveLength(1000);
  });

  test('a MULTIPLE property refuses more values than the limit of 1000', () => {
    const values = Array.from({ length: LIMITS.valuesPerProperty + 1 }, (_, i) => ({ string: `v${i}` }));

    expect(validationErrorOf(() => validateAssignment(PROP, values, ctx(def({ cardinality: 'MULTIPLE' })))).message).toBe(
      `Property: ${PROP} has more than the limit of 1000 values`,
    );
  });
});

describe('value types', () => {
  test('a number property stores a numeric string as a double', () => {
    expect(validateAssignment(PROP, [{ string: '30' }], ctx(def({ valueType: 'number' })))).toEqual([{ double: 30 }]);
  });

  test('a number property refuses a non-numeric string, naming the property and the value', () => {
    expect(validationErrorOf(() => validateAssignment(PROP, [{ string: 'abc' }], ctx(def({ valueType: 'number' })))).message).toBe(
      `Property: ${PROP}, value: {string=abc} should be a number`,
    );
  });

  test('a string property refuses a double', () => {
    expect(validationErrorOf(() => validateAssignment(PROP, [{ double: 3 }], ctx())).message).toBe(
      `Property: ${PROP}, value: {double=3.0} should be a string`,
    );
  });

  test('a date property refuses a date that is not on the calendar', () => {
    expect(validationErrorOf(() => validateAssignment(PROP, [{ string: '2023-02-29' }], ctx(def({ valueType: 'date' })))).field).toBe('values');
  });

  test('a urn property refuses a urn whose type the typeQualifier does not allow', () => {
    const urnTyped = def({ valueType: 'urn', allowedUrnTypes: ['corpuser'] });

    expect(validationErrorOf(() => validateAssignment(PROP, [{ string: 'urn:li:tag:pii' }], ctx(urnTyped))).message).toBe(
      `Property: ${PROP}, value: {string=urn:li:tag:pii} should be an urn of type corpuser`,
    );
  });

  test('a urn property accepts a urn whose type the typeQualifier allows', () => {
    const urnTyped = def({ valueType: 'urn', allowedUrnTypes: ['corpuser'] });

    expect(validateAssignment(PROP, [{ string: 'urn:li:corpuser:jdoe' }], ctx(urnTyped))).toEqual([{ string: 'urn:li:corpuser:jdoe' }]);
  });
});

describe('allowed values', () => {
  const closed = def({ allowedValues: [{ value: { string: 'foo' } }, { value: { string: 'bar' } }] });

  test('a value among the allowed values is accepted', () => {
    expect(validateAssignment(PROP, [{ string: 'bar' }], ctx(closed))).toEqual([{ string: 'bar' }]);
  });

  test('a value outside the allowed values is refused with "Property: <urn>, value: {string=baz} should be one of [...]"', () => {
    expect(validationErrorOf(() => validateAssignment(PROP, [{ string: 'baz' }], ctx(closed))).message).toBe(
      `Property: ${PROP}, value: {string=baz} should be one of [{string=foo}, {string=bar}]`,
    );
  });

  test('number allowed values are compared as numbers and listed with a decimal part', () => {
    const closedNumbers = def({ valueType: 'number', allowedValues: [{ value: { double: 30 } }, { value: { double: 60 } }] });

    expect(validationErrorOf(() => validateAssignment(PROP, [{ double: 45 }], ctx(closedNumbers))).message).toBe(
      `Property: ${PROP}, value: {double=45.0} should be one of [{double=30.0}, {double=60.0}]`,
    );
  });

  test('a numeric string matching a number allowed value is accepted', () => {
    const closedNumbers = def({ valueType: 'number', allowedValues: [{ value: { double: 30 } }] });

    expect(validateAssignment(PROP, [{ string: '30.0' }], ctx(closedNumbers))).toEqual([{ double: 30 }]);
  });
});

describe('duplicates', () => {
  test('the same value twice in one entry is refused', () => {
    expect(validationErrorOf(() => validateAssignment(PROP, [{ string: 'a' }, { string: 'a' }], ctx(def({ cardinality: 'MULTIPLE' })))).message).toBe(
      `Property: ${PROP}, value: {string=a} is given more than once`,
    );
  });

  test('the same number given as a double and as a numeric string is a duplicate', () => {
    const numbers = def({ valueType: 'number', cardinality: 'MULTIPLE' });

    expect(validationErrorOf(() => validateAssignment(PROP, [{ double: 1 }, { string: '1' }], ctx(numbers))).field).toBe('values');
  });
});

describe('immutability', () => {
  const immutable = def({ immutable: true, cardinality: 'MULTIPLE' });

  test('an immutable property may be set when it has no value yet', () => {
    expect(validateAssignment(PROP, [{ string: 'a' }], ctx(immutable))).toEqual([{ string: 'a' }]);
  });

  test('an immutable property value cannot change', () => {
    expect(validationErrorOf(() => validateAssignment(PROP, [{ string: 'b' }], ctx(immutable, { current: [{ string: 'a' }] }))).message).toBe(
      `Property: ${PROP} is immutable; its value cannot change once set`,
    );
  });

  test('an immutable property may be written again with the same values in another order', () => {
    const current = [{ string: 'a' }, { string: 'b' }];

    expect(validateAssignment(PROP, [{ string: 'b' }, { string: 'a' }], ctx(immutable, { current }))).toHaveLength(2);
  });

  test('an immutable property cannot gain a value', () => {
    expect(thrown(() => validateAssignment(PROP, [{ string: 'a' }, { string: 'b' }], ctx(immutable, { current: [{ string: 'a' }] })))).toBeInstanceOf(
      ValidationError,
    );
  });

  test('an immutable property value cannot be removed', () => {
    expect(validationErrorOf(() => checkRemoval(PROP, ctx(immutable, { current: [{ string: 'a' }] }))).message).toBe(
      `Property: ${PROP} is immutable; its value cannot be removed`,
    );
  });

  test('a mutable property value can change', () => {
    expect(validateAssignment(PROP, [{ string: 'b' }], ctx(def(), { current: [{ string: 'a' }] }))).toEqual([{ string: 'b' }]);
  });

  test('a mutable property value can be removed', () => {
    expect(() => checkRemoval(PROP, ctx(def(), { current: [{ string: 'a' }] }))).not.toThrow();
  });

  test('removing values of a property that no longer exists is allowed', () => {
    expect(() => checkRemoval(OTHER, ctx())).not.toThrow();
  });

  test('removing values of a soft deleted property is refused', () => {
    expect(thrown(() => checkRemoval(PROP, ctx(def(), { removed: true, current: [{ string: 'a' }] })))).toBeInstanceOf(SoftDeletedError);
  });
});
