/** Structured property definitions (docs/contract.md §2): required fields, canonical form, allowed values, version. */
import { ValidationError } from '../../src/domain/errors.js';
import { LIMITS } from '../../src/domain/limits.js';
import {
  definitionAudit,
  effectiveDefinition,
  hasOwnAudit,
  parsePropertyDefinition,
  searchFieldName,
  type PropertyDefinition,
} from '../../src/domain/propertyDefinition.js';
import { thrown } from './thrown.js';

const ID = 'io.acryl.privacy.retentionTime';
const URN = `urn:li:structuredProperty:${ID}`;

function minimal(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    qualifiedName: ID,
    valueType: 'urn:li:dataType:svc.number',
    entityTypes: ['urn:li:entityType:svc.dataset'],
    ...extra,
  };
}

function validationErrorOf(input: unknown, urnId = ID): ValidationError {
  const err = thrown(() => parsePropertyDefinition(input, urnId, 'svc'));
  expect(err).toBeInstanceOf(ValidationError);
  return err as ValidationError;
}

describe('required fields', () => {
  test('a definition with qualifiedName, valueType and entityTypes is valid', () => {
    expect(parsePropertyDefinition(minimal(), ID, 'svc')).toEqual(minimal());
  });

  test('a definition that is not an object is refused', () => {
    expect(validationErrorOf([minimal()]).message).toBe('propertyDefinition must be a JSON object, not a list');
  });

  test('a definition without qualifiedName is refused', () => {
    const { qualifiedName: _, ...rest } = minimal();

    expect(validationErrorOf(rest).message).toBe('qualifiedName is required');
  });

  test('a definition with an empty qualifiedName is refused', () => {
    expect(validationErrorOf(minimal({ qualifiedName: '' })).field).toBe('qualifiedName');
  });

  test('a definition without valueType is refused', () => {
    const { valueType: _, ...rest } = minimal();

    expect(validationErrorOf(rest).message).toBe('valueType is required');
  });

  test('a definition without entityTypes is refused', () => {
    const { entityTypes: _, ...rest } = minimal();

    expect(validationErrorOf(rest).message).toBe('entityTypes is required');
  });

  test('a definition with an empty entityTypes list is refused', () => {
    expect(validationErrorOf(minimal({ entityTypes: [] })).message).toBe('entityTypes must have at least one entry');
  });

  test('entityTypes that is not a list is refused', () => {
    expect(validationErrorOf(minimal({ entityTypes: 'urn:li:entityType:svc.dataset' })).field).toBe('entityTypes');
  });

  test('an unknown value type is refused', () => {
    expect(validationErrorOf(minimal({ valueType: 'urn:li:dataType:datahub.DOEST_NOT_EXIST' })).field).toBe('valueType');
  });

  test('an unknown entity type is refused', () => {
    expect(validationErrorOf(minimal({ entityTypes: ['urn:li:entityType:svc.notAType'] })).field).toBe('entityTypes[0]');
  });

  test('an entity type listed twice, even in different forms, is refused', () => {
    const err = validationErrorOf(minimal({ entityTypes: ['urn:li:entityType:dataset', 'urn:li:entityType:svc.dataset'] }));

    expect(err.message).toBe('entityTypes[1] lists urn:li:entityType:svc.dataset more than once');
  });

  test('more entity types than the limit are refused', () => {
    const many = Array.from({ length: LIMITS.entityTypesPerDefinition + 1 }, () => 'urn:li:entityType:svc.dataset');

    expect(validationErrorOf(minimal({ entityTypes: many })).message).toBe(
      `entityTypes has more than the limit of ${LIMITS.entityTypesPerDefinition} entries`,
    );
  });

  test('an unknown field is refused, naming it', () => {
    const err = validationErrorOf(minimal({ colour: 'red' }));

    expect(err.message).toBe(
      'colour is not a known field; expected one of qualifiedName, displayName, valueType, typeQualifier, allowedValues, cardinality, entityTypes, description, allowedPlatforms, searchConfiguration, immutable, version, created, lastModified, filterStatus',
    );
    expect(err.field).toBe('colour');
  });
});

