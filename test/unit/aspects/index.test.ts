/**
 * The aspect modules (src/domain/aspects/) and the lookups the index derives from them:
 * each aspect is one module, every layer's question about it is answered from that
 * module, and the modules agree with one another, with the entity types and with
 * schema.graphql.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { buildASTSchema, isObjectType, parse } from 'graphql';
import {
  ALL_ASPECTS,
  ASPECT,
  ASPECT_SEARCH_FIELDS,
  aspectModuleOf,
  auditedDelete,
  auditedWrite,
  deletionOf,
  findAspect,
  indexedAspects,
  isSoftDeleted,
  rulesOf,
  SOFT_DELETE,
  staleChangesOf,
} from '../../../src/domain/aspects/index.js';
import { ASPECT_MODULES } from '../../../src/domain/aspects/generated/modules.js';
import { propertyStatus } from '../../../src/domain/aspects/modules/propertyStatus.js';
import { status } from '../../../src/domain/aspects/modules/status.js';
import { ENTITY, ENTITY_TYPES } from '../../../src/domain/registry/entityTypes.js';
import { KEY_FIELDS } from '../../../src/domain/searchFields.js';
import { nonEmpty } from '../../support/nonEmpty.js';

const schema = buildASTSchema(parse(readFileSync('schema.graphql', 'utf8')), { assumeValidSDL: true });

describe('one module per aspect', () => {
  test('no two general modules share a name, and every variant varies a general module', () => {
    const names = ALL_ASPECTS.map((m) => m.name);
    expect(names.filter((n, i) => names.indexOf(n) !== i)).toEqual([]);
    const variants = ASPECT_MODULES.filter((m) => m.only);
    expect(variants.map((m) => m.name)).toEqual(['status']);
    for (const v of nonEmpty(variants)) expect(findAspect(v.name)?.pdlClass).toBe(v.pdlClass);
  });

  test('each file of src/domain/aspects/modules/ is listed by the generated index', () => {
    const files = readdirSync('src/domain/aspects/modules').filter((f) => f.endsWith('.ts'));
    const listed = readFileSync('src/domain/aspects/generated/modules.ts', 'utf8');
    expect(files.filter((f) => !listed.includes(`'../modules/${f.replace(/\.ts$/, '.js')}'`))).toEqual([]);
  });

  test('the aspects code names by role are modules', () => {
    for (const name of nonEmpty(Object.values(ASPECT))) expect(findAspect(name)?.name).toBe(name);
  });

  test("a property's status is governed by the property status module on structured properties only", () => {
    expect(aspectModuleOf(ENTITY.structuredProperty, 'status')).toBe(propertyStatus);
    expect(aspectModuleOf(ENTITY.dataset, 'status')).toBe(status);
    expect(rulesOf(ENTITY.structuredProperty, 'status')).toBe(propertyStatus.rules);
  });

  test('a key aspect is governed by the key rules, and an aspect the type does not carry is refused naming those it does', () => {
    expect(aspectModuleOf(ENTITY.dataset, ENTITY.dataset.keyAspect)).toBeUndefined();
    expect(rulesOf(ENTITY.dataset, ENTITY.dataset.keyAspect).createsEntity).toBe(true);
    expect(() => rulesOf(ENTITY.dataset, 'testInfo')).toThrow(/Unknown aspect testInfo for entity type dataset; known aspects: datasetKey, status, /);
  });

  test.each(ENTITY_TYPES.flatMap((t) => ASPECT_MODULES.filter((m) => m.only?.includes(t)).map((m) => [t.name, m.name] as const)))(
    'the variant of %s %s is an aspect the type carries',
    (typeName, aspect) => {
      expect(ENTITY_TYPES.find((t) => t.name === typeName)!.aspects).toContain(aspect);
    },
  );
});

describe('what the index derives', () => {
  test('one aspect marks an entity soft deleted: status.removed', () => {
    expect(SOFT_DELETE).toEqual({ aspect: 'status', field: 'removed' });
    expect(isSoftDeleted({ removed: true })).toBe(true);
    expect(isSoftDeleted({ removed: false })).toBe(false);
    expect(isSoftDeleted(undefined)).toBe(false);
  });

  test('audit acts come from the modules: definitions, tests, soft deletes, a property brought back', () => {
    expect(auditedWrite(ENTITY.structuredProperty, 'propertyDefinition', {})).toBe('definition.write');
    expect(auditedWrite(ENTITY.test, 'testInfo', {})).toBe('test.write');
    expect(auditedWrite(ENTITY.dataset, 'status', { removed: true })).toBe('entity.softDelete');
    expect(auditedWrite(ENTITY.dataset, 'status', { removed: false })).toBeUndefined();
    expect(auditedWrite(ENTITY.structuredProperty, 'status', { removed: false })).toBe('entity.restore');
    expect(auditedWrite(ENTITY.structuredProperty, 'status', 'not a status')).toBeUndefined();
    expect(auditedWrite(ENTITY.dataset, 'structuredProperties', { properties: [] })).toBeUndefined();
  });

  test("deleting a key aspect is the entity's hard delete; a property's status, its restore; anything else an aspect delete", () => {
    expect(auditedDelete(ENTITY.dataset, ENTITY.dataset.keyAspect)).toBe('entity.hardDelete');
    expect(auditedDelete(ENTITY.structuredProperty, 'status')).toBe('entity.restore');
    expect(auditedDelete(ENTITY.dataset, 'status')).toBe('aspect.delete');
    expect(auditedDelete(ENTITY.dataset, 'globalTags')).toBe('aspect.delete');
  });

  test('what deleting an aspect does is its own: value rows with structuredProperties, the registry row with a definition', () => {
    expect(deletionOf('dataset', 'structuredProperties')?.ofAspect?.('urn:x')).toEqual({ valueRows: true });
    expect(deletionOf('structuredProperty', 'propertyDefinition')?.withEntity?.('urn:x')).toMatchObject({ registry: 'delete' });
    expect(deletionOf('dataset', 'globalTags')).toBeUndefined();
    expect(deletionOf('noSuchType', 'status')).toBeUndefined();
  });

  test('a stale write of values is told the properties that changed; of anything else, the fields', () => {
    expect(staleChangesOf('structuredProperties')({ properties: [] }, { properties: [{ propertyUrn: 'urn:li:structuredProperty:p', values: [{ string: 'x' }] }] }, () => true)).toEqual([
      { propertyUrn: 'urn:li:structuredProperty:p', before: null, after: ['x'] },
    ]);
    expect(staleChangesOf('datasetProperties')({ name: 'a' }, { name: 'b' }, () => true)).toEqual([{ field: 'name', before: 'a', after: 'b' }]);
  });

  test('every search field a fact fills is declared, by its module or as a field every entity has', () => {
    const filled = ALL_ASPECTS.flatMap((m) => (m.facts ?? []).map((f) => ({ aspect: m.name, field: f.field })));
    expect(nonEmpty(filled).filter((f) => KEY_FIELDS[f.field] === undefined)).toEqual([]);
    for (const field of nonEmpty(Object.keys(ASPECT_SEARCH_FIELDS))) expect(filled.map((f) => f.field)).toContain(field);
  });

  test('every aspect with a GraphQL view names a field some entity type of schema.graphql has', () => {
    const objectFields = Object.values(schema.getTypeMap()).flatMap((t) => (isObjectType(t) && t.getInterfaces().some((i) => i.name === 'Entity') ? Object.keys(t.getFields()) : []));
    const shown = ALL_ASPECTS.flatMap((m) => (m.graphql ? [m.graphql.field] : []));
    expect(nonEmpty(shown).filter((f) => !objectFields.includes(f))).toEqual([]);
  });

  test('the index reads the aspects with text or facts that the type carries', () => {
    const read = indexedAspects(ENTITY.dataset).map((m) => m.name);
    expect(read).toContain('testResults');
    expect(read).not.toContain('status');
    expect(read.indexOf('datasetProperties')).toBeLessThan(read.indexOf('editableDatasetProperties'));
  });
});
