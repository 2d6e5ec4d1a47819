/** URN parsing (docs/contract.md §1): strict, balanced, known types, typed key parts. */
import { InvalidUrnError } from '../../src/domain/errors.js';
import { findEntityType } from '../../src/domain/registry/entityTypes.js';
import {
  MAX_URN_LENGTH,
  datasetUrn,
  keyAspectOf,
  parentUrnOf,
  parseUrn,
  parseUrnOfType,
  schemaFieldUrn,
  tryParseUrn,
} from '../../src/domain/urn.js';
import { thrown } from './thrown.js';

const HIVE_TABLE = 'urn:li:dataset:(urn:li:dataPlatform:hive,db.table,PROD)';

function reasonOf(value: string): string {
  const result = tryParseUrn(value);
  if (result.ok) throw new Error(`expected ${value} to be invalid`);
  return result.reason;
}

describe('URN structure', () => {
  test('a plain urn parses into its entity type, id and a single part', () => {
    const urn = parseUrn('urn:li:tag:pii');

    expect(urn.entityType.name).toBe('tag');
    expect(urn.id).toBe('pii');
    expect(urn.parts).toEqual(['pii']);
    expect(urn.value).toBe('urn:li:tag:pii');
  });

  test('a structured property urn id may contain dots', () => {
    const urn = parseUrn('urn:li:structuredProperty:io.acryl.privacy.retentionTime');

    expect(urn.id).toBe('io.acryl.privacy.retentionTime');
  });

  test('a urn that does not start with urn:li: is invalid', () => {
    expect(reasonOf('urn:xx:tag:pii')).toBe('must start with urn:li:');
  });

  test('an empty string is not a urn', () => {
    expect(reasonOf('')).toBe('empty');
  });

  test('a value that is not a string is not a urn', () => {
    expect(tryParseUrn(42 as unknown as string).ok).toBe(false);
  });

  test('a urn without an entity type is invalid', () => {
    expect(reasonOf('urn:li::pii')).toBe('missing entity type');
  });

  test('a urn without a colon after the entity type is invalid', () => {
    expect(reasonOf('urn:li:tag')).toBe('missing entity type');
  });

  test('a urn with an empty id is invalid', () => {
    expect(reasonOf('urn:li:tag:')).toBe('empty id');
  });

  test('a urn whose id is only whitespace is invalid', () => {
    expect(tryParseUrn('urn:li:tag:   ').ok).toBe(false);
  });

  test('a urn naming an unknown entity type is invalid', () => {
    expect(reasonOf('urn:li:notAType:x')).toBe('unknown entity type notAType');
  });

  test('entity type names inside a urn are matched case-sensitively', () => {
    expect(reasonOf('urn:li:Dataset:(urn:li:dataPlatform:hive,db.table,PROD)')).toBe('unknown entity type Dataset');
  });

  test('a urn longer than the maximum length is invalid', () => {
    const value = `urn:li:tag:${'a'.repeat(MAX_URN_LENGTH)}`;

    expect(reasonOf(value)).toBe(`longer than ${MAX_URN_LENGTH} characters`);
  });

  test('a urn of exactly the maximum length is valid', () => {
    const prefix = 'urn:li:tag:';
    const value = prefix + 'a'.repeat(MAX_URN_LENGTH - prefix.length);

    expect(tryParseUrn(value).ok).toBe(true);
  });

  test('a urn containing a control character is invalid', () => {
    expect(reasonOf('urn:li:tag:a\u0000b')).toBe('control characters');
  });

  test('a urn containing a newline is invalid', () => {
    expect(reasonOf('urn:li:tag:a\nb')).toBe('control characters');
  });
});