describe('messages that show the accepted form', () => {
  test('a bare data type name is refused with the urn to write', () => {
    expect(validationErrorOf(minimal({ valueType: 'number' })).message).toBe('valueType "number" is not a data type urn; write urn:li:dataType:svc.number');
  });

  test('a bare entity type name is refused with the urn to write', () => {
    expect(validationErrorOf(minimal({ entityTypes: ['dataset'] })).message).toBe('entityTypes[0] "dataset" is not an entity type urn; write urn:li:entityType:svc.dataset');
  });

  test('a misspelt data type suggests the nearest one', () => {
    expect(validationErrorOf(minimal({ valueType: 'urn:li:dataType:svc.numbr' })).message).toMatch(/\(did you mean urn:li:dataType:svc\.number\?\)$/);
  });

  test('every problem is named, not only the first', () => {
    const err = validationErrorOf(minimal({ valueType: 'number', entityTypes: ['dataset', 'dataFlow'] }));
    expect(err.message).toBe(
      '3 problems: (1) valueType "number" is not a data type urn; write urn:li:dataType:svc.number ' +
        '(2) entityTypes[0] "dataset" is not an entity type urn; write urn:li:entityType:svc.dataset ' +
        '(3) entityTypes[1] "dataFlow" is not an entity type urn; write urn:li:entityType:svc.dataFlow',
    );
  });
});

describe("DataHub's fields that propgraph keeps as given", () => {
  test('created, lastModified, searchConfiguration and filterStatus are accepted and kept', () => {
    const extra = {
      created: { time: 1700000000000, actor: 'urn:li:corpuser:datahub' },
      lastModified: { time: 1700000000001, actor: 'urn:li:corpuser:datahub' },
      searchConfiguration: { addToFilters: true, fieldType: 'KEYWORD', excludeFromFullTextSearch: false },
      filterStatus: 'ENABLED',
    };
    expect(parsePropertyDefinition(minimal(extra), ID, 'svc')).toEqual(minimal(extra));
  });

  test('readers see the stamps the writer gave; each missing one is the server\'s record of the first or latest write', () => {
    const given = { time: 1, actor: 'urn:li:corpuser:datahub' };
    const recorded = { created: { time: 10, actor: 'urn:li:corpuser:a' }, lastModified: { time: 20, actor: 'urn:li:corpuser:b' } };
    expect(definitionAudit({ created: given }, recorded)).toEqual({ created: given, lastModified: recorded.lastModified });
    expect(definitionAudit({}, recorded)).toEqual(recorded);
    expect(definitionAudit({ created: given, lastModified: given }, undefined)).toEqual({ created: given, lastModified: given });
    expect(definitionAudit({}, undefined)).toEqual({ created: null, lastModified: null });
    expect([hasOwnAudit({ created: given, lastModified: given }), hasOwnAudit({ created: given })]).toEqual([true, false]);
  });

  test('an audit stamp without its actor is refused', () => {
    expect(validationErrorOf(minimal({ created: { time: 1 } })).message).toBe('created.actor is required');
  });
});

