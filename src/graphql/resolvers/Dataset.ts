import { keyAspectOf, parseUrn } from '../../domain/urn.js';
import type { DatasetResolvers, FabricType } from '../generated/resolvers-types.js';
import type { SchemaFieldModel } from '../models.js';
import { structuredPropertiesOf, testResultsOf } from './assetFields.js';
import { aspectFields, text } from './displayAspects.js';
import { entityModel, entityTypeOf } from './entityModel.js';

export const Dataset: DatasetResolvers = {
  __resolveReference: async (reference, ctx) => ((await ctx.loaders.exists.load(reference.urn)) ? entityModel(reference.urn) : null),
  type: entityTypeOf,
  exists: (model, _args, ctx) => ctx.loaders.exists.load(model.urn),
  name: (model) => keyAspectOf(parseUrn(model.urn)).name!,
  properties: async (model, _args, ctx) => {
    const stored = await aspectFields(model, 'datasetProperties', ctx);
    return { name: text(stored?.name) ?? keyAspectOf(parseUrn(model.urn)).name!, qualifiedName: text(stored?.qualifiedName), description: text(stored?.description) };
  },
  platform: (model) => entityModel(keyAspectOf(parseUrn(model.urn)).platform!),
  origin: (model) => keyAspectOf(parseUrn(model.urn)).origin as FabricType,
  structuredProperties: structuredPropertiesOf,
  testResults: testResultsOf,
  schemaMetadata: async (model, _args, ctx) => {
    const aspect = await ctx.loaders.aspect.load({ urn: model.urn, aspect: 'schemaMetadata' });
    if (!aspect) return null;
    const fields = (aspect.value as { fields?: unknown }).fields;
    return { fields: Array.isArray(fields) ? fields.flatMap((f) => schemaFieldOf(model.urn, f)) : [] };
  },
};

/** A schemaMetadata field as stored (shape-checked only): fields without a path are skipped. */
function schemaFieldOf(datasetUrn: string, raw: unknown): SchemaFieldModel[] {
  if (!raw || typeof raw !== 'object') return [];
  const f = raw as Record<string, unknown>;
  if (typeof f.fieldPath !== 'string' || f.fieldPath === '') return [];
  const text = (v: unknown) => (typeof v === 'string' ? v : null);
  return [{ datasetUrn, fieldPath: f.fieldPath, nativeDataType: text(f.nativeDataType), description: text(f.description) }];
}
