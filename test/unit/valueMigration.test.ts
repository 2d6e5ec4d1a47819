/** Migrations of stored values (docs/contract.md, "Definitions evolve"): the rules as pure translations. */
import { ValidationError } from '../../src/domain/errors.js';
import { migrationEffect, parseMigrationRules, translateEntry, type MigrationRules, type MigrationTarget } from '../../src/domain/valueMigration.js';
import { thrown } from './thrown.js';

const num = (n: number) => ({ double: n });
const str = (s: string) => ({ string: s });
const rules = (r: Partial<MigrationRules>): MigrationRules => ({ remap: [], convert: false, dropInvalid: false, ...r });
const numbers: MigrationTarget = { valueType: 'number', cardinality: 'SINGLE', entityTypes: ['dataset'], allowedValues: [num(1), num(3)] };
const strings: MigrationTarget = { valueType: 'string', cardinality: 'MULTIPLE', entityTypes: ['dataset'] };

describe('one entity\'s values through the rules', () => {
  test('remap turns a retired value into its successor and leaves the others', () => {
    expect(translateEntry([num(2)], 'dataset', rules({ remap: [{ from: num(2), to: num(3) }] }), numbers)).toMatchObject({ values: [num(3)], remapped: 1, refused: [] });
    expect(translateEntry([num(1)], 'dataset', rules({ remap: [{ from: num(2), to: num(3) }] }), numbers)).toMatchObject({ values: [num(1)], remapped: 0 });
  });

  test('a value the rules leave invalid is refused, naming why; dropInvalid drops exactly it', () => {
    expect(translateEntry([num(2)], 'dataset', rules({}), numbers).refused).toEqual(['2 is not an allowed value']);
    expect(translateEntry([num(2)], 'dataset', rules({ dropInvalid: true }), numbers)).toMatchObject({ values: null, dropped: 1, refused: [] });
  });

  test('convert writes numbers as people write them, and reads numbers out of strings', () => {
    expect(translateEntry([num(1825), num(1.5)], 'dataset', rules({ convert: true }), strings).values).toEqual([str('1825'), str('1.5')]);
    const toNumbers: MigrationTarget = { valueType: 'number', cardinality: 'SINGLE', entityTypes: ['dataset'] };
    expect(translateEntry([str(' 365 ')], 'dataset', rules({ convert: true }), toNumbers).values).toEqual([num(365)]);
    expect(translateEntry([str('forever')], 'dataset', rules({ convert: true }), toNumbers).refused).toEqual(['"forever" does not read as a number']);
  });

  test('two values that became one are kept once; more values than a SINGLE property takes refuse the entry (or drop it)', () => {
    expect(translateEntry([num(2), num(3)], 'dataset', rules({ remap: [{ from: num(2), to: num(3) }] }), numbers).values).toEqual([num(3)]);
    expect(translateEntry([num(1), num(3)], 'dataset', rules({}), numbers).refused).toEqual(['2 values, where the property now takes one']);
    expect(translateEntry([num(1), num(3)], 'dataset', rules({ dropInvalid: true }), numbers)).toMatchObject({ values: null, dropped: 2 });
  });

  test('an entity of a type the property no longer applies to is refused, or dropped', () => {
    expect(translateEntry([num(1)], 'dataFlow', rules({}), numbers).refused).toEqual(['an entity of type dataFlow, which the property no longer applies to']);
    expect(translateEntry([num(1)], 'dataFlow', rules({ dropInvalid: true }), numbers).values).toBeNull();
  });
});

test('the effect of a migration, rule by rule, with examples, and what it leaves refused', () => {
  const entries = [
    { entityUrn: 'urn:a', entityType: 'dataset', values: [num(2)] },
    { entityUrn: 'urn:b', entityType: 'dataset', values: [num(1)] },
    { entityUrn: 'urn:c', entityType: 'dataset', values: [num(4)] },
  ];
  const effect = migrationEffect(entries, rules({ remap: [{ from: num(2), to: num(3) }] }), numbers);
  expect(effect).toMatchObject({
    holders: 3,
    changed: 2,
    rules: [{ rule: 'remap 2 → 3', entities: 1, values: 1, examples: [{ urn: 'urn:a', before: [num(2)], after: [num(3)] }] }],
    refused: { entities: 1, values: 1, examples: [{ urn: 'urn:c', reasons: ['4 is not an allowed value'] }] },
  });
});

describe('a migration as a request sends it', () => {
  test('typed values, numbers sent as text too; at least one rule', () => {
    expect(parseMigrationRules({ remap: [{ from: { double: '2' }, to: { double: 3 } }] })).toEqual(rules({ remap: [{ from: num(2), to: num(3) }] }));
    const none = thrown(() => parseMigrationRules({}));
    expect(none).toBeInstanceOf(ValidationError);
    expect(none.message).toMatch(/names no rule/);
  });

  test('a value remapped twice, or a rule unknown, is refused naming it', () => {
    expect(thrown(() => parseMigrationRules({ remap: [{ from: num(2), to: num(3) }, { from: num(2), to: num(1) }] })).message).toMatch(/remap\[1\]\.from 2 is remapped more than once/);
    expect(thrown(() => parseMigrationRules({ drop: true })).message).toMatch(/drop/);
  });
});
