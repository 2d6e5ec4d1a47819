/**
 * The aspects of DataHub's entity registry that propgraph stores as given (shape-checked
 * as JSON objects, no rules of their own), each with its DataHub record class so that
 * Rest.li can answer it: rows of the stored-as-given module
 * (domain/aspects/modules/storedAsGiven.ts). An aspect given rules or search facts
 * leaves this list for a module of its own.
 */
/** [aspect name, DataHub record class]. */
type Row = readonly [string, string];

const plain = (name: string, pdlClass: string): Row => [name, pdlClass];

const COMMON = 'com.linkedin.common';
const ML = 'com.linkedin.ml.metadata';

export const DATAHUB_ASPECTS: readonly Row[] = [
  // Common to many assets.
  plain('deprecation', `${COMMON}.Deprecation`),
  plain('browsePaths', `${COMMON}.BrowsePaths`),
  plain('siblings', `${COMMON}.Siblings`),
  plain('embed', `${COMMON}.Embed`),
  plain('access', `${COMMON}.Access`),
  plain('operation', `${COMMON}.Operation`),
  plain('incidentsSummary', `${COMMON}.IncidentsSummary`),
  plain('origin', `${COMMON}.Origin`),
  plain('cost', `${COMMON}.Cost`),
  plain('inputFields', `${COMMON}.InputFields`),
  plain('documentation', `${COMMON}.Documentation`),
  plain('versionProperties', `${COMMON}.VersionProperties`),
  plain('forms', 'com.linkedin.form.Forms'),
  plain('applications', 'com.linkedin.application.Applications'),
  // Datasets, charts, dashboards, jobs.
  plain('datasetProfile', 'com.linkedin.dataset.DatasetProfile'),
  plain('datasetUsageStatistics', 'com.linkedin.dataset.DatasetUsageStatistics'),
  plain('datasetDeprecation', 'com.linkedin.dataset.DatasetDeprecation'),
  plain('datasetUpstreamLineage', 'com.linkedin.dataset.DatasetUpstreamLineage'),
  plain('partitionsSummary', 'com.linkedin.dataset.PartitionsSummary'),
  plain('chartQuery', 'com.linkedin.chart.ChartQuery'),
  plain('chartUsageStatistics', 'com.linkedin.chart.ChartUsageStatistics'),
  plain('dashboardUsageStatistics', 'com.linkedin.dashboard.DashboardUsageStatistics'),
  plain('versionInfo', 'com.linkedin.datajob.VersionInfo'),
  plain('datahubIngestionRunSummary', 'com.linkedin.datajob.datahub.DatahubIngestionRunSummary'),
  plain('datahubIngestionCheckpoint', 'com.linkedin.datajob.datahub.DatahubIngestionCheckpoint'),
  plain('dataProcessInfo', 'com.linkedin.dataprocess.DataProcessInfo'),
  plain('dataProcessInstanceInput', 'com.linkedin.dataprocess.DataProcessInstanceInput'),
  plain('dataProcessInstanceOutput', 'com.linkedin.dataprocess.DataProcessInstanceOutput'),
  plain('dataProcessInstanceProperties', 'com.linkedin.dataprocess.DataProcessInstanceProperties'),
  plain('dataProcessInstanceRelationships', 'com.linkedin.dataprocess.DataProcessInstanceRelationships'),
  plain('dataProcessInstanceRunEvent', 'com.linkedin.dataprocess.DataProcessInstanceRunEvent'),
  // Schema fields.
  plain('schemaFieldAliases', 'com.linkedin.schemafield.SchemaFieldAliases'),
  plain('businessAttributes', 'com.linkedin.businessattribute.BusinessAttributes'),
  // Users and groups.
  plain('corpUserStatus', 'com.linkedin.identity.CorpUserStatus'),
  plain('groupMembership', 'com.linkedin.identity.GroupMembership'),
  plain('nativeGroupMembership', 'com.linkedin.identity.NativeGroupMembership'),
  plain('corpUserCredentials', 'com.linkedin.identity.CorpUserCredentials'),
  plain('corpUserSettings', 'com.linkedin.identity.CorpUserSettings'),
  plain('roleMembership', 'com.linkedin.identity.RoleMembership'),
  plain('inviteToken', 'com.linkedin.identity.InviteToken'),
  // Glossary.
  plain('glossaryNodeInfo', 'com.linkedin.glossary.GlossaryNodeInfo'),
  plain('glossaryRelatedTerms', 'com.linkedin.glossary.GlossaryRelatedTerms'),
  // Notebooks.
  plain('notebookInfo', 'com.linkedin.notebook.NotebookInfo'),
  plain('notebookContent', 'com.linkedin.notebook.NotebookContent'),
  plain('editableNotebookProperties', 'com.linkedin.notebook.EditableNotebookProperties'),
  // Machine learning.
  plain('editableMlModelProperties', `${ML}.EditableMLModelProperties`),
  plain('intendedUse', `${ML}.IntendedUse`),
  plain('mlModelFactorPrompts', `${ML}.MLModelFactorPrompts`),
  plain('mlModelMetrics', `${ML}.Metrics`),
  plain('mlModelEvaluationData', `${ML}.EvaluationData`),
  plain('mlModelTrainingData', `${ML}.TrainingData`),
  plain('mlModelQuantitativeAnalyses', `${ML}.QuantitativeAnalyses`),
  plain('mlModelEthicalConsiderations', `${ML}.EthicalConsiderations`),
  plain('mlModelCaveatsAndRecommendations', `${ML}.CaveatsAndRecommendations`),
  plain('sourceCode', `${ML}.SourceCode`),
  plain('mlModelGroupProperties', `${ML}.MLModelGroupProperties`),
  plain('editableMlModelGroupProperties', `${ML}.EditableMLModelGroupProperties`),
  plain('mlModelDeploymentProperties', `${ML}.MLModelDeploymentProperties`),
  plain('mlFeatureTableProperties', `${ML}.MLFeatureTableProperties`),
  plain('editableMlFeatureTableProperties', `${ML}.EditableMLFeatureTableProperties`),
  plain('mlFeatureProperties', `${ML}.MLFeatureProperties`),
  plain('editableMlFeatureProperties', `${ML}.EditableMLFeatureProperties`),
  plain('mlPrimaryKeyProperties', `${ML}.MLPrimaryKeyProperties`),
  plain('editableMlPrimaryKeyProperties', `${ML}.EditableMLPrimaryKeyProperties`),
  // Quality and operations.
  plain('assertionInfo', 'com.linkedin.assertion.AssertionInfo'),
  plain('assertionRunEvent', 'com.linkedin.assertion.AssertionRunEvent'),
  plain('assertionActions', 'com.linkedin.assertion.AssertionActions'),
  plain('incidentInfo', 'com.linkedin.incident.IncidentInfo'),
  plain('dataContractProperties', 'com.linkedin.datacontract.DataContractProperties'),
  plain('dataContractStatus', 'com.linkedin.datacontract.DataContractStatus'),
  plain('queryProperties', 'com.linkedin.query.QueryProperties'),
  plain('querySubjects', 'com.linkedin.query.QuerySubjects'),
  plain('queryUsageStatistics', 'com.linkedin.query.QueryUsageStatistics'),
  // Governance.
  plain('roleProperties', 'com.linkedin.role.RoleProperties'),
  plain('actors', 'com.linkedin.role.Actors'),
  plain('ownershipTypeInfo', 'com.linkedin.ownership.OwnershipTypeInfo'),
  plain('businessAttributeInfo', 'com.linkedin.businessattribute.BusinessAttributeInfo'),
  plain('formInfo', 'com.linkedin.form.FormInfo'),
  plain('dynamicFormAssignment', 'com.linkedin.form.DynamicFormAssignment'),
  plain('applicationProperties', 'com.linkedin.application.ApplicationProperties'),
  plain('documentInfo', 'com.linkedin.knowledge.DocumentInfo'),
  plain('erModelRelationshipProperties', 'com.linkedin.ermodelrelation.ERModelRelationshipProperties'),
  plain('editableERModelRelationshipProperties', 'com.linkedin.ermodelrelation.EditableERModelRelationshipProperties'),
  plain('versionSetProperties', `${COMMON}.VersionSetProperties`),
  plain('postInfo', 'com.linkedin.post.PostInfo'),
  plain('platformResourceInfo', 'com.linkedin.platformresource.PlatformResourceInfo'),
  plain('dataPlatformInstanceProperties', 'com.linkedin.dataplatforminstance.DataPlatformInstanceProperties'),
  // DataHub's own system entities (ingestion runs, policies, settings, ...).
  plain('dataHubIngestionSourceInfo', 'com.linkedin.ingestion.DataHubIngestionSourceInfo'),
  plain('dataHubExecutionRequestInput', 'com.linkedin.execution.ExecutionRequestInput'),
  plain('dataHubExecutionRequestSignal', 'com.linkedin.execution.ExecutionRequestSignal'),
  plain('dataHubExecutionRequestResult', 'com.linkedin.execution.ExecutionRequestResult'),
  plain('dataHubSecretValue', 'com.linkedin.secret.DataHubSecretValue'),
  plain('dataHubRoleInfo', 'com.linkedin.policy.DataHubRoleInfo'),
  plain('dataHubRetentionConfig', 'com.linkedin.retention.DataHubRetentionConfig'),
  plain('telemetryClientId', 'com.linkedin.telemetry.TelemetryClientId'),
  plain('dataHubAccessTokenInfo', 'com.linkedin.access.token.DataHubAccessTokenInfo'),
  plain('dataHubUpgradeRequest', 'com.linkedin.upgrade.DataHubUpgradeRequest'),
  plain('dataHubUpgradeResult', 'com.linkedin.upgrade.DataHubUpgradeResult'),
  plain('globalSettingsInfo', 'com.linkedin.settings.global.GlobalSettingsInfo'),
  plain('dataHubStepStateProperties', 'com.linkedin.step.DataHubStepStateProperties'),
  plain('dataHubViewInfo', 'com.linkedin.view.DataHubViewInfo'),
  plain('dataHubPersonaInfo', 'com.linkedin.persona.DataHubPersonaInfo'),
  plain('dataHubConnectionDetails', 'com.linkedin.connection.DataHubConnectionDetails'),
];
