/**
 * The aspects stored as given after a shape check (any JSON object), with no rules of
 * their own: a table of simple rows, each DataHub's record class and, where search
 * reads it, its text fields and search facts; then the rest of DataHub's aspects
 * (registry/datahubAspects.ts), which search does not read. An aspect that needs rules,
 * a fact search reads differently or an audit act has a module of its own beside this one.
 */
import { DATAHUB_ASPECTS } from '../../registry/datahubAspects.js';
import { textField, urnField, type KeyFieldInfo } from '../../searchFieldKinds.js';
import { objectAspectRules } from '../../writes/plainAspectRules.js';
import type { AspectModule, FactSpec, TextFields } from '../aspectModule.js';

const COMMON = 'com.linkedin.common';

/**
 * The search fields the table's facts fill (DataHub's field names, what its SDK's
 * filters name), each defined once though several rows fill it (customProperties).
 */
const FIELDS: Readonly<Record<string, KeyFieldInfo>> = {
  typeNames: textField('Sub type'),
  domains: urnField('Domain', 'domain'),
  container: urnField('Container', 'container'),
  owners: urnField('Owner', 'corpuser'),
  tags: urnField('Tag', 'tag'),
  glossaryTerms: urnField('Glossary term', 'glossaryTerm'),
  customProperties: textField('Custom property'),
  /** The containers the entity sits in, from its browse path (DataHub's browsePathV2; F.container matches with CONTAIN). */
  browsePathV2: urnField('Browse path', 'container'),
};

function aspect(name: string, pdlClass: string, more: { text?: TextFields; facts?: readonly FactSpec[] } = {}): AspectModule {
  const fields = (more.facts ?? []).map((f) => [f.field, FIELDS[f.field]!] as const);
  return { name, pdlClass, rules: objectAspectRules(name), ...more, ...(fields.length > 0 ? { searchFields: Object.fromEntries(fields) } : {}) };
}

const named = (displayName: string, description?: string): TextFields => ({ displayName: [displayName], ...(description ? { description: [description] } : {}) });
const described = (description: string): TextFields => ({ description: [description] });
/** DataHub's customProperties map of an asset's properties aspect, searched as `key=value`. */
const customProperties: FactSpec = { field: 'customProperties', path: ['customProperties'], as: 'keyValue' };

/**
 * The table. Its order matters for text: where two aspects of an entity both hold a
 * description, the later one wins, so editable aspects (a person's edit) come after the
 * ingested ones.
 */
