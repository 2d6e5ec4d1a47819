import { keyAspectOf, parseUrn } from '../../domain/urn.js';
import type { DatasetResolvers, FabricType } from '../generated/resolvers-types.js';
import type { GraphQLContext } from '../context.js';
import type { EntityModel, SchemaFieldModel, SchemaMetadataModel } from '../models.js';
import { structuredPropertiesOf, testResultsOf } from './assetFields.js';
import { asset } from './datahubEntities.js';
import { auditStampOf, customPropertiesOf } from './datahubAspects.js';
import { aspectFields, text } from './displayAspects.js';
import { entityModel, entityTypeOf } from './entityModel.js';

const nameOf = (model: EntityModel) => keyAspectOf(parseUrn(model.urn)).name!;

/**
 * A dataset, with the fields DataHub's web app reads of one (docs/datahub-compatibility.md
 * says which are read from aspects and which are null because propgraph keeps no such data:
 * lineage, usage, profiles, operations, siblings, incidents, assertions).
 */
export const Dataset: DatasetResolvers = {
  ...(asset(['ownership', 'globalTags', 'glossaryTerms', 'deprecation', 'institutionalMemory', 'subTypes', 'status', 'browsePathV2', 'domain', 'container', 'parentContainers', 'dataPlatformInstance', 'privileges', 'relationships']) as Partial<DatasetResolvers>),
  __resolveReference: async (reference, ctx) => ((await ctx.loaders.exists.load(reference.urn)) ? entityModel(reference.urn) : null),
  type: entityTypeOf,
  exists: (model, _args, ctx) => ctx.loaders.exists.load(model.urn),
  name: nameOf,
  properties: async (model, _args, ctx) => {
    const stored = await aspectFields(model, 'datasetProperties', ctx);
    return {
      name: text(stored?.name) ?? nameOf(model),
      qualifiedName: text(stored?.qualifiedName),
      description: text(stored?.description),
      externalUrl: text(stored?.externalUrl),
      customProperties: customPropertiesOf(stored, model.urn),
      // DataHub's mapper answers time 0 when the source said nothing of its last change.
      lastModified: auditStampOf(stored?.lastModified),
    };
  },
  editableProperties: async (model, _args, ctx) => {
    const stored = await aspectFields(model, 'editableDatasetProperties', ctx);
    return stored ? { description: text(stored.description), name: text(stored.name) } : null;
  },
  description: async (model, _args, ctx) => text((await aspectFields(model, 'editableDatasetProperties', ctx))?.description) ?? text((await aspectFields(model, 'datasetProperties', ctx))?.description),
  editableSchemaMetadata: async (model, _args, ctx) => {
    const stored = await aspectFields(model, 'editableSchemaMetadata', ctx);
    if (!stored) return null;
    const infos = Array.isArray(stored.editableSchemaFieldInfo) ? (stored.editableSchemaFieldInfo as Array<Record<string, unknown>>) : [];
    return { editableSchemaFieldInfo: infos.flatMap((f) => (typeof f?.fieldPath === 'string' ? [{ fieldPath: f.fieldPath, description: text(f.description), globalTags: null, glossaryTerms: null }] : [])) };
  },
  platform: (model) => entityModel(keyAspectOf(parseUrn(model.urn)).platform!),
  origin: (model) => keyAspectOf(parseUrn(model.urn)).origin as FabricType,
  structuredProperties: structuredPropertiesOf,
  testResults: testResultsOf,
  schemaMetadata: async (model, args, ctx) => {
    // propgraph keeps the latest schema only; DataHub's version 0 is the latest.
    if (args.version !== undefined && args.version !== null && args.version !== 0) return null;
    return schemaMetadataOf(model.urn, ctx);
  },
  // What DataHub computes from data propgraph does not hold: none, or an empty list where the app reads a list.
  datasetProfiles: () => [],
  operations: () => [],
  health: () => [],
  siblings: () => null,
  siblingsSearch: () => null,
  statsSummary: () => null,
  usageStats: () => null,
  access: () => null,
  lineage: () => null,
  aspects: () => [],
  forms: () => null,
};

/** The schemaMetadata aspect as DataHub's SchemaMetadata; null when none is stored. */
export async function schemaMetadataOf(datasetUrn: string, ctx: GraphQLContext): Promise<SchemaMetadataModel | null> {
  const aspect = await ctx.loaders.aspect.load({ urn: datasetUrn, aspect: 'schemaMetadata' });
  if (!aspect || !aspect.value || typeof aspect.value !== 'object') return null;
  const stored = aspect.value as Record<string, unknown>;
  const fields = stored.fields;
  return { datasetUrn, stored, fields: Array.isArray(fields) ? fields.flatMap((f) => schemaFieldOf(datasetUrn, f)) : [] };
}

/** A schemaMetadata field as stored (shape-checked only): fields without a path are skipped. */
function schemaFieldOf(datasetUrn: string, raw: unknown): SchemaFieldModel[] {
  if (!raw || typeof raw !== 'object') return [];
  const f = raw as Record<string, unknown>;
  if (typeof f.fieldPath !== 'string' || f.fieldPath === '') return [];
  const text = (v: unknown) => (typeof v === 'string' ? v : null);
  return [{ datasetUrn, fieldPath: f.fieldPath, nativeDataType: text(f.nativeDataType), description: text(f.description), stored: f }];
}
