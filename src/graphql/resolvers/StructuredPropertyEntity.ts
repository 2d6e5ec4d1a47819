import { ASPECT } from '../../domain/aspects/index.js';
import { NotFoundError } from '../../domain/errors.js';
import type { StructuredPropertyEntityResolvers } from '../generated/resolvers-types.js';
import { entityModel, entityTypeOf } from './entityModel.js';
import { versionOf } from './assetFields.js';

export const StructuredPropertyEntity: StructuredPropertyEntityResolvers = {
  __resolveReference: async (reference, ctx) => ((await ctx.loaders.property.load(reference.urn)) ? entityModel(reference.urn) : null),
  type: entityTypeOf,
  exists: async (model, _args, ctx) => (await ctx.loaders.property.load(model.urn)) !== null,
  definition: async (model, _args, ctx) => {
    const state = await ctx.loaders.property.load(model.urn);
    if (!state) throw new NotFoundError(`Structured property ${model.urn} does not exist`);
    return { urn: model.urn, definition: state.definition };
  },
  settings: async (model, _args, ctx) => {
    const aspect = await ctx.loaders.aspect.load({ urn: model.urn, aspect: ASPECT.structuredPropertySettings });
    const stored = (aspect?.value ?? {}) as Record<string, unknown>;
    const flag = (name: string) => stored[name] === true;
    return {
      isHidden: flag('isHidden'),
      showInSearchFilters: flag('showInSearchFilters'),
      showInAssetSummary: flag('showInAssetSummary'),
      showAsAssetBadge: flag('showAsAssetBadge'),
      showInColumnsTable: flag('showInColumnsTable'),
      hideInAssetSummaryWhenEmpty: flag('hideInAssetSummaryWhenEmpty'),
    };
  },
  status: async (model, _args, ctx) => {
    const state = await ctx.loaders.property.load(model.urn);
    return state ? { removed: state.removed } : null;
  },
  valueImpact: (model, _args, ctx) => ctx.services.entities.previewDelete(ctx.caller, model.urn),
  definitionAspectVersion: async (model, _args, ctx) => versionOf((await ctx.loaders.aspect.load({ urn: model.urn, aspect: ASPECT.propertyDefinition }))?.systemMetadata),
  migrating: async (model, _args, ctx) => (await ctx.loaders.property.load(model.urn))?.migrating ?? false,
  definitionHistory: async (model, _args, ctx) =>
    (await ctx.services.properties.history(ctx.caller, model.urn)).map((r) => ({
      revision: r.revision,
      definition: { urn: model.urn, definition: r.definition },
      written: r.written,
    })),
};
