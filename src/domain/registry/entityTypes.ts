/**
 * The entity types propgraph knows: the one table every layer reads. REST path
 * matching, GraphQL's EntityType enum and object types, URN key parsing, aspect
 * allow-lists, which types are searchable, who may write them and how a hard delete
 * reaches their children all come from a row here. Code that needs one particular type
 * names it through ENTITY (below), so that nothing else spells entity names.
 */
import { ValidationError } from '../errors.js';
import { ASSET_ASPECTS, DATAHUB_ENTITY_TYPES, DATAHUB_EXTRA_ASPECTS } from './datahubEntityTypes.js';

/** The privileges that govern writes of an entity type's aspects (domain/policies/privileges.ts). */
export type WritePrivilege = 'EDIT_ENTITY' | 'MANAGE_STRUCTURED_PROPERTIES' | 'MANAGE_TESTS' | 'MANAGE_POLICIES';

/** What one part of a URN's key must be: a URN of another type, an environment, or text. */
export type KeyPart = 'platformUrn' | 'datasetUrn' | 'dataFlowUrn' | 'origin' | 'text';

export interface EntityTypeInfo {
  /** The name used in URNs and REST paths, e.g. `dataset`. */
  readonly name: string;
  /** GraphQL EntityType enum value, e.g. `DATASET`. */
  readonly graphql: string;
  /** GraphQL object type of its entities (`GenericEntity` where the schema has no type of its own). */
  readonly graphqlObject: string;
  /** The console's label (`Schema field`). */
  readonly label: string;
  /** Key aspect name, derived from the URN on read, never stored. */
  readonly keyAspect: string;
  /** DataHub's spelling of the key aspect where it differs (`corpUserKey`). */
  readonly datahubKeyAspect: string;
  /** DataHub's record class of the key aspect. */
  readonly keyClass: string;
  /** Names of the key aspect's fields, in URN tuple order. */
  readonly keyFields: readonly string[];
  /** What each tuple part must be; a single plain part when the id is not a tuple. */
  readonly keyParts: readonly KeyPart[];
  /** Whether the search index holds a document per entity of this type. */
  readonly searchable: boolean;
  /** Whether a search naming no types covers this one (schema fields and definitions are searched only when named, as in DataHub). */
  readonly searchedByDefault: boolean;
  /** Aspects that may be written to entities of this type (besides the key aspect); each has a module (domain/aspects/). */
  readonly aspects: readonly string[];
  /** The aspect whose removal removes what the entity defines (a property's definition, a test's rule). */
  readonly definitionAspect?: string;
  /** Writing any of its aspects needs admin (metadata tests are managed by admins). */
  readonly adminWrites: boolean;
  /**
   * The privilege a policy must grant to write its entities (domain/policies/privileges.ts):
   * EDIT_ENTITY, or the privilege of what it defines (a property, a metadata test, a policy).
   */
  readonly writePrivilege: WritePrivilege;
  /** Built in: its entities exist without being stored (data types, entity types). */
  readonly builtIn: boolean;
  /** The entity type whose URNs nest this one's as their first key part (a dataset's schema fields), deleted with it. */
  readonly childType?: string;
  /** Its URN ids may not contain white space (qualified names). */
  readonly idWithoutSpaces: boolean;
}

interface Row {
  readonly graphqlObject?: string;
  readonly label?: string;
  readonly datahubKeyAspect?: string;
  readonly keyClass?: string;
  readonly search?: 'default' | 'named' | 'no';
  readonly definitionAspect?: string;
  readonly adminWrites?: boolean;
  readonly writePrivilege?: WritePrivilege;
  readonly builtIn?: boolean;
  readonly childType?: string;
  readonly idWithoutSpaces?: boolean;
}

const KEY_PACKAGE = 'com.linkedin.metadata.key';
const capitalized = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

/** `schemaField` → `Schema field`. */
function labelOf(name: string): string {
  const words = name.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
  return capitalized(words);
}

function type(name: string, graphql: string, keyFields: readonly string[], keyParts: readonly KeyPart[], own: readonly string[], row: Row = {}): EntityTypeInfo {
  const keyAspect = `${name}Key`;
  // DataHub's other aspects of the type are stored as given (datahubEntityTypes.ts).
  const aspects = [...new Set([...own, ...(DATAHUB_EXTRA_ASPECTS[name] ?? [])])];
  const datahubKeyAspect = row.datahubKeyAspect ?? keyAspect;
  const search = row.search ?? 'default';
  return {
    name,
    graphql,
    graphqlObject: row.graphqlObject ?? 'GenericEntity',
    label: row.label ?? labelOf(name),
    keyAspect,
    datahubKeyAspect,
    keyClass: row.keyClass ?? `${KEY_PACKAGE}.${capitalized(datahubKeyAspect)}`,
    keyFields,
    keyParts,
    searchable: search !== 'no',
    searchedByDefault: search === 'default',
    aspects,
    ...(row.definitionAspect ? { definitionAspect: row.definitionAspect } : {}),
    adminWrites: row.adminWrites ?? false,
    writePrivilege: row.writePrivilege ?? 'EDIT_ENTITY',
    builtIn: row.builtIn ?? false,
    ...(row.childType ? { childType: row.childType } : {}),
    idWithoutSpaces: row.idWithoutSpaces ?? false,
  };
}

