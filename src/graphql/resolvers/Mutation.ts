import { AlreadyExistsError, ASPECT_EXISTS } from '../../domain/errors.js';
import type { AccessTokenDuration, MutationResolvers } from '../generated/resolvers-types.js';
import { entityModel } from './entityModel.js';
import { atInputPaths, checkUpsertInput } from './valueInput.js';

const HOUR = 3_600_000;
const DURATIONS: Record<AccessTokenDuration, number | null> = {
  ONE_HOUR: HOUR,
  ONE_DAY: 24 * HOUR,
  ONE_WEEK: 7 * 24 * HOUR,
  ONE_MONTH: 30 * 24 * HOUR,
  THREE_MONTHS: 90 * 24 * HOUR,
  SIX_MONTHS: 180 * 24 * HOUR,
  ONE_YEAR: 365 * 24 * HOUR,
  NO_EXPIRY: null,
};

export const Mutation: MutationResolvers = {
  createStructuredProperty: async (_root, { input }, ctx) => {
    const urn = await ctx.services.properties.create(ctx.caller, input).catch((err: unknown) => {
      if (err instanceof AlreadyExistsError && err.message === ASPECT_EXISTS) {
        throw new AlreadyExistsError(`${ASPECT_EXISTS} The structured property exists: change it with updateStructuredProperty (or delete it first).`);
      }
      throw err;
    });
    return entityModel(urn);
  },
  updateStructuredProperty: async (_root, { input }, ctx) => entityModel(await ctx.services.properties.update(ctx.caller, input)),
  deleteStructuredProperty: (_root, { input }, ctx) => ctx.services.properties.delete(ctx.caller, input.urn),
  replaceStructuredPropertyDefinition: async (_root, { input }, ctx) => entityModel(await ctx.services.properties.replace(ctx.caller, input)),
  softDeleteStructuredProperty: async (_root, { input }, ctx) => entityModel(await ctx.services.properties.softDelete(ctx.caller, input.urn)),
  restoreStructuredProperty: async (_root, { input }, ctx) => entityModel(await ctx.services.properties.restore(ctx.caller, input.urn)),
  upsertStructuredProperties: (_root, { input }, ctx) => {
    const params = input.structuredPropertyInputParams;
    checkUpsertInput(params);
    const urns = params.map((p) => p.structuredPropertyUrn);
    const field = (_i: number, err: { field?: string }) => (err.field === 'values' ? '.values' : '.structuredPropertyUrn');
    return atInputPaths(urns, 'structuredPropertyInputParams', field, () => ctx.services.values.upsert(ctx.caller, input.assetUrn, params));
  },
  removeStructuredProperties: (_root, { input }, ctx) =>
    atInputPaths(input.structuredPropertyUrns, 'structuredPropertyUrns', () => '', () => ctx.services.values.remove(ctx.caller, input.assetUrn, input.structuredPropertyUrns)),
  createTest: (_root, { input }, ctx) =>
    ctx.services.tests.createTest(ctx.caller, { ...input, definition: { json: input.definition.json ?? '' } }),
  updateTest: (_root, { urn, input }, ctx) =>
    ctx.services.tests.updateTest(ctx.caller, urn, { ...input, definition: { json: input.definition.json ?? '' } }),
  deleteTest: (_root, { urn }, ctx) => ctx.services.tests.deleteTest(ctx.caller, urn),
  createAccessToken: async (_root, { input }, ctx) => {
    const lifetime = DURATIONS[input.duration ?? 'NO_EXPIRY'];
    const created = await ctx.services.tokens.create(ctx.caller, {
      name: input.name,
      scope: input.scope.toLowerCase(),
      description: input.description ?? null,
      expiresAt: lifetime === null ? null : Date.now() + lifetime,
      type: input.type ?? null,
    });
    return { accessToken: created.token, metadata: created.metadata };
  },
  revokeAccessToken: (_root, { tokenId }, ctx) => ctx.services.tokens.revoke(ctx.caller, tokenId),
  evaluateTests: (_root, { input }, ctx) =>
    ctx.services.tests.evaluate(ctx.caller, { urn: input.urn, push: input.push ?? false, ...(input.testUrns ? { testUrns: input.testUrns } : {}) }),
};