describe('URN parentheses', () => {
  test('a tuple urn with balanced parentheses parses into its parts', () => {
    const urn = parseUrn(HIVE_TABLE);

    expect(urn.parts).toEqual(['urn:li:dataPlatform:hive', 'db.table', 'PROD']);
  });

  test('a tuple urn missing its closing parenthesis is invalid', () => {
    expect(reasonOf('urn:li:dataset:(urn:li:dataPlatform:hive,db.table,PROD')).toBe('unbalanced parentheses');
  });

  test('a tuple urn with text after its closing parenthesis is invalid', () => {
    expect(reasonOf('urn:li:dataset:(urn:li:dataPlatform:hive,db.table,PROD)x')).toBe('unbalanced parentheses');
  });

  test('a tuple urn closing a parenthesis before opening one is invalid', () => {
    expect(reasonOf('urn:li:dataset:(a,b)(c)')).toBe('unbalanced parentheses');
  });

  test('a plain id with an unmatched closing parenthesis is invalid', () => {
    expect(reasonOf('urn:li:tag:pii)')).toBe('unbalanced parentheses');
  });

  test('a plain id with an unmatched opening parenthesis is invalid', () => {
    expect(reasonOf('urn:li:tag:p(ii')).toBe('unbalanced parentheses');
  });

  test('a plain id with balanced parentheses is valid', () => {
    expect(tryParseUrn('urn:li:tag:pii(gdpr)').ok).toBe(true);
  });
});

describe('dataset URNs', () => {
  test('a dataset urn with a platform urn, a name and a fabric type is valid', () => {
    expect(tryParseUrn(HIVE_TABLE).ok).toBe(true);
  });

  test.each(['PROD', 'DEV', 'TEST', 'QA', 'UAT', 'EI', 'PRE', 'STG', 'NON_PROD', 'CORP', 'RVW', 'PRD', 'TST', 'SIT', 'SBX', 'SANDBOX'])(
    'a dataset urn whose origin is the fabric type %s is valid',
    (origin) => {
      expect(tryParseUrn(`urn:li:dataset:(urn:li:dataPlatform:hive,db.table,${origin})`).ok).toBe(true);
    },
  );

  test('a dataset urn whose origin is not a fabric type is invalid', () => {
    expect(reasonOf('urn:li:dataset:(urn:li:dataPlatform:hive,db.table,PRODUCTION)')).toBe('unknown origin PRODUCTION');
  });

  test('a dataset urn origin is matched case-sensitively', () => {
    expect(tryParseUrn('urn:li:dataset:(urn:li:dataPlatform:hive,db.table,prod)').ok).toBe(false);
  });

  test('a dataset urn whose platform is not a dataPlatform urn is invalid', () => {
    expect(reasonOf('urn:li:dataset:(urn:li:tag:hive,db.table,PROD)')).toBe('expected a dataPlatform urn, got urn:li:tag:hive');
  });

  test('a dataset urn whose platform is a bare name is invalid', () => {
    expect(reasonOf('urn:li:dataset:(hive,db.table,PROD)')).toMatch(/^bad nested urn hive: /);
  });

  test('a dataset urn with an empty name is invalid', () => {
    expect(reasonOf('urn:li:dataset:(urn:li:dataPlatform:hive,,PROD)')).toBe('empty key part');
  });

  test('a dataset urn with too few parts is invalid', () => {
    expect(reasonOf('urn:li:dataset:(urn:li:dataPlatform:hive,db.table)')).toBe('a dataset urn has 3 key part(s), got 2');
  });

  test('a dataset urn with too many parts is invalid', () => {
    expect(reasonOf('urn:li:dataset:(urn:li:dataPlatform:hive,db,table,PROD)')).toBe('a dataset urn has 3 key part(s), got 4');
  });

  test('a dataset urn given as a plain id is invalid', () => {
    expect(tryParseUrn('urn:li:dataset:db.table').ok).toBe(false);
  });

  test('datasetUrn builds a dataset urn from a bare platform name, defaulting the origin to PROD', () => {
    expect(datasetUrn('hive', 'db.table')).toBe(HIVE_TABLE);
  });

  test('datasetUrn keeps a platform given as a full urn and the origin given', () => {
    expect(datasetUrn('urn:li:dataPlatform:hive', 'db.table', 'DEV')).toBe('urn:li:dataset:(urn:li:dataPlatform:hive,db.table,DEV)');
  });
});

