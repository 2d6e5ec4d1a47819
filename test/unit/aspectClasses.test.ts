/** Rest.li answers an aspect under its DataHub record class: every aspect propgraph knows has one. */
import { aspectClassOf } from '../../src/domain/aspects/index.js';
import { aspectNamed, ENTITY_TYPES, findEntityType } from '../../src/domain/registry/entityTypes.js';

test.each(ENTITY_TYPES.map((t) => [t.name, t] as const))('every aspect of %s has a record class', (_name, type) => {
  for (const aspect of [type.keyAspect, ...type.aspects]) expect(aspectClassOf(type, aspect)).toMatch(/^com\.linkedin\.[a-z.]+\.[A-Z]\w+$/);
});

test('the class names the client looks up are the ones DataHub uses', () => {
  const dataset = findEntityType('dataset')!;
  expect(aspectClassOf(dataset, 'datasetKey')).toBe('com.linkedin.metadata.key.DatasetKey');
  expect(aspectClassOf(findEntityType('schemaField')!, 'schemaFieldKey')).toBe('com.linkedin.metadata.key.SchemaFieldKey');
  expect(aspectClassOf(findEntityType('structuredProperty')!, 'structuredPropertyKey')).toBe('com.linkedin.structured.StructuredPropertyKey');
  expect(aspectClassOf(findEntityType('structuredProperty')!, 'propertyDefinition')).toBe('com.linkedin.structured.StructuredPropertyDefinition');
  expect(aspectClassOf(dataset, 'schemaMetadata')).toBe('com.linkedin.schema.SchemaMetadata');
  expect(aspectClassOf(dataset, 'status')).toBe('com.linkedin.common.Status');
});

test("DataHub's corpUserKey names propgraph's corpuserKey, and only on corpuser urns", () => {
  const corpuser = findEntityType('corpuser')!;
  expect(aspectNamed(corpuser, 'corpUserKey')).toBe('corpuserKey');
  expect(aspectClassOf(corpuser, 'corpuserKey')).toBe('com.linkedin.metadata.key.CorpUserKey');
  expect(aspectNamed(findEntityType('dataset')!, 'corpUserKey')).toBe('corpUserKey');
});
