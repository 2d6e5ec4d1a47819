import { NotFoundError } from '../../domain/errors.js';
import type { StructuredPropertyEntityResolvers } from '../generated/resolvers-types.js';
import { entityModel, entityTypeOf } from './entityModel.js';

export const StructuredPropertyEntity: StructuredPropertyEntityResolvers = {
  __resolveReference: async (reference, ctx) => ((await ctx.loaders.property.load(reference.urn)) ? entityModel(reference.urn) : null),
  type: entityTypeOf,
  exists: async (model, _args, ctx) => (await ctx.loaders.property.load(model.urn)) !== null,
  definition: async (model, _args, ctx) => {
    const state = await ctx.loaders.property.load(model.urn);
    if (!state) throw new NotFoundError(`Structured property ${model.urn} does not exist`);
    return { urn: model.urn, definition: state.definition };
  },
};