/** The types propgraph gives rules, search facts or GraphQL types of their own. */
const CORE_TYPES = [
  type(
    'dataset',
    'DATASET',
    ['platform', 'name', 'origin'],
    ['platformUrn', 'text', 'origin'],
    [...ASSET_ASPECTS, 'datasetProperties', 'editableDatasetProperties', 'schemaMetadata', 'editableSchemaMetadata', 'upstreamLineage', 'viewProperties'],
    { graphqlObject: 'Dataset', childType: 'schemaField' },
  ),
  // Schema fields are searched only when named, as in DataHub.
  type('schemaField', 'SCHEMA_FIELD', ['parent', 'fieldPath'], ['datasetUrn', 'text'], [...ASSET_ASPECTS, 'schemafieldInfo'], {
    graphqlObject: 'SchemaFieldEntity',
    search: 'named',
  }),
  type('dataFlow', 'DATA_FLOW', ['orchestrator', 'flowId', 'cluster'], ['text', 'text', 'text'], [...ASSET_ASPECTS, 'dataFlowInfo', 'editableDataFlowProperties']),
  type('dataJob', 'DATA_JOB', ['flow', 'jobId'], ['dataFlowUrn', 'text'], [...ASSET_ASPECTS, 'dataJobInfo', 'dataJobInputOutput', 'editableDataJobProperties']),
  type('chart', 'CHART', ['dashboardTool', 'chartId'], ['text', 'text'], [...ASSET_ASPECTS, 'chartInfo', 'editableChartProperties']),
  type('dashboard', 'DASHBOARD', ['dashboardTool', 'dashboardId'], ['text', 'text'], [...ASSET_ASPECTS, 'dashboardInfo', 'editableDashboardProperties']),
  type('container', 'CONTAINER', ['guid'], ['text'], [...ASSET_ASPECTS, 'containerProperties', 'editableContainerProperties']),
  type('domain', 'DOMAIN', ['id'], ['text'], [...ASSET_ASPECTS, 'domainProperties']),
  type('glossaryTerm', 'GLOSSARY_TERM', ['name'], ['text'], [...ASSET_ASPECTS, 'glossaryTermInfo']),
  type('tag', 'TAG', ['name'], ['text'], [...ASSET_ASPECTS, 'tagProperties']),
  type('corpuser', 'CORP_USER', ['username'], ['text'], [...ASSET_ASPECTS, 'corpUserInfo', 'corpUserEditableInfo'], {
    graphqlObject: 'CorpUser',
    label: 'User',
    datahubKeyAspect: 'corpUserKey',
  }),
  type('corpGroup', 'CORP_GROUP', ['name'], ['text'], [...ASSET_ASPECTS, 'corpGroupInfo', 'corpGroupEditableInfo'], { label: 'Group' }),
  type('mlModel', 'MLMODEL', ['platform', 'name', 'origin'], ['platformUrn', 'text', 'origin'], [...ASSET_ASPECTS, 'mlModelProperties', 'editableMLModelProperties'], {
    label: 'ML model',
  }),
  type('dataProduct', 'DATA_PRODUCT', ['id'], ['text'], [...ASSET_ASPECTS, 'dataProductProperties']),
  type('structuredProperty', 'STRUCTURED_PROPERTY', ['id'], ['text'], ['propertyDefinition', 'status', 'structuredPropertySettings'], {
    graphqlObject: 'StructuredPropertyEntity',
    keyClass: 'com.linkedin.structured.StructuredPropertyKey',
    search: 'named',
    definitionAspect: 'propertyDefinition',
    idWithoutSpaces: true,
    writePrivilege: 'MANAGE_STRUCTURED_PROPERTIES',
  }),
  type('test', 'TEST', ['id'], ['text'], ['testInfo', 'status'], { graphqlObject: 'Test', search: 'no', definitionAspect: 'testInfo', adminWrites: true, writePrivilege: 'MANAGE_TESTS' }),
  type('dataType', 'DATA_TYPE', ['id'], ['text'], ['dataTypeInfo'], { graphqlObject: 'DataTypeEntity', search: 'no', builtIn: true }),
  type('entityType', 'ENTITY_TYPE', ['id'], ['text'], ['entityTypeInfo'], { graphqlObject: 'EntityTypeEntity', search: 'no', builtIn: true }),
  type('dataPlatform', 'DATA_PLATFORM', ['platformName'], ['text'], ['dataPlatformInfo'], { graphqlObject: 'DataPlatform', search: 'no' }),
  // Policies, stored as DataHub stores them: managing them is what MANAGE_POLICIES grants.
  type('dataHubPolicy', 'DATAHUB_POLICY', ['id'], ['text'], ['dataHubPolicyInfo'], { search: 'no', definitionAspect: 'dataHubPolicyInfo', adminWrites: true, writePrivilege: 'MANAGE_POLICIES' }),
] as const satisfies readonly EntityTypeInfo[];