describe('canonical form', () => {
  test('datahub. aliases are stored in the canonical svc form', () => {
    const def = parsePropertyDefinition(
      minimal({ valueType: 'urn:li:dataType:datahub.string', entityTypes: ['urn:li:entityType:datahub.dataset'] }),
      ID,
      'svc',
    );

    expect([def.valueType, def.entityTypes]).toEqual(['urn:li:dataType:svc.string', ['urn:li:entityType:svc.dataset']]);
  });

  test('short forms are stored in the canonical svc form', () => {
    const def = parsePropertyDefinition(
      minimal({ valueType: 'urn:li:dataType:number', entityTypes: ['urn:li:entityType:dataset', 'urn:li:entityType:dataFlow'] }),
      ID,
      'svc',
    );

    expect([def.valueType, def.entityTypes]).toEqual([
      'urn:li:dataType:svc.number',
      ['urn:li:entityType:svc.dataset', 'urn:li:entityType:svc.dataFlow'],
    ]);
  });

  test('no defaults are added: cardinality and immutable stay absent when not given', () => {
    const def = parsePropertyDefinition(minimal(), ID, 'svc');

    expect(Object.keys(def).sort()).toEqual(['entityTypes', 'qualifiedName', 'valueType']);
  });

  test('optional text fields are kept as written', () => {
    const def = parsePropertyDefinition(minimal({ displayName: 'Retention Time', description: 'days to keep' }), ID, 'svc');

    expect([def.displayName, def.description]).toEqual(['Retention Time', 'days to keep']);
  });

  test('an optional field given as null is treated as absent', () => {
    expect(parsePropertyDefinition(minimal({ description: null }), ID, 'svc')).not.toHaveProperty('description');
  });

  test('a displayName that is not a string is refused', () => {
    expect(validationErrorOf(minimal({ displayName: 5 })).message).toBe('displayName must be a string, not 5');
  });

  test('a description over its length limit is refused', () => {
    expect(validationErrorOf(minimal({ description: 'x'.repeat(LIMITS.descriptionLength + 1) })).field).toBe('description');
  });
});

describe('cardinality and immutable', () => {
  test.each(['SINGLE', 'MULTIPLE'])('cardinality %s is accepted and kept', (cardinality) => {
    expect(parsePropertyDefinition(minimal({ cardinality }), ID, 'svc').cardinality).toBe(cardinality);
  });

  test('any other cardinality is refused', () => {
    expect(validationErrorOf(minimal({ cardinality: 'MANY' })).message).toBe('cardinality must be one of SINGLE, MULTIPLE, not "MANY"');
  });

  test('cardinality is case-sensitive', () => {
    expect(validationErrorOf(minimal({ cardinality: 'single' })).field).toBe('cardinality');
  });

  test('immutable true is accepted and kept', () => {
    expect(parsePropertyDefinition(minimal({ immutable: true }), ID, 'svc').immutable).toBe(true);
  });

  test('immutable that is not a boolean is refused', () => {
    expect(validationErrorOf(minimal({ immutable: 'yes' })).message).toBe('immutable must be true or false, not "yes"');
  });
});

describe('version', () => {
  test('a version of exactly 14 digits is accepted', () => {
    expect(parsePropertyDefinition(minimal({ version: '20240614080000' }), ID, 'svc').version).toBe('20240614080000');
  });

  test('a version of 13 digits is refused: a version must match [0-9]{14}', () => {
    expect(validationErrorOf(minimal({ version: '2024061408000' })).message).toBe('version "2024061408000" does not match [0-9]{14} (yyyyMMddhhmmss, e.g. 20240614080000)');
  });

  test('a version of 15 digits is refused: a version must match [0-9]{14}', () => {
    expect(validationErrorOf(minimal({ version: '202406140800001' })).message).toBe('version "202406140800001" does not match [0-9]{14} (yyyyMMddhhmmss, e.g. 20240614080000)');
  });

  test('a version with a non-digit is refused: a version must match [0-9]{14}', () => {
    expect(validationErrorOf(minimal({ version: '2024-06-14T080' })).message).toBe('version "2024-06-14T080" does not match [0-9]{14} (yyyyMMddhhmmss, e.g. 20240614080000)');
  });

  test('a version given as a number is refused: a version must match [0-9]{14}', () => {
    expect(validationErrorOf(minimal({ version: 20240614080000 })).message).toBe('version must be a string, not 20240614080000');
  });

  test('a version with a trailing newline is refused', () => {
    expect(validationErrorOf(minimal({ version: '20240614080000\n' })).field).toBe('version');
  });
});

