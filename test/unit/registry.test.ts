/**
 * The registry (src/domain/registry/, and the aspect modules of src/domain/aspects/) is
 * the one home of the facts about types: these tests hold its rows to each other and to
 * schema.graphql, so that adding a value type or an entity type is a row there plus its
 * enum value in the schema, and nothing else. The aspect modules' own tests are in
 * test/unit/aspects/.
 */
import { PRIVILEGES } from '../../src/domain/policies/privileges.js';
import { readFileSync } from 'node:fs';
import { buildASTSchema, isEnumType, isObjectType, parse } from 'graphql';
import { ALL_ASPECTS, aspectClassOf, findAspect, indexedAspects } from '../../src/domain/aspects/index.js';
import { ENTITY, ENTITY_TYPES, holdsValues, isKnownAspect, parentTypeOf } from '../../src/domain/registry/entityTypes.js';
import { DATA_TYPES, VALUE_TYPES, valueTypeOfStd } from '../../src/domain/registry/valueTypes.js';
import { isKeyFieldName } from '../../src/domain/searchFields.js';
import { coerceTypedValue } from '../../src/domain/typedValue.js';
import { nonEmpty } from '../support/nonEmpty.js';

const schema = buildASTSchema(parse(readFileSync('schema.graphql', 'utf8')), { assumeValidSDL: true });

function enumValues(name: string): string[] {
  const type = schema.getType(name);
  if (!isEnumType(type)) throw new Error(`${name} is not an enum of schema.graphql`);
  return type.getValues().map((v) => v.name);
}

describe('value types', () => {
  test("the schema's StdDataType enum holds every value type's std value, and OTHER", () => {
    expect(enumValues('StdDataType').sort()).toEqual([...VALUE_TYPES.map((t) => t.std), 'OTHER'].sort());
  });

  test.each(VALUE_TYPES.map((t) => [t.id, t] as const))('%s is found by its std value and checks its own values', (_id, type) => {
    expect(valueTypeOfStd(type.std)).toBe(type);
    const sample = type.stored === 'double' ? { double: type.example as number } : { string: String(type.example) };
    expect(coerceTypedValue(sample, type.id)).toEqual({ ok: true, value: sample });
  });

  test('a value stored as a string refuses a double, and one stored as a double refuses text', () => {
    for (const type of nonEmpty(VALUE_TYPES)) {
      const wrong = type.stored === 'double' ? { string: 'not a number' } : { double: 1 };
      expect(coerceTypedValue(wrong, type.id)).toMatchObject({ ok: false, reason: `should be a ${type.noun}` });
    }
  });

  test('the value type names are the ids, in the table order', () => {
    expect(DATA_TYPES).toEqual(VALUE_TYPES.map((t) => t.id));
  });
});

