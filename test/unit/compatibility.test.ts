/** Backwards compatibility of definition updates (docs/contract.md §2): breaking changes need a greater version. */
import { breakingChanges, checkCompatibility } from '../../src/domain/compatibility.js';
import { IncompatibleChangeError, ValidationError } from '../../src/domain/errors.js';
import type { PropertyDefinition } from '../../src/domain/propertyDefinition.js';
import { thrown } from './thrown.js';

const DATASET = 'urn:li:entityType:svc.dataset';
const FLOW = 'urn:li:entityType:svc.dataFlow';
const CORPUSER = 'urn:li:entityType:svc.corpuser';
const CORPGROUP = 'urn:li:entityType:svc.corpGroup';
const V1 = '20240101000000';
const V2 = '20240601000000';

function definition(extra: Partial<PropertyDefinition> = {}): PropertyDefinition {
  return { qualifiedName: 'io.acryl.retention', valueType: 'urn:li:dataType:svc.number', entityTypes: [DATASET], ...extra };
}

const numbers = (...ns: number[]) => ns.map((n) => ({ value: { double: n } }));

function incompatibility(stored: PropertyDefinition, next: PropertyDefinition): string {
  const err = thrown(() => checkCompatibility(stored, next));
  expect(err).toBeInstanceOf(IncompatibleChangeError);
  return err.message;
}

describe('breaking changes without a version are rejected', () => {
  test('a value type change is rejected, naming the change', () => {
    const message = incompatibility(definition(), definition({ valueType: 'urn:li:dataType:svc.string' }));

    expect(message).toBe(
      'Incompatible structured property definition change: valueType changes from urn:li:dataType:svc.number to urn:li:dataType:svc.string. ' +
        'Set a new version (yyyyMMddhhmmss) to apply a breaking change, which drops every stored value, or send a migration that keeps them.',
    );
  });

  test('a cardinality change from MULTIPLE to SINGLE is rejected', () => {
    expect(incompatibility(definition({ cardinality: 'MULTIPLE' }), definition({ cardinality: 'SINGLE' }))).toContain(
      'cardinality changes from MULTIPLE to SINGLE',
    );
  });

  test('dropping cardinality MULTIPLE (so the SINGLE default applies) is rejected', () => {
    expect(incompatibility(definition({ cardinality: 'MULTIPLE' }), definition())).toContain('cardinality changes from MULTIPLE to SINGLE');
  });

  test('adding allowed values where there were none is rejected', () => {
    expect(incompatibility(definition(), definition({ allowedValues: numbers(30) }))).toContain(
      'allowedValues are added where any value was allowed',
    );
  });

  test('removing an allowed value is rejected, naming the value', () => {
    expect(incompatibility(definition({ allowedValues: numbers(30, 60) }), definition({ allowedValues: numbers(30) }))).toContain(
      'allowed value 60 is removed',
    );
  });

  test('removing an entity type is rejected, naming the type', () => {
    expect(incompatibility(definition({ entityTypes: [DATASET, FLOW] }), definition({ entityTypes: [DATASET] }))).toContain(
      `entity type ${FLOW} is removed`,
    );
  });

  test('restricting urn values with a typeQualifier where there was none is rejected', () => {
    const urnTyped = definition({ valueType: 'urn:li:dataType:svc.urn' });

    expect(incompatibility(urnTyped, { ...urnTyped, typeQualifier: { allowedTypes: [CORPUSER] } })).toContain(
      'typeQualifier.allowedTypes restricts urn values where any was allowed',
    );
  });

  test('removing a typeQualifier allowed type is rejected', () => {
    const urnTyped = definition({ valueType: 'urn:li:dataType:svc.urn' });

    expect(
      incompatibility({ ...urnTyped, typeQualifier: { allowedTypes: [CORPUSER, CORPGROUP] } }, { ...urnTyped, typeQualifier: { allowedTypes: [CORPUSER] } }),
    ).toContain(`typeQualifier allowed type ${CORPGROUP} is removed`);
  });

  test('every breaking change of one write is named', () => {
    const changes = breakingChanges(
      definition({ cardinality: 'MULTIPLE', entityTypes: [DATASET, FLOW] }),
      definition({ valueType: 'urn:li:dataType:svc.string', cardinality: 'SINGLE' }),
    );

    expect(changes).toEqual([
      'valueType changes from urn:li:dataType:svc.number to urn:li:dataType:svc.string',
      'cardinality changes from MULTIPLE to SINGLE',
      `entity type ${FLOW} is removed`,
    ]);
  });

  test('a breaking change with the same version as stored is rejected', () => {
    expect(thrown(() => checkCompatibility(definition({ version: V1 }), definition({ version: V1, valueType: 'urn:li:dataType:svc.string' })))).toBeInstanceOf(
      IncompatibleChangeError,
    );
  });

  test('a breaking change without a version keeps being rejected when a version is stored', () => {
    expect(thrown(() => checkCompatibility(definition({ version: V1 }), definition({ valueType: 'urn:li:dataType:svc.string' })))).toBeInstanceOf(
      IncompatibleChangeError,
    );
  });
});

