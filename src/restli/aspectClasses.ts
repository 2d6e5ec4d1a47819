/**
 * DataHub's PDL record class of each aspect propgraph knows. Rest.li's
 * `GET /aspects/{urn}` answers an aspect wrapped in its class name
 * (`{"aspect": {"com.linkedin.common.Status": {...}}}`), and DataHub's client looks the
 * value up under exactly that name. Key aspects use DataHub's spelling
 * (`corpUserKey`), which Rest.li clients send for propgraph's `corpuserKey`.
 */
import type { EntityTypeInfo } from '../domain/entityTypes.js';
import { NotFoundError } from '../domain/errors.js';

const COMMON = 'com.linkedin.common';
const KEY = 'com.linkedin.metadata.key';

const ASPECT_CLASSES: Readonly<Record<string, string>> = {
  status: `${COMMON}.Status`,
  ownership: `${COMMON}.Ownership`,
  globalTags: `${COMMON}.GlobalTags`,
  glossaryTerms: `${COMMON}.GlossaryTerms`,
  institutionalMemory: `${COMMON}.InstitutionalMemory`,
  browsePathsV2: `${COMMON}.BrowsePathsV2`,
  subTypes: `${COMMON}.SubTypes`,
  dataPlatformInstance: `${COMMON}.DataPlatformInstance`,
  domains: 'com.linkedin.domain.Domains',
  container: 'com.linkedin.container.Container',
  structuredProperties: 'com.linkedin.structured.StructuredProperties',
  propertyDefinition: 'com.linkedin.structured.StructuredPropertyDefinition',
  structuredPropertySettings: 'com.linkedin.structured.StructuredPropertySettings',
  testInfo: 'com.linkedin.test.TestInfo',
  testResults: 'com.linkedin.test.TestResults',
  datasetProperties: 'com.linkedin.dataset.DatasetProperties',
  editableDatasetProperties: 'com.linkedin.dataset.EditableDatasetProperties',
  upstreamLineage: 'com.linkedin.dataset.UpstreamLineage',
  viewProperties: 'com.linkedin.dataset.ViewProperties',
  schemaMetadata: 'com.linkedin.schema.SchemaMetadata',
  editableSchemaMetadata: 'com.linkedin.schema.EditableSchemaMetadata',
  schemafieldInfo: 'com.linkedin.schemafield.SchemaFieldInfo',
  dataFlowInfo: 'com.linkedin.datajob.DataFlowInfo',
  editableDataFlowProperties: 'com.linkedin.datajob.EditableDataFlowProperties',
  dataJobInfo: 'com.linkedin.datajob.DataJobInfo',
  dataJobInputOutput: 'com.linkedin.datajob.DataJobInputOutput',
  editableDataJobProperties: 'com.linkedin.datajob.EditableDataJobProperties',
  chartInfo: 'com.linkedin.chart.ChartInfo',
  editableChartProperties: 'com.linkedin.chart.EditableChartProperties',
  dashboardInfo: 'com.linkedin.dashboard.DashboardInfo',
  editableDashboardProperties: 'com.linkedin.dashboard.EditableDashboardProperties',
  containerProperties: 'com.linkedin.container.ContainerProperties',
  editableContainerProperties: 'com.linkedin.container.EditableContainerProperties',
  domainProperties: 'com.linkedin.domain.DomainProperties',
  glossaryTermInfo: 'com.linkedin.glossary.GlossaryTermInfo',
  tagProperties: 'com.linkedin.tag.TagProperties',
  corpUserInfo: 'com.linkedin.identity.CorpUserInfo',
  corpUserEditableInfo: 'com.linkedin.identity.CorpUserEditableInfo',
  corpGroupInfo: 'com.linkedin.identity.CorpGroupInfo',
  corpGroupEditableInfo: 'com.linkedin.identity.CorpGroupEditableInfo',
  mlModelProperties: 'com.linkedin.ml.metadata.MLModelProperties',
  editableMLModelProperties: 'com.linkedin.ml.metadata.EditableMLModelProperties',
  dataProductProperties: 'com.linkedin.dataproduct.DataProductProperties',
  dataTypeInfo: 'com.linkedin.datatype.DataTypeInfo',
  entityTypeInfo: 'com.linkedin.entitytype.EntityTypeInfo',
  dataPlatformInfo: 'com.linkedin.dataplatform.DataPlatformInfo',
  // Key aspects: DataHub keeps the structured-property key beside its other records.
  structuredPropertyKey: 'com.linkedin.structured.StructuredPropertyKey',
  corpuserKey: `${KEY}.CorpUserKey`,
};

/** DataHub's spelling of a key aspect where it differs from propgraph's (`corpUserKey`). */
const KEY_ALIASES: Readonly<Record<string, string>> = { corpUserKey: 'corpuserKey' };

/** propgraph's name of an aspect a Rest.li client names (`corpUserKey` → `corpuserKey`). */
export function aspectNamed(type: EntityTypeInfo, name: string): string {
  const alias = KEY_ALIASES[name];
  return alias === type.keyAspect ? alias : name;
}

/** `datasetKey` → `com.linkedin.metadata.key.DatasetKey`; every other key aspect follows that pattern. */
export function aspectClassOf(type: EntityTypeInfo, aspect: string): string {
  const known = ASPECT_CLASSES[aspect];
  if (known) return known;
  if (aspect === type.keyAspect) return `${KEY}.${aspect.charAt(0).toUpperCase()}${aspect.slice(1)}`;
  // Every aspect an entity type allows has a class above; this is a gap in the table, said plainly.
  throw new NotFoundError(`Aspect ${aspect} has no DataHub record class known to this server, so Rest.li cannot answer it; read it through /openapi/v3`);
}
