/** The one table of entity types (docs/contract.md §1). */
import {
  ENTITY_TYPES,
  FABRIC_TYPES,
  entityTypeByGraphql,
  findEntityType,
  defaultSearchTypes,
  searchableEntityTypes,
} from '../../src/domain/registry/entityTypes.js';
import { tryParseUrn } from '../../src/domain/urn.js';
import { expectEvery } from '../support/nonEmpty.js';

const SPEC_TABLE: ReadonlyArray<[string, string]> = [
  ['dataset', 'DATASET'],
  ['schemaField', 'SCHEMA_FIELD'],
  ['dataFlow', 'DATA_FLOW'],
  ['dataJob', 'DATA_JOB'],
  ['chart', 'CHART'],
  ['dashboard', 'DASHBOARD'],
  ['container', 'CONTAINER'],
  ['domain', 'DOMAIN'],
  ['glossaryTerm', 'GLOSSARY_TERM'],
  ['tag', 'TAG'],
  ['corpuser', 'CORP_USER'],
  ['corpGroup', 'CORP_GROUP'],
  ['mlModel', 'MLMODEL'],
  ['dataProduct', 'DATA_PRODUCT'],
  ['structuredProperty', 'STRUCTURED_PROPERTY'],
  ['test', 'TEST'],
  ['dataType', 'DATA_TYPE'],
  ['entityType', 'ENTITY_TYPE'],
  ['dataPlatform', 'DATA_PLATFORM'],
];

test('the table begins with the entity types docs/contract.md §1 names, with their GraphQL enum values', () => {
  const table = ENTITY_TYPES.slice(0, SPEC_TABLE.length).map((t) => [t.name, t.graphql]);

  expect(table).toEqual(SPEC_TABLE);
});

test.each([
  ['glossaryNode', 'urn:li:glossaryNode:finance'],
  ['mlFeature', 'urn:li:mlFeature:(users,age)'],
  ['mlModelGroup', 'urn:li:mlModelGroup:(urn:li:dataPlatform:sagemaker,churn,PROD)'],
  ['notebook', 'urn:li:notebook:(querybook,42)'],
  ['assertion', 'urn:li:assertion:a1'],
  ['incident', 'urn:li:incident:i1'],
  ['application', 'urn:li:application:billing'],
  ['document', 'urn:li:document:runbook'],
  ['dataHubIngestionSource', 'urn:li:dataHubIngestionSource:cli-1a2b'],
  ['dataHubExecutionRequest', 'urn:li:dataHubExecutionRequest:run-1'],
  ['dataPlatformInstance', 'urn:li:dataPlatformInstance:(urn:li:dataPlatform:snowflake,eu)'],
])("DataHub's entity type %s is registered: its URN %s parses", (name, urn) => {
  const type = findEntityType(name);
  expect(type?.name).toBe(name);
  expect(tryParseUrn(urn)).toMatchObject({ ok: true, urn: { entityType: type } });
});

test('every entity type name and GraphQL value is registered once', () => {
  expect(new Set(ENTITY_TYPES.map((t) => t.name)).size).toBe(ENTITY_TYPES.length);
  expect(new Set(ENTITY_TYPES.map((t) => t.graphql)).size).toBe(ENTITY_TYPES.length);
});

test.each(SPEC_TABLE)('the entity type %s is found by its GraphQL enum value %s', (name, graphql) => {
  expect(entityTypeByGraphql(graphql)?.name).toBe(name);
});

test('an unknown GraphQL enum value names no entity type', () => {
  expect(entityTypeByGraphql('NOT_A_TYPE')).toBeUndefined();
});

test('entity names are found case-insensitively, as REST paths match them', () => {
  expect(findEntityType('SCHEMAFIELD')?.name).toBe('schemaField');
});

test('an unknown entity name is not found', () => {
  expect(findEntityType('notAType')).toBeUndefined();
});

test('every entity type key aspect is named <entityName>Key', () => {
  expectEvery(ENTITY_TYPES, (t) => t.keyAspect === `${t.name}Key`);
});

test('every entity type has as many key fields as key parts', () => {
  expectEvery(ENTITY_TYPES, (t) => t.keyFields.length === t.keyParts.length);
});

test('schema fields and definitions are searched only when named, as in DataHub', () => {
  expect(defaultSearchTypes().map((t) => t.name)).not.toContain('schemaField');
  expect(defaultSearchTypes().map((t) => t.name)).not.toContain('structuredProperty');
  expect(searchableEntityTypes().map((t) => t.name)).toEqual(expect.arrayContaining(['schemaField', 'structuredProperty']));
});

test('datasets are searchable', () => {
  expect(searchableEntityTypes().map((t) => t.name)).toContain('dataset');
});

test('datasets and schema fields may carry structured properties', () => {
  expect(findEntityType('dataset')!.aspects).toContain('structuredProperties');
  expect(findEntityType('schemaField')!.aspects).toContain('structuredProperties');
});

test('a structured property entity carries its definition and status aspects', () => {
  expect(findEntityType('structuredProperty')!.aspects).toEqual(expect.arrayContaining(['propertyDefinition', 'status']));
});

test('the fabric types are exactly those docs/contract.md §1 lists', () => {
  expect([...FABRIC_TYPES].sort()).toEqual(
    ['PROD', 'DEV', 'TEST', 'QA', 'UAT', 'EI', 'PRE', 'STG', 'NON_PROD', 'CORP', 'RVW', 'PRD', 'TST', 'SIT', 'SBX', 'SANDBOX'].sort(),
  );
});
