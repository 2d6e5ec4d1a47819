/** Typed value objects (docs/contract.md §3): the definition's type decides; the value is coerced or refused. */
import { LIMITS } from '../../src/domain/limits.js';
import {
  coerceTypedValue,
  describeValue,
  formatDouble,
  isDoubleValue,
  sameValue,
  scalarOf,
  valueAsString,
  valueAsWritten,
  type CoerceResult,
} from '../../src/domain/typedValue.js';

function reasonOf(result: CoerceResult): string {
  if (result.ok) throw new Error(`expected a refusal, got ${JSON.stringify(result.value)}`);
  return result.reason;
}

describe('value object shape', () => {
  test('a value that is not an object is refused', () => {
    expect(reasonOf(coerceTypedValue('abc', 'string'))).toBe('a value must be an object like {"string": ...} or {"double": ...}');
  });

  test('null is not a value object', () => {
    expect(coerceTypedValue(null, 'string').ok).toBe(false);
  });

  test('an array is not a value object', () => {
    expect(coerceTypedValue([{ string: 'a' }], 'string').ok).toBe(false);
  });

  test('a value object with two keys is refused', () => {
    expect(reasonOf(coerceTypedValue({ string: 'a', double: 1 }, 'string'))).toBe('a value must have exactly one key, "string" or "double"');
  });

  test('a value object with an unknown key is refused', () => {
    expect(reasonOf(coerceTypedValue({ int: 1 }, 'number'))).toBe('a value must have exactly one key, "string" or "double"');
  });

  test('an empty value object is refused', () => {
    expect(coerceTypedValue({}, 'string').ok).toBe(false);
  });
});

describe('number values', () => {
  test('a double is accepted for a number property', () => {
    expect(coerceTypedValue({ double: 30 }, 'number')).toEqual({ ok: true, value: { double: 30 } });
  });

  test('a numeric string under "double" is accepted and stored as a double', () => {
    expect(coerceTypedValue({ double: '45.5' }, 'number')).toEqual({ ok: true, value: { double: 45.5 } });
  });

  test('a numeric string under "string" is accepted for a number property and stored as a double', () => {
    expect(coerceTypedValue({ string: '60' }, 'number')).toEqual({ ok: true, value: { double: 60 } });
  });

  test('a numeric string with an exponent is accepted for a number property', () => {
    expect(coerceTypedValue({ string: '1.5e3' }, 'number')).toEqual({ ok: true, value: { double: 1500 } });
  });

  test('a negative numeric string is accepted for a number property', () => {
    expect(coerceTypedValue({ string: '-7' }, 'number')).toEqual({ ok: true, value: { double: -7 } });
  });

  test('a non-numeric string is refused for a number property', () => {
    expect(reasonOf(coerceTypedValue({ string: 'abc' }, 'number'))).toBe('should be a number');
  });

  test('an empty string is refused for a number property', () => {
    expect(coerceTypedValue({ string: '' }, 'number').ok).toBe(false);
  });

  test('a hexadecimal string is refused for a number property', () => {
    expect(coerceTypedValue({ string: '0x10' }, 'number').ok).toBe(false);
  });

  test('a string overflowing to infinity is refused for a number property', () => {
    expect(coerceTypedValue({ string: '1e400' }, 'number').ok).toBe(false);
  });

  test('NaN is refused for a number property', () => {
    expect(coerceTypedValue({ double: Number.NaN }, 'number').ok).toBe(false);
  });

  test('a boolean is refused for a number property', () => {
    expect(coerceTypedValue({ double: true }, 'number').ok).toBe(false);
  });
});

describe('string and rich_text values', () => {
  test('a string is accepted for a string property', () => {
    expect(coerceTypedValue({ string: 'baz' }, 'string')).toEqual({ ok: true, value: { string: 'baz' } });
  });

  test('a double is refused for a string property: the definition decides the type, not the value shape', () => {
    expect(reasonOf(coerceTypedValue({ double: 1 }, 'string'))).toBe('should be a string');
  });

  test('a number under "string" is refused for a string property', () => {
    expect(coerceTypedValue({ string: 1 }, 'string').ok).toBe(false);
  });

  test('a string at the length limit is accepted', () => {
    expect(coerceTypedValue({ string: 'x'.repeat(LIMITS.stringValueLength) }, 'string').ok).toBe(true);
  });

  test('a string over the length limit is refused, naming the limit', () => {
    expect(reasonOf(coerceTypedValue({ string: 'x'.repeat(LIMITS.stringValueLength + 1) }, 'string'))).toBe(
      `is longer than the limit of ${LIMITS.stringValueLength} characters`,
    );
  });

  test('rich text may be longer than the string limit', () => {
    expect(coerceTypedValue({ string: 'x'.repeat(LIMITS.stringValueLength + 1) }, 'rich_text').ok).toBe(true);
  });

  test('rich text over its own limit is refused', () => {
    expect(coerceTypedValue({ string: 'x'.repeat(LIMITS.richTextValueLength + 1) }, 'rich_text').ok).toBe(false);
  });

  test('a double is refused for a rich_text property', () => {
    expect(reasonOf(coerceTypedValue({ double: 1 }, 'rich_text'))).toBe('should be a rich_text string');
  });
});