const TABLE: readonly AspectModule[] = [
  aspect('ownership', `${COMMON}.Ownership`, { facts: [{ field: 'owners', path: ['owners', '*', 'owner'] }] }),
  aspect('globalTags', `${COMMON}.GlobalTags`, { facts: [{ field: 'tags', path: ['tags', '*', 'tag'] }] }),
  aspect('glossaryTerms', `${COMMON}.GlossaryTerms`, { facts: [{ field: 'glossaryTerms', path: ['terms', '*', 'urn'] }] }),
  aspect('institutionalMemory', `${COMMON}.InstitutionalMemory`),
  aspect('browsePathsV2', `${COMMON}.BrowsePathsV2`, { facts: [{ field: 'browsePathV2', path: ['path', '*', 'urn'] }] }),
  aspect('subTypes', `${COMMON}.SubTypes`, { facts: [{ field: 'typeNames', path: ['typeNames', '*'] }] }),
  aspect('dataPlatformInstance', `${COMMON}.DataPlatformInstance`),
  aspect('domains', 'com.linkedin.domain.Domains', { facts: [{ field: 'domains', path: ['domains', '*'] }] }),
  // The direct container, which is also on the browse path (as DataHub derives browsePathsV2 from containers).
  aspect('container', 'com.linkedin.container.Container', {
    facts: [
      { field: 'container', path: ['container'] },
      { field: 'browsePathV2', path: ['container'] },
    ],
  }),
  aspect('datasetProperties', 'com.linkedin.dataset.DatasetProperties', { text: named('name', 'description'), facts: [customProperties] }),
  aspect('editableDatasetProperties', 'com.linkedin.dataset.EditableDatasetProperties', { text: described('description') }),
  aspect('upstreamLineage', 'com.linkedin.dataset.UpstreamLineage'),
  aspect('viewProperties', 'com.linkedin.dataset.ViewProperties'),
  aspect('schemaMetadata', 'com.linkedin.schema.SchemaMetadata'),
  aspect('editableSchemaMetadata', 'com.linkedin.schema.EditableSchemaMetadata'),
  aspect('schemafieldInfo', 'com.linkedin.schemafield.SchemaFieldInfo', { text: named('name') }),
  aspect('dataFlowInfo', 'com.linkedin.datajob.DataFlowInfo', { text: named('name', 'description'), facts: [customProperties] }),
  aspect('editableDataFlowProperties', 'com.linkedin.datajob.EditableDataFlowProperties'),
  aspect('dataJobInfo', 'com.linkedin.datajob.DataJobInfo', { text: named('name', 'description'), facts: [customProperties] }),
  aspect('dataJobInputOutput', 'com.linkedin.datajob.DataJobInputOutput'),
  aspect('editableDataJobProperties', 'com.linkedin.datajob.EditableDataJobProperties'),
  aspect('chartInfo', 'com.linkedin.chart.ChartInfo', { text: named('title', 'description'), facts: [customProperties] }),
  aspect('editableChartProperties', 'com.linkedin.chart.EditableChartProperties'),
  aspect('dashboardInfo', 'com.linkedin.dashboard.DashboardInfo', { text: named('title', 'description'), facts: [customProperties] }),
  aspect('editableDashboardProperties', 'com.linkedin.dashboard.EditableDashboardProperties'),
  aspect('containerProperties', 'com.linkedin.container.ContainerProperties', { text: named('name', 'description'), facts: [customProperties] }),
  aspect('editableContainerProperties', 'com.linkedin.container.EditableContainerProperties'),
  aspect('domainProperties', 'com.linkedin.domain.DomainProperties', { text: named('name', 'description') }),
  aspect('glossaryTermInfo', 'com.linkedin.glossary.GlossaryTermInfo', { text: named('name', 'definition') }),
  aspect('tagProperties', 'com.linkedin.tag.TagProperties', { text: named('name', 'description') }),
  aspect('corpUserInfo', 'com.linkedin.identity.CorpUserInfo', { text: { displayName: ['displayName', 'fullName'] } }),
  aspect('corpUserEditableInfo', 'com.linkedin.identity.CorpUserEditableInfo'),
  aspect('corpGroupInfo', 'com.linkedin.identity.CorpGroupInfo', { text: named('displayName', 'description') }),
  aspect('corpGroupEditableInfo', 'com.linkedin.identity.CorpGroupEditableInfo'),
  aspect('mlModelProperties', 'com.linkedin.ml.metadata.MLModelProperties', { text: named('name', 'description'), facts: [customProperties] }),
  aspect('editableMLModelProperties', 'com.linkedin.ml.metadata.EditableMLModelProperties'),
  aspect('dataProductProperties', 'com.linkedin.dataproduct.DataProductProperties', { text: named('name', 'description'), facts: [customProperties] }),
  aspect('dataTypeInfo', 'com.linkedin.datatype.DataTypeInfo'),
  aspect('entityTypeInfo', 'com.linkedin.entitytype.EntityTypeInfo'),
  aspect('dataPlatformInfo', 'com.linkedin.dataplatform.DataPlatformInfo'),
];

/** The table's rows in its order (the order text is taken in), then DataHub's aspects stored as given. */
export const STORED_AS_GIVEN: readonly AspectModule[] = [...TABLE, ...DATAHUB_ASPECTS.map(([name, pdlClass]) => aspect(name, pdlClass))];