const TYPES: readonly EntityTypeInfo[] = [
  ...CORE_TYPES,
  ...DATAHUB_ENTITY_TYPES.map((t) => type(t.name, t.graphql, t.keyFields, t.keyParts as readonly KeyPart[], t.aspects, { search: t.search })),
];

const byLowerName = new Map<string, EntityTypeInfo>(TYPES.map((t) => [t.name.toLowerCase(), t]));
const byGraphql = new Map<string, EntityTypeInfo>(TYPES.map((t) => [t.graphql, t]));

export const ENTITY_TYPES: readonly EntityTypeInfo[] = TYPES;

/** Looks an entity type up by name, case-insensitively (REST paths match this way). */
export function findEntityType(name: string): EntityTypeInfo | undefined {
  return byLowerName.get(name.toLowerCase());
}

export function entityTypeByGraphql(value: string): EntityTypeInfo | undefined {
  return byGraphql.get(value);
}

function named(name: string): EntityTypeInfo {
  const found = byLowerName.get(name.toLowerCase());
  if (!found || found.name !== name) throw new Error(`the registry has no entity type ${name}`);
  return found;
}

/**
 * The entity types code refers to by role: the ones the seed's workflows are about, and
 * the ones other URNs nest. Compare an URN's type with these (`urn.entityType ===
 * ENTITY.dataset`), never with a spelled name.
 */
export const ENTITY = {
  dataset: named('dataset'),
  schemaField: named('schemaField'),
  dataFlow: named('dataFlow'),
  dataPlatform: named('dataPlatform'),
  structuredProperty: named('structuredProperty'),
  test: named('test'),
  dataHubPolicy: named('dataHubPolicy'),
  corpuser: named('corpuser'),
  corpGroup: named('corpGroup'),
  dataType: named('dataType'),
  entityType: named('entityType'),
} as const;

/** The types with a search index. */
export function searchableEntityTypes(): EntityTypeInfo[] {
  return ENTITY_TYPES.filter((t) => t.searchable);
}

/** The types a search covers when it names none. */
export function defaultSearchTypes(): EntityTypeInfo[] {
  return ENTITY_TYPES.filter((t) => t.searchedByDefault);
}

/** The type whose entities contain this type's (a schema field's dataset): they exist exactly when it does. */
export function parentTypeOf(type: EntityTypeInfo): EntityTypeInfo | undefined {
  return ENTITY_TYPES.find((t) => t.childType === type.name);
}

/** Whether entities of the type may hold structured property values. */
export function holdsValues(type: EntityTypeInfo): boolean {
  return type.aspects.includes('structuredProperties');
}

/** Whether `aspect` may be written to an entity of `type` (the key aspect included). */
export function isKnownAspect(type: EntityTypeInfo, aspect: string): boolean {
  return aspect === type.keyAspect || type.aspects.includes(aspect);
}

/** Refuses an aspect that entities of `type` cannot carry, naming the ones they can. */
export function requireKnownAspect(type: EntityTypeInfo, aspect: string): void {
  if (!isKnownAspect(type, aspect)) {
    throw new ValidationError(`Unknown aspect ${aspect} for entity type ${type.name}; known aspects: ${[type.keyAspect, ...type.aspects].join(', ')}`, 'aspect');
  }
}

/** propgraph's name of an aspect a DataHub client names (`corpUserKey` → `corpuserKey`). */
export function aspectNamed(type: EntityTypeInfo, name: string): string {
  return name === type.datahubKeyAspect ? type.keyAspect : name;
}

/** The environments ("fabric types") a dataset URN's origin may name. */
export const FABRIC_TYPES: ReadonlySet<string> = new Set([
  'PROD', 'DEV', 'TEST', 'QA', 'UAT', 'EI', 'PRE', 'STG', 'NON_PROD', 'CORP', 'RVW', 'PRD', 'TST', 'SIT', 'SBX', 'SANDBOX',
]);
