import type { MutationResolvers } from '../generated/resolvers-types.js';
import { entityModel } from './entityModel.js';

export const Mutation: MutationResolvers = {
  createStructuredProperty: async (_root, { input }, ctx) => entityModel(await ctx.services.properties.create(ctx.caller, input)),
  updateStructuredProperty: async (_root, { input }, ctx) => entityModel(await ctx.services.properties.update(ctx.caller, input)),
  deleteStructuredProperty: (_root, { input }, ctx) => ctx.services.properties.delete(ctx.caller, input.urn),
  upsertStructuredProperties: (_root, { input }, ctx) =>
    ctx.services.values.upsert(ctx.caller, input.assetUrn, input.structuredPropertyInputParams),
  removeStructuredProperties: (_root, { input }, ctx) =>
    ctx.services.values.remove(ctx.caller, input.assetUrn, input.structuredPropertyUrns),
  createTest: (_root, { input }, ctx) =>
    ctx.services.tests.createTest(ctx.caller, { ...input, definition: { json: input.definition.json ?? '' } }),
  updateTest: (_root, { urn, input }, ctx) =>
    ctx.services.tests.updateTest(ctx.caller, urn, { ...input, definition: { json: input.definition.json ?? '' } }),
  deleteTest: (_root, { urn }, ctx) => ctx.services.tests.deleteTest(ctx.caller, urn),
};
