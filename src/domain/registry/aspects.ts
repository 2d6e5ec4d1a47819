/**
 * The aspects propgraph knows, each with every fact a layer needs about it: DataHub's
 * record class (Rest.li answers an aspect wrapped in it, and DataHub's client looks the
 * value up under exactly that name), the rules that govern its writes, and the fields
 * the search index takes a display name and a description from. Which entity types
 * carry an aspect is said by the entity types' rows (entityTypes.ts).
 */

/**
 * The rules a write of the aspect follows (domain/writes/): one kind per aspect, chosen
 * from this list by services/aspects/handlers.ts. `object`: stored as given after a
 * shape check.
 */
export type RuleKind = 'structuredProperties' | 'propertyDefinition' | 'propertyStatus' | 'status' | 'testInfo' | 'testResults' | 'object';

/** Fields of the aspect holding a display name or a description, in the order they are tried. */
export interface TextFields {
  readonly displayName?: readonly string[];
  readonly description?: readonly string[];
}

export interface AspectInfo {
  readonly name: string;
  /** DataHub's PDL record class. */
  readonly pdlClass: string;
  readonly rules: RuleKind;
  /** Where the index finds display names and descriptions. */
  readonly text?: TextFields;
  /** Read by the indexer although it holds no text (facts such as showInSearchFilters). */
  readonly indexed?: boolean;
}

const COMMON = 'com.linkedin.common';

function aspect(name: string, pdlClass: string, more: Partial<Omit<AspectInfo, 'name' | 'pdlClass'>> = {}): AspectInfo {
  return { name, pdlClass, rules: 'object', ...more };
}

const named = (displayName: string, description?: string): TextFields => ({ displayName: [displayName], ...(description ? { description: [description] } : {}) });
const described = (description: string): TextFields => ({ description: [description] });

/**
 * The table. Its order matters for text: where two aspects of an entity both hold a
 * description, the later one wins, so editable aspects (a person's edit) come after the
 * ingested ones.
 */
const ASPECTS: readonly AspectInfo[] = [
  aspect('status', `${COMMON}.Status`, { rules: 'status' }),
  aspect('ownership', `${COMMON}.Ownership`),
  aspect('globalTags', `${COMMON}.GlobalTags`),
  aspect('glossaryTerms', `${COMMON}.GlossaryTerms`),
  aspect('institutionalMemory', `${COMMON}.InstitutionalMemory`),
  aspect('browsePathsV2', `${COMMON}.BrowsePathsV2`),
  aspect('subTypes', `${COMMON}.SubTypes`),
  aspect('dataPlatformInstance', `${COMMON}.DataPlatformInstance`),
  aspect('domains', 'com.linkedin.domain.Domains'),
  aspect('container', 'com.linkedin.container.Container'),
  aspect('structuredProperties', 'com.linkedin.structured.StructuredProperties', { rules: 'structuredProperties' }),
  aspect('propertyDefinition', 'com.linkedin.structured.StructuredPropertyDefinition', { rules: 'propertyDefinition', text: named('displayName', 'description') }),
  aspect('structuredPropertySettings', 'com.linkedin.structured.StructuredPropertySettings', { indexed: true }),
  aspect('testInfo', 'com.linkedin.test.TestInfo', { rules: 'testInfo' }),
  aspect('testResults', 'com.linkedin.test.TestResults', { rules: 'testResults' }),
  aspect('datasetProperties', 'com.linkedin.dataset.DatasetProperties', { text: named('name', 'description') }),
  aspect('editableDatasetProperties', 'com.linkedin.dataset.EditableDatasetProperties', { text: described('description') }),
  aspect('upstreamLineage', 'com.linkedin.dataset.UpstreamLineage'),
  aspect('viewProperties', 'com.linkedin.dataset.ViewProperties'),
  aspect('schemaMetadata', 'com.linkedin.schema.SchemaMetadata'),
  aspect('editableSchemaMetadata', 'com.linkedin.schema.EditableSchemaMetadata'),
  aspect('schemafieldInfo', 'com.linkedin.schemafield.SchemaFieldInfo', { text: named('name') }),
  aspect('dataFlowInfo', 'com.linkedin.datajob.DataFlowInfo', { text: named('name', 'description') }),
  aspect('editableDataFlowProperties', 'com.linkedin.datajob.EditableDataFlowProperties'),
  aspect('dataJobInfo', 'com.linkedin.datajob.DataJobInfo', { text: named('name', 'description') }),
  aspect('dataJobInputOutput', 'com.linkedin.datajob.DataJobInputOutput'),
  aspect('editableDataJobProperties', 'com.linkedin.datajob.EditableDataJobProperties'),
  aspect('chartInfo', 'com.linkedin.chart.ChartInfo', { text: named('title', 'description') }),
  aspect('editableChartProperties', 'com.linkedin.chart.EditableChartProperties'),
  aspect('dashboardInfo', 'com.linkedin.dashboard.DashboardInfo', { text: named('title', 'description') }),
  aspect('editableDashboardProperties', 'com.linkedin.dashboard.EditableDashboardProperties'),
  aspect('containerProperties', 'com.linkedin.container.ContainerProperties', { text: named('name', 'description') }),
  aspect('editableContainerProperties', 'com.linkedin.container.EditableContainerProperties'),
  aspect('domainProperties', 'com.linkedin.domain.DomainProperties', { text: named('name', 'description') }),
  aspect('glossaryTermInfo', 'com.linkedin.glossary.GlossaryTermInfo', { text: named('name', 'definition') }),
  aspect('tagProperties', 'com.linkedin.tag.TagProperties', { text: named('name', 'description') }),
  aspect('corpUserInfo', 'com.linkedin.identity.CorpUserInfo', { text: { displayName: ['displayName', 'fullName'] } }),
  aspect('corpUserEditableInfo', 'com.linkedin.identity.CorpUserEditableInfo'),
  aspect('corpGroupInfo', 'com.linkedin.identity.CorpGroupInfo', { text: named('displayName', 'description') }),
  aspect('corpGroupEditableInfo', 'com.linkedin.identity.CorpGroupEditableInfo'),
  aspect('mlModelProperties', 'com.linkedin.ml.metadata.MLModelProperties', { text: named('name', 'description') }),
  aspect('editableMLModelProperties', 'com.linkedin.ml.metadata.EditableMLModelProperties'),
  aspect('dataProductProperties', 'com.linkedin.dataproduct.DataProductProperties', { text: named('name', 'description') }),
  aspect('dataTypeInfo', 'com.linkedin.datatype.DataTypeInfo'),
  aspect('entityTypeInfo', 'com.linkedin.entitytype.EntityTypeInfo'),
  aspect('dataPlatformInfo', 'com.linkedin.dataplatform.DataPlatformInfo'),
];

const byName = new Map(ASPECTS.map((a) => [a.name, a]));

/** Every aspect in the table's order (the order text is taken in). */
export const ALL_ASPECTS: readonly AspectInfo[] = ASPECTS;

export function findAspect(name: string): AspectInfo | undefined {
  return byName.get(name);
}

/** The aspect of a name the entity types' rows use; a name missing from the table is a gap in the registry. */
export function aspectInfo(name: string): AspectInfo {
  const found = byName.get(name);
  if (!found) throw new Error(`the registry has no aspect ${name}`);
  return found;
}
