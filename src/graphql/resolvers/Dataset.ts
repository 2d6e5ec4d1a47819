import { keyAspectOf, parseUrn } from '../../domain/urn.js';
import type { DatasetResolvers, FabricType } from '../generated/resolvers-types.js';
import type { TestResultsModel } from '../models.js';
import { structuredPropertiesOf } from './assetFields.js';
import { entityModel, entityTypeOf } from './entityModel.js';

export const Dataset: DatasetResolvers = {
  __resolveReference: async (reference, ctx) => ((await ctx.loaders.exists.load(reference.urn)) ? entityModel(reference.urn) : null),
  type: entityTypeOf,
  exists: (model, _args, ctx) => ctx.loaders.exists.load(model.urn),
  name: (model) => keyAspectOf(parseUrn(model.urn)).name!,
  platform: (model) => entityModel(keyAspectOf(parseUrn(model.urn)).platform!),
  origin: (model) => keyAspectOf(parseUrn(model.urn)).origin as FabricType,
  structuredProperties: structuredPropertiesOf,
  testResults: async (model, _args, ctx) => {
    const aspect = await ctx.loaders.aspect.load({ urn: model.urn, aspect: 'testResults' });
    return aspect ? (aspect.value as TestResultsModel) : null;
  },
};