describe('qualified name', () => {
  test('a qualifiedName that differs from the urn id is refused', () => {
    const err = validationErrorOf(minimal({ qualifiedName: 'io.acryl.other' }));

    expect(err.message).toBe(`qualifiedName "io.acryl.other" must equal the urn id "${ID}"`);
    expect(err.field).toBe('qualifiedName');
  });

  test('a qualifiedName with a space is refused: qualified names cannot have spaces', () => {
    expect(validationErrorOf(minimal({ qualifiedName: 'my prop' }), 'my prop').message).toBe('qualifiedName "my prop" cannot have spaces; use dots or underscores');
  });

  test('a qualifiedName with a trailing tab is refused: qualified names cannot have spaces', () => {
    expect(validationErrorOf(minimal({ qualifiedName: `${ID}\t` })).message).toMatch(/^qualifiedName ".*\\t" cannot have spaces/);
  });

  test('a qualifiedName over the length limit is refused', () => {
    const long = 'a'.repeat(LIMITS.nameLength + 1);

    expect(validationErrorOf(minimal({ qualifiedName: long }), long).field).toBe('qualifiedName');
  });
});

describe('allowed values', () => {
  test('number allowed values are kept as doubles, in the order written, with their descriptions', () => {
    const def = parsePropertyDefinition(
      minimal({ allowedValues: [{ value: { double: 90 }, description: 'quarter' }, { value: { double: 30 } }, { value: { double: 60 } }] }),
      ID,
      'svc',
    );

    expect(def.allowedValues).toEqual([{ value: { double: 90 }, description: 'quarter' }, { value: { double: 30 } }, { value: { double: 60 } }]);
  });

  test('a numeric string allowed value for a number property is stored as a double', () => {
    const def = parsePropertyDefinition(minimal({ allowedValues: [{ value: { string: '30' } }] }), ID, 'svc');

    expect(def.allowedValues).toEqual([{ value: { double: 30 } }]);
  });

  test('a non-numeric allowed value for a number property is refused, naming the entry', () => {
    const err = validationErrorOf(minimal({ allowedValues: [{ value: { double: 30 } }, { value: { string: 'month' } }] }));

    expect(err.message).toBe('allowedValues[1].value "month" should be a number');
    expect(err.field).toBe('allowedValues[1].value');
  });

  test('a number allowed value for a string property is refused', () => {
    const err = validationErrorOf(minimal({ valueType: 'urn:li:dataType:svc.string', allowedValues: [{ value: { double: 1 } }] }));

    expect(err.message).toBe('allowedValues[0].value 1 should be a string');
  });

  test('an allowed value listed twice is refused', () => {
    const err = validationErrorOf(minimal({ allowedValues: [{ value: { double: 30 } }, { value: { double: 30 } }] }));

    expect(err.message).toBe('allowedValues[1].value 30 is listed more than once');
  });

  test('an allowed value listed twice in different forms is refused', () => {
    expect(validationErrorOf(minimal({ allowedValues: [{ value: { double: 30 } }, { value: { string: '30.0' } }] })).field).toBe(
      'allowedValues[1].value',
    );
  });

  test('string allowed values that differ only in case are both kept', () => {
    const def = parsePropertyDefinition(
      minimal({ valueType: 'urn:li:dataType:svc.string', allowedValues: [{ value: { string: 'a' } }, { value: { string: 'A' } }] }),
      ID,
      'svc',
    );

    expect(def.allowedValues).toHaveLength(2);
  });

  test('allowedValues that is not a list is refused', () => {
    expect(validationErrorOf(minimal({ allowedValues: { value: { double: 1 } } })).message).toBe('allowedValues must be a list, not an object');
  });

  test('an allowed value entry with an unknown field is refused', () => {
    expect(validationErrorOf(minimal({ allowedValues: [{ value: { double: 1 }, label: 'one' }] })).message).toBe(
      'allowedValues[0].label is not a known field; expected one of value, description',
    );
  });

  test('an allowed value entry without a value is refused', () => {
    expect(validationErrorOf(minimal({ allowedValues: [{ description: 'one' }] })).field).toBe('allowedValues[0].value');
  });

  test('more allowed values than the limit are refused', () => {
    const many = Array.from({ length: LIMITS.allowedValues + 1 }, (_, i) => ({ value: { double: i } }));

    expect(validationErrorOf(minimal({ allowedValues: many })).message).toBe(
      `allowedValues has more than the limit of ${LIMITS.allowedValues} entries`,
    );
  });

  test('date allowed values must be real calendar dates', () => {
    expect(validationErrorOf(minimal({ valueType: 'urn:li:dataType:svc.date', allowedValues: [{ value: { string: '2023-02-29' } }] })).field).toBe(
      'allowedValues[0].value',
    );
  });
});

