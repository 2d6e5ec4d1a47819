/** Data-type and entity-type URNs (docs/contract.md §1): canonical `svc.`, aliases accepted, the rest rejected. */
import { findEntityType } from '../../src/domain/registry/entityTypes.js';
import { ValidationError } from '../../src/domain/errors.js';
import { inCanonicalNamespace } from '../../src/domain/propertyDefinition.js';
import {
  canonicalTypeUrn,
  DATA_TYPES,
  dataTypeOf,
  dataTypeUrn,
  entityTypeOf,
  entityTypeUrn,
  parseDataTypeUrn,
  parseEntityTypeUrn,
  stdDataType,
  tryParseDataType,
  tryParseEntityType,
} from '../../src/domain/typeUrns.js';
import { thrown } from './thrown.js';

describe('data type URNs', () => {
  test('the data types are string, rich_text, number, date and urn', () => {
    expect([...DATA_TYPES]).toEqual(['string', 'rich_text', 'number', 'date', 'urn']);
  });

  test.each(DATA_TYPES)('the canonical urn of data type %s is in the svc namespace', (type) => {
    expect(dataTypeUrn(type, 'svc')).toBe(`urn:li:dataType:svc.${type}`);
  });

  test.each(DATA_TYPES)('the canonical svc urn of data type %s is accepted', (type) => {
    expect(parseDataTypeUrn(`urn:li:dataType:svc.${type}`, 'svc')).toBe(type);
  });

  test('the datahub. alias of a data type urn is accepted', () => {
    expect(parseDataTypeUrn('urn:li:dataType:datahub.number', 'svc')).toBe('number');
  });

  test('the short form of a data type urn is accepted', () => {
    expect(parseDataTypeUrn('urn:li:dataType:number', 'svc')).toBe('number');
  });

  test('an unknown data type in the datahub namespace is a validation error', () => {
    const err = thrown(() => parseDataTypeUrn('urn:li:dataType:datahub.DOEST_NOT_EXIST', 'svc'));

    expect(err).toBeInstanceOf(ValidationError);
    expect(err.message).toBe(
      'valueType "urn:li:dataType:datahub.DOEST_NOT_EXIST" is not a data type; use one of ' +
        'urn:li:dataType:svc.string, urn:li:dataType:svc.rich_text, urn:li:dataType:svc.number, urn:li:dataType:svc.date, urn:li:dataType:svc.urn',
    );
    expect((err as ValidationError).field).toBe('valueType');
  });

  test('a data type name under another entity type is a validation error', () => {
    expect(thrown(() => parseDataTypeUrn('urn:li:container:datahub.string', 'svc'))).toBeInstanceOf(ValidationError);
  });

  test('a malformed data type urn with an unclosed parenthesis is a validation error', () => {
    expect(thrown(() => parseDataTypeUrn('urn:li:dataType:(datahub.string', 'svc'))).toBeInstanceOf(ValidationError);
  });

  test('a data type in an unknown namespace is a validation error', () => {
    expect(thrown(() => parseDataTypeUrn('urn:li:dataType:acme.string', 'svc'))).toBeInstanceOf(ValidationError);
  });

  test('a doubly namespaced data type is a validation error', () => {
    expect(thrown(() => parseDataTypeUrn('urn:li:dataType:svc.svc.string', 'svc'))).toBeInstanceOf(ValidationError);
  });

  test('a data type urn in another case is a validation error', () => {
    expect(thrown(() => parseDataTypeUrn('urn:li:dataType:svc.NUMBER', 'svc'))).toBeInstanceOf(ValidationError);
  });

  test('a bare data type name is not a data type urn', () => {
    expect(thrown(() => parseDataTypeUrn('number', 'svc'))).toBeInstanceOf(ValidationError);
  });

  test('a bare data type name is accepted where bare names are allowed', () => {
    expect(tryParseDataType('number', true)).toBe('number');
  });

  test('a bare data type name is accepted in any case, lower-cased', () => {
    expect(tryParseDataType('Rich_Text', true)).toBe('rich_text');
  });

  test('a value that is not a string is not a data type', () => {
    expect(tryParseDataType(42)).toBeUndefined();
  });

  test('the field named in a data type error is the one the caller gives', () => {
    const err = thrown(() => parseDataTypeUrn('x', 'svc', 'type'));

    expect((err as ValidationError).field).toBe('type');
    expect(err.message).toMatch(/^type "x" is not a data type/);
  });

  test.each([
    ['string', 'STRING'],
    ['rich_text', 'RICH_TEXT'],
    ['number', 'NUMBER'],
    ['date', 'DATE'],
    ['urn', 'URN'],
  ] as const)('the GraphQL StdDataType of %s is %s', (type, std) => {
    expect(stdDataType(type)).toBe(std);
  });
});