describe('nested URNs', () => {
  const FIELD = `urn:li:schemaField:(${HIVE_TABLE},address.zip)`;

  test('a schemaField urn holds a dataset urn and a field path', () => {
    const urn = parseUrn(FIELD);

    expect(urn.parts).toEqual([HIVE_TABLE, 'address.zip']);
  });

  test('a schemaField field path may contain commas', () => {
    const urn = parseUrn(`urn:li:schemaField:(${HIVE_TABLE},[version=2.0].[type=struct].a,b)`);

    expect(urn.parts[1]).toBe('[version=2.0].[type=struct].a,b');
  });

  test('a schemaField urn whose parent is not a dataset urn is invalid', () => {
    expect(reasonOf('urn:li:schemaField:(urn:li:tag:x,field)')).toBe('expected a dataset urn, got urn:li:tag:x');
  });

  test('a schemaField urn whose parent dataset urn is itself invalid is invalid', () => {
    expect(reasonOf('urn:li:schemaField:(urn:li:dataset:(urn:li:dataPlatform:hive,db.table,BOGUS),field)')).toMatch(
      /^bad nested urn .*unknown origin BOGUS$/,
    );
  });

  test('a schemaField urn with an empty field path is invalid', () => {
    expect(reasonOf(`urn:li:schemaField:(${HIVE_TABLE},)`)).toBe('empty key part');
  });

  test('a dataJob urn holds a dataFlow urn and a job id', () => {
    const urn = parseUrn('urn:li:dataJob:(urn:li:dataFlow:(airflow,daily,prod),load)');

    expect(urn.parts).toEqual(['urn:li:dataFlow:(airflow,daily,prod)', 'load']);
  });

  test('a dataJob urn whose flow is not a dataFlow urn is invalid', () => {
    expect(reasonOf(`urn:li:dataJob:(${HIVE_TABLE},load)`)).toBe(`expected a dataFlow urn, got ${HIVE_TABLE}`);
  });

  test('parentUrnOf gives the dataset of a schemaField urn', () => {
    expect(parentUrnOf(parseUrn(FIELD))).toBe(HIVE_TABLE);
  });

  test('parentUrnOf gives nothing for an entity that is not a schema field', () => {
    expect(parentUrnOf(parseUrn(HIVE_TABLE))).toBeUndefined();
  });

  test('schemaFieldUrn builds the field urn of a dataset urn and field path', () => {
    expect(schemaFieldUrn(HIVE_TABLE, 'address.zip')).toBe(FIELD);
  });
});

describe('structured property URN ids', () => {
  test('a structured property urn whose id has a space is invalid with "Urn ID cannot have spaces"', () => {
    expect(reasonOf('urn:li:structuredProperty:my property')).toBe('Urn ID cannot have spaces');
  });

  test('a structured property urn whose id has a non-breaking space is invalid with "Urn ID cannot have spaces"', () => {
    expect(reasonOf('urn:li:structuredProperty:my\u00a0property')).toBe('Urn ID cannot have spaces');
  });
});

describe('parseUrn and parseUrnOfType', () => {
  test('parseUrn throws InvalidUrnError naming the urn and the reason', () => {
    const err = thrown(() => parseUrn('urn:li:notAType:x'));

    expect(err).toBeInstanceOf(InvalidUrnError);
    expect(err.message).toBe('Invalid urn!: urn:li:notAType:x (unknown entity type notAType)');
    expect((err as InvalidUrnError).urn).toBe('urn:li:notAType:x');
    expect((err as InvalidUrnError).code).toBe('INVALID_URN');
  });

  test('parseUrnOfType accepts a urn of the expected entity type', () => {
    const dataset = findEntityType('dataset')!;

    expect(parseUrnOfType(HIVE_TABLE, dataset).entityType).toBe(dataset);
  });

  test('parseUrnOfType rejects a valid urn of another entity type with InvalidUrnError', () => {
    const err = thrown(() => parseUrnOfType('urn:li:tag:pii', findEntityType('dataset')!));

    expect(err).toBeInstanceOf(InvalidUrnError);
    expect(err.message).toBe('Invalid urn!: urn:li:tag:pii (expected a dataset urn)');
  });
});

describe('key aspects', () => {
  test('the datasetKey of a dataset urn is its platform, name and origin', () => {
    expect(keyAspectOf(parseUrn(HIVE_TABLE))).toEqual({ platform: 'urn:li:dataPlatform:hive', name: 'db.table', origin: 'PROD' });
  });

  test('the key of a plain urn holds its id', () => {
    expect(keyAspectOf(parseUrn('urn:li:structuredProperty:io.acryl.x'))).toEqual({ id: 'io.acryl.x' });
  });
});