describe('date values', () => {
  test('a real calendar date in the form YYYY-MM-DD is accepted', () => {
    expect(coerceTypedValue({ string: '2024-05-17' }, 'date')).toEqual({ ok: true, value: { string: '2024-05-17' } });
  });

  test('the 29th of February of a leap year is accepted', () => {
    expect(coerceTypedValue({ string: '2024-02-29' }, 'date').ok).toBe(true);
  });

  test('the 29th of February of a common year is refused as not a date, saying how long the month is', () => {
    expect(reasonOf(coerceTypedValue({ string: '2023-02-29' }, 'date'))).toBe('is not a date: 2023-02 has 28 days');
  });

  test('a month that does not exist is refused as not a date', () => {
    expect(reasonOf(coerceTypedValue({ string: '2026-13-01' }, 'date'))).toBe('is not a date: there is no month 13');
  });

  test('text that is not of the form YYYY-MM-DD is refused with the form', () => {
    expect(reasonOf(coerceTypedValue({ string: '30.02.2026' }, 'date'))).toBe('should be a date in the form YYYY-MM-DD');
  });

  test('a 31st day of a 30-day month is refused', () => {
    expect(coerceTypedValue({ string: '2024-04-31' }, 'date').ok).toBe(false);
  });

  test('a thirteenth month is refused', () => {
    expect(coerceTypedValue({ string: '2024-13-01' }, 'date').ok).toBe(false);
  });

  test('a day zero is refused', () => {
    expect(coerceTypedValue({ string: '2024-01-00' }, 'date').ok).toBe(false);
  });

  test('a date without zero padding is refused', () => {
    expect(coerceTypedValue({ string: '2024-1-5' }, 'date').ok).toBe(false);
  });

  test('a timestamp is not a date', () => {
    expect(coerceTypedValue({ string: '2024-05-17T00:00:00Z' }, 'date').ok).toBe(false);
  });

  test('a real calendar date in the first century is accepted', () => {
    expect(coerceTypedValue({ string: '0024-02-29' }, 'date').ok).toBe(true);
  });

  test('a double is refused for a date property', () => {
    expect(coerceTypedValue({ double: 20240517 }, 'date').ok).toBe(false);
  });
});

describe('urn values', () => {
  const DATASET = 'urn:li:dataset:(urn:li:dataPlatform:hive,db.table,PROD)';

  test('a valid urn is accepted for a urn property', () => {
    expect(coerceTypedValue({ string: DATASET }, 'urn')).toEqual({ ok: true, value: { string: DATASET } });
  });

  test('an invalid urn is refused for a urn property, with the parser reason', () => {
    expect(reasonOf(coerceTypedValue({ string: 'urn:li:notAType:x' }, 'urn'))).toBe('should be a valid urn (unknown entity type notAType)');
  });

  test('a urn whose entity type is among the typeQualifier allowed types is accepted', () => {
    expect(coerceTypedValue({ string: 'urn:li:corpuser:jdoe' }, 'urn', { allowedEntityTypes: ['corpuser', 'corpGroup'] }).ok).toBe(true);
  });

  test('a urn whose entity type is not among the typeQualifier allowed types is refused', () => {
    expect(reasonOf(coerceTypedValue({ string: DATASET }, 'urn', { allowedEntityTypes: ['corpuser', 'corpGroup'] }))).toBe(
      'should be an urn of type corpuser or corpGroup',
    );
  });

  test('an empty typeQualifier allowed types list allows any entity type', () => {
    expect(coerceTypedValue({ string: DATASET }, 'urn', { allowedEntityTypes: [] }).ok).toBe(true);
  });
});

describe('formatting and comparing values', () => {
  test('an integral double is written with a decimal part', () => {
    expect(formatDouble(60)).toBe('60.0');
  });

  test('a negative integral double is written with a decimal part', () => {
    expect(formatDouble(-3)).toBe('-3.0');
  });

  test('zero is written as 0.0', () => {
    expect(formatDouble(0)).toBe('0.0');
  });

  test('a fractional double is written as it is', () => {
    expect(formatDouble(410258.29)).toBe('410258.29');
  });

  test('a very large double is written in exponent form', () => {
    expect(formatDouble(1e21)).toBe('1e+21');
  });

  test('a string value is described as DataHub does: {string=baz}', () => {
    expect(describeValue({ string: 'baz' })).toBe('{string=baz}');
  });

  test('a number value is described with a decimal part: {double=30.0}', () => {
    expect(describeValue({ double: 30 })).toBe('{double=30.0}');
  });

  test('our own messages print a value as people write it: 1825, "high" (issue #41: {double=1825.0})', () => {
    expect(valueAsWritten({ double: 1825 })).toBe('1825');
    expect(valueAsWritten({ double: 0.5 })).toBe('0.5');
    expect(valueAsWritten({ string: 'high' })).toBe('"high"');
    expect(valueAsWritten({ string: 'a "b"' })).toBe('"a \\"b\\""');
    expect(valueAsWritten({ foo: 1 })).toBe('{"foo":1}');
  });

  test('a value that is not an object is described as JSON', () => {
    expect(describeValue('baz')).toBe('"baz"');
  });

  test('valueAsString gives numbers with a decimal part, as facets and test rules use', () => {
    expect(valueAsString({ double: 60 })).toBe('60.0');
  });

  test('valueAsString gives strings as they are', () => {
    expect(valueAsString({ string: 'baz' })).toBe('baz');
  });

  test('scalarOf gives the number inside a double value', () => {
    expect(scalarOf({ double: 2 })).toBe(2);
  });

  test('scalarOf gives the string inside a string value', () => {
    expect(scalarOf({ string: 'a' })).toBe('a');
  });

  test('isDoubleValue tells a double value from a string value', () => {
    expect([isDoubleValue({ double: 1 }), isDoubleValue({ string: '1' })]).toEqual([true, false]);
  });

  test('two doubles with the same number are the same value', () => {
    expect(sameValue({ double: 30 }, { double: 30.0 })).toBe(true);
  });

  test('a double and a string with the same text are different values', () => {
    expect(sameValue({ double: 1 }, { string: '1' })).toBe(false);
  });

  test('two strings that differ in case are different values', () => {
    expect(sameValue({ string: 'a' }, { string: 'A' })).toBe(false);
  });
});