describe('breaking changes with a greater version are allowed', () => {
  test('a value type change with a first version is allowed and starts a new version', () => {
    const next = definition({ valueType: 'urn:li:dataType:svc.string', version: V1 });

    expect(checkCompatibility(definition(), next)).toMatchObject({ definition: next, versionChanged: true });
  });

  test('a MULTIPLE to SINGLE change with a version greater than the stored one is allowed', () => {
    const result = checkCompatibility(definition({ cardinality: 'MULTIPLE', version: V1 }), definition({ cardinality: 'SINGLE', version: V2 }));

    expect(result.versionChanged).toBe(true);
  });

  test('removing an entity type with a greater version is allowed', () => {
    const result = checkCompatibility(definition({ entityTypes: [DATASET, FLOW] }), definition({ version: V1 }));

    expect(result.definition.entityTypes).toEqual([DATASET]);
  });

  test('a version lower than the stored one is rejected, even for a breaking change', () => {
    const err = thrown(() => checkCompatibility(definition({ version: V2 }), definition({ version: V1, valueType: 'urn:li:dataType:svc.string' })));

    expect(err).toBeInstanceOf(ValidationError);
    expect(err.message).toBe(`version ${V1} must be greater than the current version ${V2}`);
  });

  test('a version lower than the stored one is rejected for a compatible change too: versions never go back', () => {
    expect(thrown(() => checkCompatibility(definition({ version: V2 }), definition({ version: V1 })))).toBeInstanceOf(ValidationError);
  });

  test('a new greater version without any breaking change still starts a new version', () => {
    expect(checkCompatibility(definition({ version: V1 }), definition({ version: V2 })).versionChanged).toBe(true);
  });
});

describe('widening is always allowed', () => {
  test('an identical definition has no breaking changes', () => {
    expect(breakingChanges(definition({ allowedValues: numbers(1, 2) }), definition({ allowedValues: numbers(1, 2) }))).toEqual([]);
  });

  test('a cardinality change from SINGLE to MULTIPLE is allowed', () => {
    expect(checkCompatibility(definition({ cardinality: 'SINGLE' }), definition({ cardinality: 'MULTIPLE' })).versionChanged).toBe(false);
  });

  test('adding allowed values to existing ones is allowed', () => {
    expect(breakingChanges(definition({ allowedValues: numbers(30) }), definition({ allowedValues: numbers(30, 60) }))).toEqual([]);
  });

  test('reordering allowed values is allowed', () => {
    expect(breakingChanges(definition({ allowedValues: numbers(30, 60) }), definition({ allowedValues: numbers(60, 30) }))).toEqual([]);
  });

  test('changing an allowed value description is allowed', () => {
    expect(
      breakingChanges(definition({ allowedValues: [{ value: { double: 30 }, description: 'a' }] }), definition({ allowedValues: [{ value: { double: 30 }, description: 'b' }] })),
    ).toEqual([]);
  });

  test('dropping all allowed values (any value allowed again) is allowed', () => {
    expect(breakingChanges(definition({ allowedValues: numbers(30) }), definition())).toEqual([]);
  });

  test('adding an entity type is allowed', () => {
    expect(breakingChanges(definition(), definition({ entityTypes: [DATASET, FLOW] }))).toEqual([]);
  });

  test('adding a typeQualifier allowed type is allowed', () => {
    const urnTyped = definition({ valueType: 'urn:li:dataType:svc.urn' });

    expect(breakingChanges({ ...urnTyped, typeQualifier: { allowedTypes: [CORPUSER] } }, { ...urnTyped, typeQualifier: { allowedTypes: [CORPUSER, CORPGROUP] } })).toEqual([]);
  });

  test('dropping the typeQualifier (any urn allowed again) is allowed', () => {
    const urnTyped = definition({ valueType: 'urn:li:dataType:svc.urn' });

    expect(breakingChanges({ ...urnTyped, typeQualifier: { allowedTypes: [CORPUSER] } }, urnTyped)).toEqual([]);
  });

  test('changing displayName and description is allowed', () => {
    const result = checkCompatibility(definition({ displayName: 'A', description: 'a' }), definition({ displayName: 'B', description: 'b' }));

    expect(result).toEqual({ definition: definition({ displayName: 'B', description: 'b' }), versionChanged: false, breaking: [] });
  });
});

describe('qualified name and stored version', () => {
  test('the qualifiedName can never change, not even with a new version', () => {
    const err = thrown(() => checkCompatibility(definition(), definition({ qualifiedName: 'io.acryl.other', version: V1 })));

    expect(err).toBeInstanceOf(ValidationError);
    expect(err.message).toBe('qualifiedName of a structured property cannot change');
  });

  test('a write without a version keeps the stored version', () => {
    const result = checkCompatibility(definition({ version: V1 }), definition({ displayName: 'new' }));

    expect(result.definition.version).toBe(V1);
  });

  test('a write without a version does not start a new version', () => {
    expect(checkCompatibility(definition({ version: V1 }), definition()).versionChanged).toBe(false);
  });

  test('a write repeating the stored version does not start a new version', () => {
    expect(checkCompatibility(definition({ version: V1 }), definition({ version: V1 })).versionChanged).toBe(false);
  });
});
