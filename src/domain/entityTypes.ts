/**
 * The one table of entity types (docs/contract.md §1). Nothing else hard-codes entity names: REST
 * path matching, GraphQL's EntityType enum, URN key parsing, aspect allow-lists and
 * which types are searchable all read from here.
 */

/** Aspects that any catalog asset may carry. */
const ASSET_ASPECTS = [
  'status',
  'structuredProperties',
  'testResults',
  'ownership',
  'globalTags',
  'glossaryTerms',
  'domains',
  'institutionalMemory',
  'browsePathsV2',
  'subTypes',
  'container',
  'dataPlatformInstance',
] as const;

export type KeyPart = 'platformUrn' | 'datasetUrn' | 'dataFlowUrn' | 'origin' | 'text';

export interface EntityTypeInfo {
  /** The name used in URNs and REST paths, e.g. `dataset`. */
  readonly name: string;
  /** GraphQL EntityType enum value, e.g. `DATASET`. */
  readonly graphql: string;
  /** Key aspect name, derived from the URN on read, never stored. */
  readonly keyAspect: string;
  /** Names of the key aspect's fields, in URN tuple order. */
  readonly keyFields: readonly string[];
  /** What each tuple part must be; a single plain part when the id is not a tuple. */
  readonly keyParts: readonly KeyPart[];
  /** Whether the search index holds a document per entity of this type. */
  readonly searchable: boolean;
  /** Whether a search naming no types covers this one (schema fields and definitions are searched only when named, as in DataHub). */
  readonly searchedByDefault: boolean;
  /** Aspects that may be written to entities of this type (besides the key aspect). */
  readonly aspects: readonly string[];
}

function type(
  name: string,
  graphql: string,
  keyFields: readonly string[],
  keyParts: readonly KeyPart[],
  aspects: readonly string[],
  search: 'default' | 'named' | 'no' = 'default',
): EntityTypeInfo {
  return { name, graphql, keyAspect: `${name}Key`, keyFields, keyParts, searchable: search !== 'no', searchedByDefault: search === 'default', aspects };
}

const TYPES: readonly EntityTypeInfo[] = [
  type('dataset', 'DATASET', ['platform', 'name', 'origin'], ['platformUrn', 'text', 'origin'], [
    ...ASSET_ASPECTS,
    'datasetProperties',
    'editableDatasetProperties',
    'schemaMetadata',
    'editableSchemaMetadata',
    'upstreamLineage',
    'viewProperties',
  ]),
  // Schema fields are searched only when named, as in DataHub.
  type('schemaField', 'SCHEMA_FIELD', ['parent', 'fieldPath'], ['datasetUrn', 'text'], [...ASSET_ASPECTS, 'schemafieldInfo'], 'named'),
  type('dataFlow', 'DATA_FLOW', ['orchestrator', 'flowId', 'cluster'], ['text', 'text', 'text'], [
    ...ASSET_ASPECTS,
    'dataFlowInfo',
    'editableDataFlowProperties',
  ]),
  type('dataJob', 'DATA_JOB', ['flow', 'jobId'], ['dataFlowUrn', 'text'], [
    ...ASSET_ASPECTS,
    'dataJobInfo',
    'dataJobInputOutput',
    'editableDataJobProperties',
  ]),
  type('chart', 'CHART', ['dashboardTool', 'chartId'], ['text', 'text'], [...ASSET_ASPECTS, 'chartInfo', 'editableChartProperties']),
  type('dashboard', 'DASHBOARD', ['dashboardTool', 'dashboardId'], ['text', 'text'], [
    ...ASSET_ASPECTS,
    'dashboardInfo',
    'editableDashboardProperties',
  ]),
  type('container', 'CONTAINER', ['guid'], ['text'], [...ASSET_ASPECTS, 'containerProperties', 'editableContainerProperties']),
  type('domain', 'DOMAIN', ['id'], ['text'], [...ASSET_ASPECTS, 'domainProperties']),
  type('glossaryTerm', 'GLOSSARY_TERM', ['name'], ['text'], [...ASSET_ASPECTS, 'glossaryTermInfo']),
  type('tag', 'TAG', ['name'], ['text'], [...ASSET_ASPECTS, 'tagProperties']),
  type('corpuser', 'CORP_USER', ['username'], ['text'], [...ASSET_ASPECTS, 'corpUserInfo', 'corpUserEditableInfo']),
  type('corpGroup', 'CORP_GROUP', ['name'], ['text'], [...ASSET_ASPECTS, 'corpGroupInfo', 'corpGroupEditableInfo']),
  type('mlModel', 'MLMODEL', ['platform', 'name', 'origin'], ['platformUrn', 'text', 'origin'], [
    ...ASSET_ASPECTS,
    'mlModelProperties',
    'editableMLModelProperties',
  ]),
  type('dataProduct', 'DATA_PRODUCT', ['id'], ['text'], [...ASSET_ASPECTS, 'dataProductProperties']),
  type('structuredProperty', 'STRUCTURED_PROPERTY', ['id'], ['text'], ['propertyDefinition', 'status', 'structuredPropertySettings'], 'named'),
  type('test', 'TEST', ['id'], ['text'], ['testInfo', 'status'], 'no'),
  type('dataType', 'DATA_TYPE', ['id'], ['text'], ['dataTypeInfo'], 'no'),
  type('entityType', 'ENTITY_TYPE', ['id'], ['text'], ['entityTypeInfo'], 'no'),
  type('dataPlatform', 'DATA_PLATFORM', ['platformName'], ['text'], ['dataPlatformInfo'], 'no'),
];

const byLowerName = new Map(TYPES.map((t) => [t.name.toLowerCase(), t]));
const byGraphql = new Map(TYPES.map((t) => [t.graphql, t]));

export const ENTITY_TYPES: readonly EntityTypeInfo[] = TYPES;

/** Looks an entity type up by name, case-insensitively (REST paths match this way). */
export function findEntityType(name: string): EntityTypeInfo | undefined {
  return byLowerName.get(name.toLowerCase());
}

export function entityTypeByGraphql(value: string): EntityTypeInfo | undefined {
  return byGraphql.get(value);
}

/** The types with a search index. */
export function searchableEntityTypes(): EntityTypeInfo[] {
  return TYPES.filter((t) => t.searchable);
}

/** The types a search covers when it names none. */
export function defaultSearchTypes(): EntityTypeInfo[] {
  return TYPES.filter((t) => t.searchedByDefault);
}

/** The environments ("fabric types") a dataset URN's origin may name. */
export const FABRIC_TYPES: ReadonlySet<string> = new Set([
  'PROD', 'DEV', 'TEST', 'QA', 'UAT', 'EI', 'PRE', 'STG', 'NON_PROD', 'CORP', 'RVW', 'PRD', 'TST', 'SIT', 'SBX', 'SANDBOX',
]);
