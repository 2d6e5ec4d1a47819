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
export type RuleKind = 'structuredProperties' | 'propertyDefinition' | 'propertyStatus' | 'status' | 'testInfo' | 'testResults' | 'policyInfo' | 'object';

import type { KeyedArrays } from '../jsonPatch.js';
import { DATAHUB_ASPECTS } from './datahubAspects.js';

/** Fields of the aspect holding a display name or a description, in the order they are tried. */
export interface TextFields {
  readonly displayName?: readonly string[];
  readonly description?: readonly string[];
}

/**
 * A search field the aspect fills (its name in domain/searchFields.ts's KEY_FIELDS): the
 * value at `path` in the aspect (`*` takes every element of a list), read `as`:
 * - `text` (default): the texts found;
 * - `boolean`: true when the value is true (false when absent, on every entity whose type has the aspect);
 * - `nonEmpty`: true when the path finds anything;
 * - `keyValue`: a map's entries as `key=value` (DataHub's customProperties field);
 * - `dataType` / `entityType`: a type URN read as the type's name;
 * - `cardinality`: SINGLE unless MULTIPLE.
 */
export interface FactSpec {
  readonly field: string;
  readonly path: readonly string[];
  readonly as?: 'text' | 'boolean' | 'nonEmpty' | 'keyValue' | 'dataType' | 'entityType' | 'cardinality';
}

export interface AspectInfo {
  readonly name: string;
  /** DataHub's PDL record class. */
  readonly pdlClass: string;
  readonly rules: RuleKind;
  /** Where the index finds display names and descriptions. */
  readonly text?: TextFields;
  /** The search fields it fills; the indexer reads every aspect with text or facts. */
  readonly facts?: readonly FactSpec[];
  /** Its arrays whose elements a patch addresses by key, as DataHub's aspect templates do. */
  readonly patchKeys?: KeyedArrays;
  /** What a patch of the aspect starts from when it is absent (an empty object otherwise). */
  readonly empty?: unknown;
}

const COMMON = 'com.linkedin.common';

function aspect(name: string, pdlClass: string, more: Partial<Omit<AspectInfo, 'name' | 'pdlClass'>> = {}): AspectInfo {
  return { name, pdlClass, rules: 'object', ...more };
}

const named = (displayName: string, description?: string): TextFields => ({ displayName: [displayName], ...(description ? { description: [description] } : {}) });
const described = (description: string): TextFields => ({ description: [description] });
const flag = (field: string): FactSpec => ({ field, path: [field], as: 'boolean' });
/** DataHub's customProperties map of an asset's properties aspect, searched as `key=value`. */
const customProperties: FactSpec = { field: 'customProperties', path: ['customProperties'], as: 'keyValue' };

/**
 * The table. Its order matters for text: where two aspects of an entity both hold a
 * description, the later one wins, so editable aspects (a person's edit) come after the
 * ingested ones.
 */
const ASPECTS: readonly AspectInfo[] = [
  aspect('status', `${COMMON}.Status`, { rules: 'status' }),
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
  aspect('structuredProperties', 'com.linkedin.structured.StructuredProperties', {
    rules: 'structuredProperties',
    // One entry per property and attribution source, as DataHub's template keys them.
    patchKeys: { properties: { keys: [['propertyUrn'], ['attribution', 'source']] } },
    empty: { properties: [] },
  }),
  aspect('propertyDefinition', 'com.linkedin.structured.StructuredPropertyDefinition', {
    rules: 'propertyDefinition',
    text: named('displayName', 'description'),
    facts: [
      { field: 'qualifiedName', path: ['qualifiedName'] },
      { field: 'valueType', path: ['valueType'], as: 'dataType' },
      { field: 'entityTypes', path: ['entityTypes', '*'], as: 'entityType' },
      { field: 'cardinality', path: ['cardinality'], as: 'cardinality' },
    ],
    patchKeys: { entityTypes: { keys: [] }, allowedPlatforms: { keys: [] }, allowedValues: { keys: [['value', '*']] } },
  }),
  aspect('structuredPropertySettings', 'com.linkedin.structured.StructuredPropertySettings', {
    facts: [flag('isHidden'), flag('showInSearchFilters'), flag('showInAssetSummary'), flag('showInColumnsTable'), flag('showAsAssetBadge')],
  }),
  aspect('testInfo', 'com.linkedin.test.TestInfo', { rules: 'testInfo' }),
  aspect('testResults', 'com.linkedin.test.TestResults', {
    rules: 'testResults',
    facts: [
      { field: 'passingTests', path: ['passing', '*', 'test'] },
      { field: 'failingTests', path: ['failing', '*', 'test'] },
      { field: 'hasPassingTests', path: ['passing', '*'], as: 'nonEmpty' },
      { field: 'hasFailingTests', path: ['failing', '*'], as: 'nonEmpty' },
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
  // A policy, read strictly (domain/policies/policy.ts): what the policies grant is decided from it.
  aspect('dataHubPolicyInfo', 'com.linkedin.policy.DataHubPolicyInfo', { rules: 'policyInfo', text: named('displayName', 'description') }),
];

/** Every aspect in the table's order (the order text is taken in), then the ones stored as given. */
export const ALL_ASPECTS: readonly AspectInfo[] = [...ASPECTS, ...DATAHUB_ASPECTS.map(([name, pdlClass]) => aspect(name, pdlClass))];

const byName = new Map(ALL_ASPECTS.map((a) => [a.name, a]));

export function findAspect(name: string): AspectInfo | undefined {
  return byName.get(name);
}

/** The aspect of a name the entity types' rows use; a name missing from the table is a gap in the registry. */
export function aspectInfo(name: string): AspectInfo {
  const found = byName.get(name);
  if (!found) throw new Error(`the registry has no aspect ${name}`);
  return found;
}