describe('entity type URNs', () => {
  test('the canonical urn of an entity type is in the svc namespace', () => {
    expect(entityTypeUrn(findEntityType('dataFlow')!, 'svc')).toBe('urn:li:entityType:svc.dataFlow');
  });

  test('the canonical svc entity type urn is accepted', () => {
    expect(parseEntityTypeUrn('urn:li:entityType:svc.dataset', 'svc').name).toBe('dataset');
  });

  test('the datahub. alias of an entity type urn is accepted', () => {
    expect(parseEntityTypeUrn('urn:li:entityType:datahub.dataFlow', 'svc').name).toBe('dataFlow');
  });

  test('the short form of an entity type urn is accepted', () => {
    expect(parseEntityTypeUrn('urn:li:entityType:dataset', 'svc').name).toBe('dataset');
  });

  test('an unknown entity type is a validation error naming the field', () => {
    const err = thrown(() => parseEntityTypeUrn('urn:li:entityType:svc.notAType', 'svc'));

    expect(err).toBeInstanceOf(ValidationError);
    expect(err.message).toBe('entityTypes "urn:li:entityType:svc.notAType" is not an entity type; did you mean urn:li:entityType:svc.dataType?');
    expect((err as ValidationError).field).toBe('entityTypes');
  });

  test('an entity type name under the data type prefix is a validation error', () => {
    expect(thrown(() => parseEntityTypeUrn('urn:li:dataType:svc.dataset', 'svc'))).toBeInstanceOf(ValidationError);
  });

  test('an entity type in an unknown namespace is a validation error', () => {
    expect(thrown(() => parseEntityTypeUrn('urn:li:entityType:acme.dataset', 'svc'))).toBeInstanceOf(ValidationError);
  });

  test('an entity type urn in another case is a validation error', () => {
    expect(thrown(() => parseEntityTypeUrn('urn:li:entityType:svc.DataSet', 'svc'))).toBeInstanceOf(ValidationError);
  });

  test('a short-form entity type urn in another case is a validation error', () => {
    expect(thrown(() => parseEntityTypeUrn('urn:li:entityType:dataflow', 'svc'))).toBeInstanceOf(ValidationError);
  });

  test('a bare entity name is not an entity type urn', () => {
    expect(tryParseEntityType('dataset')).toBeUndefined();
  });

  test('a bare entity name is accepted where bare names are allowed', () => {
    expect(tryParseEntityType('dataFlow', true)?.name).toBe('dataFlow');
  });
});

describe('URN_NAMESPACE=datahub, passed in', () => {
  test('canonical data type and entity type urns are written in the datahub namespace', () => {
    expect(dataTypeUrn('number', 'datahub')).toBe('urn:li:dataType:datahub.number');
    expect(entityTypeUrn(findEntityType('schemaField')!, 'datahub')).toBe('urn:li:entityType:datahub.schemaField');
  });

  test('the svc form is still accepted on input', () => {
    expect(parseDataTypeUrn('urn:li:dataType:svc.date', 'datahub')).toBe('date');
    expect(parseEntityTypeUrn('urn:li:entityType:svc.dataset', 'datahub').name).toBe('dataset');
  });

  test('a type urn in either namespace reads back in the datahub namespace; other text is left alone', () => {
    expect(canonicalTypeUrn('urn:li:dataType:svc.urn', 'datahub')).toBe('urn:li:dataType:datahub.urn');
    expect(canonicalTypeUrn('urn:li:entityType:dataset', 'datahub')).toBe('urn:li:entityType:datahub.dataset');
    expect(canonicalTypeUrn('urn:li:dataset:(urn:li:dataPlatform:hive,t,PROD)', 'datahub')).toBe('urn:li:dataset:(urn:li:dataPlatform:hive,t,PROD)');
  });

  test('a definition stored under svc reads with datahub type urns', () => {
    const stored = { qualifiedName: 'io.x', valueType: 'urn:li:dataType:svc.urn', entityTypes: ['urn:li:entityType:svc.dataset'], typeQualifier: { allowedTypes: ['urn:li:entityType:svc.corpuser'] } };
    expect(inCanonicalNamespace(stored, 'datahub')).toEqual({
      qualifiedName: 'io.x',
      valueType: 'urn:li:dataType:datahub.urn',
      entityTypes: ['urn:li:entityType:datahub.dataset'],
      typeQualifier: { allowedTypes: ['urn:li:entityType:datahub.corpuser'] },
    });
  });

  test('messages name the forms to write in the namespace passed in', () => {
    expect(thrown(() => parseDataTypeUrn('urn:li:dataType:svc.numbr', 'datahub')).message).toBe(
      'valueType "urn:li:dataType:svc.numbr" is not a data type; use one of ' +
        'urn:li:dataType:datahub.string, urn:li:dataType:datahub.rich_text, urn:li:dataType:datahub.number, urn:li:dataType:datahub.date, urn:li:dataType:datahub.urn (did you mean urn:li:dataType:datahub.number?)',
    );
  });
});

describe('stored type URNs, read without a namespace', () => {
  test('a stored data type or entity type urn in either namespace, or the short form, names its type', () => {
    expect(dataTypeOf('urn:li:dataType:datahub.number')).toBe('number');
    expect(dataTypeOf('urn:li:dataType:svc.urn')).toBe('urn');
    expect(entityTypeOf('urn:li:entityType:dataset').name).toBe('dataset');
  });

  test('a stored urn that names no type is a validation error naming the field', () => {
    const err = thrown(() => entityTypeOf('urn:li:entityType:svc.nope', 'typeQualifier.allowedTypes'));
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.message).toBe('typeQualifier.allowedTypes "urn:li:entityType:svc.nope" is not an entity type urn');
    expect((err as ValidationError).field).toBe('typeQualifier.allowedTypes');
  });
});
