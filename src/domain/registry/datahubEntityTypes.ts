/**
 * The rest of DataHub's entity registry: entity types propgraph has no rules for beyond
 * storing and reading their aspects as given (ingestion runs, ML features, glossary
 * nodes, notebooks, assertions, incidents, ...), so that DataHub's clients can write
 * them and a definition may name them. Each row: name, GraphQL EntityType value, key
 * fields and what each key part is, aspects (besides the key), and how search treats it.
 * Also the aspects DataHub registers on the types of entityTypes.ts beyond the ones
 * propgraph gives rules to.
 */

/** The aspects any catalog asset carries: those of entityTypes.ts's assets, and of the asset types here. */
export const ASSET_ASPECTS = [
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
/** Aspects a catalog asset of DataHub's carries that propgraph stores as given. */
const ASSET_EXTRAS = ['deprecation', 'browsePaths', 'forms', 'incidentsSummary', 'applications'] as const;
const ASSET = [...ASSET_ASPECTS, ...ASSET_EXTRAS] as const;

export interface DataHubTypeRow {
  readonly name: string;
  readonly graphql: string;
  readonly keyFields: readonly string[];
  /** 'platformUrn' | 'datasetUrn' | 'dataFlowUrn' | 'origin' | 'text', one per key field. */
  readonly keyParts: readonly string[];
  readonly aspects: readonly string[];
  /** 'named': searched when a search names the type; 'no': stored and read, never indexed. */
  readonly search: 'named' | 'no';
}

function row(name: string, graphql: string, keyFields: readonly string[], keyParts: readonly string[], aspects: readonly string[], search: 'named' | 'no' = 'no'): DataHubTypeRow {
  return { name, graphql, keyFields, keyParts, aspects, search };
}

const id = ['id'];
const plainKey = ['text'];
const mlKey = [['platform', 'name', 'origin'], ['platformUrn', 'text', 'origin']] as const;

export const DATAHUB_ENTITY_TYPES: readonly DataHubTypeRow[] = [
  row('glossaryNode', 'GLOSSARY_NODE', ['name'], plainKey, [...ASSET, 'glossaryNodeInfo'], 'named'),
  row('mlModelGroup', 'MLMODEL_GROUP', ...mlKey, [...ASSET, 'mlModelGroupProperties', 'editableMlModelGroupProperties'], 'named'),
  row('mlModelDeployment', 'MLMODEL_DEPLOYMENT', ...mlKey, [...ASSET, 'mlModelDeploymentProperties']),
  row('mlFeatureTable', 'MLFEATURE_TABLE', ['platform', 'name'], ['platformUrn', 'text'], [...ASSET, 'mlFeatureTableProperties', 'editableMlFeatureTableProperties'], 'named'),
  row('mlFeature', 'MLFEATURE', ['featureNamespace', 'name'], ['text', 'text'], [...ASSET, 'mlFeatureProperties', 'editableMlFeatureProperties'], 'named'),
  row('mlPrimaryKey', 'MLPRIMARY_KEY', ['featureNamespace', 'name'], ['text', 'text'], [...ASSET, 'mlPrimaryKeyProperties', 'editableMlPrimaryKeyProperties'], 'named'),
  row('notebook', 'NOTEBOOK', ['notebookTool', 'notebookId'], ['text', 'text'], [...ASSET, 'notebookInfo', 'notebookContent', 'editableNotebookProperties']),
  row('application', 'APPLICATION', id, plainKey, [...ASSET, 'applicationProperties']),
  row('document', 'DOCUMENT', id, plainKey, [...ASSET, 'documentInfo']),
  row('assertion', 'ASSERTION', ['assertionId'], plainKey, ['status', 'globalTags', 'dataPlatformInstance', 'assertionInfo', 'assertionRunEvent', 'assertionActions']),
  row('incident', 'INCIDENT', id, plainKey, ['status', 'globalTags', 'incidentInfo']),
  row('dataProcess', 'DATA_PROCESS', ['name', 'orchestrator', 'origin'], ['text', 'text', 'origin'], ['status', 'ownership', 'testResults', 'dataProcessInfo']),
  row('dataProcessInstance', 'DATA_PROCESS_INSTANCE', id, plainKey, [
    'status',
    'testResults',
    'dataProcessInstanceInput',
    'dataProcessInstanceOutput',
    'dataProcessInstanceProperties',
    'dataProcessInstanceRelationships',
    'dataProcessInstanceRunEvent',
  ]),
  row('query', 'QUERY', id, plainKey, ['status', 'dataPlatformInstance', 'subTypes', 'queryProperties', 'querySubjects', 'queryUsageStatistics']),
  row('businessAttribute', 'BUSINESS_ATTRIBUTE', id, plainKey, ['status', 'ownership', 'institutionalMemory', 'businessAttributeInfo']),
  row('dataContract', 'DATA_CONTRACT', id, plainKey, ['status', 'dataContractProperties', 'dataContractStatus']),
  row('erModelRelationship', 'ER_MODEL_RELATIONSHIP', id, plainKey, [
    'status',
    'ownership',
    'globalTags',
    'glossaryTerms',
    'institutionalMemory',
    'erModelRelationshipProperties',
    'editableERModelRelationshipProperties',
  ]),
  row('form', 'FORM', id, plainKey, ['ownership', 'formInfo', 'dynamicFormAssignment']),
  row('ownershipType', 'CUSTOM_OWNERSHIP_TYPE', id, plainKey, ['status', 'ownershipTypeInfo']),
  row('role', 'ROLE', id, plainKey, ['roleProperties', 'actors']),
  row('post', 'POST', id, plainKey, ['postInfo']),
  row('versionSet', 'VERSION_SET', ['id', 'entityType'], ['text', 'text'], ['versionSetProperties']),
  row('platformResource', 'PLATFORM_RESOURCE', id, plainKey, ['status', 'dataPlatformInstance', 'platformResourceInfo']),
  row('dataPlatformInstance', 'DATA_PLATFORM_INSTANCE', ['platform', 'instance'], ['platformUrn', 'text'], [
    'status',
    'ownership',
    'globalTags',
    'institutionalMemory',
    'deprecation',
    'dataPlatformInstanceProperties',
  ]),
  // DataHub's own system entities: what its ingestion reports, settings and policies write.
  row('dataHubIngestionSource', 'INGESTION_SOURCE', id, plainKey, ['dataHubIngestionSourceInfo']),
  row('dataHubExecutionRequest', 'EXECUTION_REQUEST', id, plainKey, ['dataHubExecutionRequestInput', 'dataHubExecutionRequestSignal', 'dataHubExecutionRequestResult']),
  row('dataHubSecret', 'DATAHUB_SECRET', id, plainKey, ['dataHubSecretValue']),
  row('dataHubRole', 'DATAHUB_ROLE', id, plainKey, ['dataHubRoleInfo']),
  row('dataHubRetention', 'DATAHUB_RETENTION', ['entityName', 'aspectName'], ['text', 'text'], ['dataHubRetentionConfig']),
  row('dataHubAccessToken', 'ACCESS_TOKEN', id, plainKey, ['dataHubAccessTokenInfo']),
  row('dataHubUpgrade', 'DATAHUB_UPGRADE', id, plainKey, ['dataHubUpgradeRequest', 'dataHubUpgradeResult']),
  row('dataHubStepState', 'DATAHUB_STEP_STATE', id, plainKey, ['dataHubStepStateProperties']),
  row('dataHubView', 'DATAHUB_VIEW', id, plainKey, ['dataHubViewInfo']),
  row('dataHubPersona', 'DATAHUB_PERSONA', id, plainKey, ['dataHubPersonaInfo']),
  row('dataHubConnection', 'DATAHUB_CONNECTION', id, plainKey, ['dataHubConnectionDetails', 'dataPlatformInstance']),
  row('globalSettings', 'GLOBAL_SETTINGS', id, plainKey, ['globalSettingsInfo']),
  row('inviteToken', 'INVITE_TOKEN', id, plainKey, ['inviteToken']),
  row('telemetry', 'TELEMETRY', ['name'], plainKey, ['telemetryClientId']),
];

/** DataHub's aspects on the types of entityTypes.ts beyond those propgraph gives rules to, stored as given. */
export const DATAHUB_EXTRA_ASPECTS: Readonly<Record<string, readonly string[]>> = {
  dataset: [...ASSET_EXTRAS, 'siblings', 'embed', 'access', 'operation', 'datasetProfile', 'datasetUsageStatistics', 'datasetDeprecation', 'datasetUpstreamLineage', 'partitionsSummary'],
  schemaField: ['forms', 'businessAttributes', 'schemaFieldAliases', 'documentation'],
  dataFlow: [...ASSET_EXTRAS, 'versionInfo'],
  dataJob: [...ASSET_EXTRAS, 'versionInfo', 'datahubIngestionRunSummary', 'datahubIngestionCheckpoint'],
  chart: [...ASSET_EXTRAS, 'embed', 'chartQuery', 'inputFields', 'chartUsageStatistics'],
  dashboard: [...ASSET_EXTRAS, 'embed', 'inputFields', 'dashboardUsageStatistics'],
  container: [...ASSET_EXTRAS, 'access'],
  domain: ['forms'],
  glossaryTerm: [...ASSET_EXTRAS, 'schemaMetadata', 'glossaryRelatedTerms'],
  tag: ['deprecation'],
  corpuser: ['forms', 'corpUserStatus', 'groupMembership', 'nativeGroupMembership', 'corpUserCredentials', 'corpUserSettings', 'origin', 'roleMembership'],
  corpGroup: ['forms', 'origin', 'roleMembership'],
  mlModel: [
    ...ASSET_EXTRAS,
    'editableMlModelProperties',
    'intendedUse',
    'mlModelFactorPrompts',
    'mlModelMetrics',
    'mlModelEvaluationData',
    'mlModelTrainingData',
    'mlModelQuantitativeAnalyses',
    'mlModelEthicalConsiderations',
    'mlModelCaveatsAndRecommendations',
    'sourceCode',
    'cost',
    'versionProperties',
  ],
  dataProduct: ['forms', 'applications'],
  structuredProperty: ['institutionalMemory'],
  dataType: ['institutionalMemory', 'status'],
  entityType: ['institutionalMemory', 'status'],
};
