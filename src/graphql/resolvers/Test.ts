import { NotFoundError } from '../../domain/errors.js';
import type { TestResolvers } from '../generated/resolvers-types.js';
import type { GraphQLContext } from '../context.js';
import type { EntityModel } from '../models.js';
import { versionOf } from './assetFields.js';
import { entityModel, entityTypeOf } from './entityModel.js';

async function view(model: EntityModel, ctx: GraphQLContext) {
  const test = await ctx.loaders.test.load(model.urn);
  if (!test) throw new NotFoundError(`Test ${model.urn} does not exist`);
  return test;
}

export const Test: TestResolvers = {
  __resolveReference: async (reference, ctx) => ((await ctx.loaders.test.load(reference.urn)) ? entityModel(reference.urn) : null),
  type: entityTypeOf,
  name: async (m, _args, ctx) => (await view(m, ctx)).name,
  category: async (m, _args, ctx) => (await view(m, ctx)).category,
  description: async (m, _args, ctx) => (await view(m, ctx)).description ?? null,
  definition: async (m, _args, ctx) => ({ json: (await view(m, ctx)).definition.json }),
  aspectVersion: async (m, _args, ctx) => versionOf((await ctx.loaders.aspect.load({ urn: m.urn, aspect: 'testInfo' }))?.systemMetadata),
};