describe('entity types', () => {
  test("the schema's EntityType enum holds exactly the registry's GraphQL values", () => {
    expect(enumValues('EntityType').sort()).toEqual(ENTITY_TYPES.map((t) => t.graphql).sort());
  });

  test.each(ENTITY_TYPES.map((t) => [t.name, t] as const))('%s: its GraphQL object type exists and implements Entity', (_name, type) => {
    const object = schema.getType(type.graphqlObject);
    expect(isObjectType(object) && object.getInterfaces().some((i) => i.name === 'Entity')).toBe(true);
  });

  test.each(ENTITY_TYPES.map((t) => [t.name, t] as const))('%s: every aspect it names is in the aspect table, with a record class', (_name, type) => {
    // A type may name no aspect beside its key: none missing is then the answer, not a check that ran on nothing.
    expect(type.aspects.filter((aspect) => findAspect(aspect) === undefined)).toEqual([]);
    for (const aspect of [type.keyAspect, ...type.aspects]) expect(aspectClassOf(type, aspect)).toMatch(/^com\.linkedin\.[a-z.]+\.[A-Z]\w+$/);
  });

  test.each(ENTITY_TYPES.filter((t) => t.definitionAspect).map((t) => [t.name, t] as const))('%s: its definition aspect is an aspect it has', (_name, type) => {
    expect(type.aspects).toContain(type.definitionAspect);
  });

  test('a child type names an entity type whose first key part is a URN of its parent', () => {
    const parents = ENTITY_TYPES.filter((t) => t.childType);
    expect(parents.map((t) => t.name)).toEqual(['dataset']);
    for (const parent of nonEmpty(parents)) {
      const child = ENTITY_TYPES.find((t) => t.name === parent.childType)!;
      expect(parentTypeOf(child)).toBe(parent);
      expect(child.keyParts[0]).toBe('datasetUrn');
    }
  });

  test('the roles code refers to are rows of the table', () => {
    for (const type of nonEmpty(Object.values(ENTITY))) expect(ENTITY_TYPES).toContain(type);
  });

  test('only metadata tests and policies need admin to write, and only built-in types exist without being stored', () => {
    expect(ENTITY_TYPES.filter((t) => t.adminWrites).map((t) => t.name)).toEqual(['test', 'dataHubPolicy']);
    expect(ENTITY_TYPES.filter((t) => t.builtIn).map((t) => t.name)).toEqual(['dataType', 'entityType']);
  });

  test('writing a type needs its own privilege where it defines something; the admin types are those whose privilege needs admin', () => {
    expect(Object.fromEntries(ENTITY_TYPES.filter((t) => t.writePrivilege !== 'EDIT_ENTITY').map((t) => [t.name, t.writePrivilege]))).toEqual({
      structuredProperty: 'MANAGE_STRUCTURED_PROPERTIES',
      test: 'MANAGE_TESTS',
      dataHubPolicy: 'MANAGE_POLICIES',
    });
    for (const t of nonEmpty(ENTITY_TYPES, 'the entity types')) expect(t.adminWrites).toBe(PRIVILEGES[t.writePrivilege].ceiling === 'admin');
  });

  test('values are held by the asset types, not by definitions or built-in types', () => {
    expect(holdsValues(ENTITY.dataset)).toBe(true);
    expect(holdsValues(ENTITY.schemaField)).toBe(true);
    expect(holdsValues(ENTITY.structuredProperty)).toBe(false);
    expect(holdsValues(ENTITY.dataType)).toBe(false);
  });

  test("the index reads a dataset's text aspects in the table's order, so an edited description wins", () => {
    const names = indexedAspects(ENTITY.dataset).map((a) => a.name);
    expect(names.indexOf('datasetProperties')).toBeLessThan(names.indexOf('editableDatasetProperties'));
    expect(indexedAspects(ENTITY.structuredProperty).map((a) => a.name)).toEqual(['propertyDefinition', 'structuredPropertySettings']);
  });

  test('an aspect the type does not have is not known to it', () => {
    expect(isKnownAspect(ENTITY.dataset, 'testInfo')).toBe(false);
    expect(isKnownAspect(ENTITY.dataset, ENTITY.dataset.keyAspect)).toBe(true);
  });
});

test('every search field an aspect fills is a key field of the search vocabulary', () => {
  const fields = ALL_ASPECTS.flatMap((a) => (a.facts ?? []).map((f) => f.field));
  expect(fields.filter((f) => !isKeyFieldName(f))).toEqual([]);
});

test("the index reads an asset's tags, owners, domains, container, sub types, glossary terms and test results", () => {
  const read = indexedAspects(ENTITY.dataset).map((a) => a.name);
  for (const aspect of ['globalTags', 'ownership', 'domains', 'container', 'subTypes', 'glossaryTerms', 'testResults']) expect(read).toContain(aspect);
});

test('every aspect of the table is carried by some entity type', () => {
  const carried = new Set(ENTITY_TYPES.flatMap((t) => t.aspects));
  expect(ALL_ASPECTS.filter((a) => !carried.has(a.name)).map((a) => a.name)).toEqual([]);
});