describe('typeQualifier', () => {
  const URN_TYPED = { valueType: 'urn:li:dataType:svc.urn' };

  test('a typeQualifier on a urn property is kept with canonical entity type urns', () => {
    const def = parsePropertyDefinition(minimal({ ...URN_TYPED, typeQualifier: { allowedTypes: ['urn:li:entityType:corpuser'] } }), ID, 'svc');

    expect(def.typeQualifier).toEqual({ allowedTypes: ['urn:li:entityType:svc.corpuser'] });
  });

  test('a typeQualifier on a property that is not urn-typed is refused', () => {
    expect(validationErrorOf(minimal({ typeQualifier: { allowedTypes: ['urn:li:entityType:svc.corpuser'] } })).message).toBe(
      'typeQualifier applies only to urn-typed properties (valueType urn:li:dataType:svc.urn); remove it or change the valueType',
    );
  });

  test('a typeQualifier naming an unknown entity type is refused', () => {
    expect(validationErrorOf(minimal({ ...URN_TYPED, typeQualifier: { allowedTypes: ['urn:li:entityType:svc.nope'] } })).field).toBe(
      'typeQualifier.allowedTypes[0]',
    );
  });

  test('a typeQualifier with an unknown field is refused', () => {
    expect(validationErrorOf(minimal({ ...URN_TYPED, typeQualifier: { allowedTypes: [], other: 1 } })).message).toBe(
      'typeQualifier.other is not a known field; expected one of allowedTypes',
    );
  });

  test('allowed values of a urn property must have an entity type the typeQualifier allows', () => {
    const input = minimal({
      ...URN_TYPED,
      typeQualifier: { allowedTypes: ['urn:li:entityType:svc.corpuser'] },
      allowedValues: [{ value: { string: 'urn:li:tag:pii' } }],
    });

    expect(validationErrorOf(input).message).toBe('allowedValues[0].value "urn:li:tag:pii" should be an urn of type corpuser');
  });
});

describe('effective definition and search field', () => {
  const stored: PropertyDefinition = {
    qualifiedName: ID,
    valueType: 'urn:li:dataType:svc.number',
    entityTypes: ['urn:li:entityType:svc.dataset', 'urn:li:entityType:svc.schemaField'],
  };

  test('a stored definition without cardinality is effectively SINGLE and not immutable', () => {
    const eff = effectiveDefinition(URN, stored);

    expect([eff.cardinality, eff.immutable]).toEqual(['SINGLE', false]);
  });

  test('the effective definition resolves type urns to names', () => {
    const eff = effectiveDefinition(URN, stored);

    expect([eff.valueType, eff.entityTypes]).toEqual(['number', ['dataset', 'schemaField']]);
  });

  test('the effective definition resolves typeQualifier allowed types to entity names', () => {
    const eff = effectiveDefinition(URN, {
      ...stored,
      valueType: 'urn:li:dataType:svc.urn',
      typeQualifier: { allowedTypes: ['urn:li:entityType:svc.corpuser'] },
    });

    expect(eff.allowedUrnTypes).toEqual(['corpuser']);
  });

  test('the search field name of a qualified name replaces dots with underscores', () => {
    expect(searchFieldName('io.acryl.privacy.retentionTime')).toBe('io_acryl_privacy_retentionTime');
  });

  test('qualified names that differ only by "." and "_" share a search field', () => {
    expect(searchFieldName('a.b_c')).toBe(searchFieldName('a_b.c'));
  });
});
