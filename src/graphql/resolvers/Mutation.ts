import { AspectExistsError, ASPECT_EXISTS } from '../../domain/errors.js';
import type { AccessTokenDuration, MutationResolvers } from '../generated/resolvers-types.js';
import { typedValueOfInput } from '../../services/propertyService.js';
import { entityModel } from './entityModel.js';
import { atInputPaths, checkUpsertInput } from './valueInput.js';
import { migrationOfInput } from './migrationInput.js';
import { orFiltersOf } from './searchInput.js';

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
    const written = await ctx.services.properties.create(ctx.caller, input).catch((err: unknown) => {
      if (err instanceof AspectExistsError) {
        throw new AspectExistsError(`${ASPECT_EXISTS} The structured property exists: change it with updateStructuredProperty (or delete it first).`);
      }
      throw err;
    });
    return entityModel(ctx.receipts.resultOf(written));
  },
  updateStructuredProperty: async (_root, { input }, ctx) => entityModel(ctx.receipts.resultOf(await ctx.services.properties.update(ctx.caller, input))),
  deleteStructuredProperty: async (_root, { input }, ctx) => ctx.receipts.resultOf(await ctx.services.properties.delete(ctx.caller, input.urn)),
  replaceStructuredPropertyDefinition: async (_root, { input }, ctx) => {
    const migration = migrationOfInput(input.migration);
    return entityModel(ctx.receipts.resultOf(await ctx.services.properties.replace(ctx.caller, { ...input, migration: migration ?? null })));
  },
  softDeleteStructuredProperty: async (_root, { input }, ctx) => entityModel(ctx.receipts.resultOf(await ctx.services.properties.softDelete(ctx.caller, input.urn))),
  restoreStructuredProperty: async (_root, { input }, ctx) => entityModel(ctx.receipts.resultOf(await ctx.services.properties.restore(ctx.caller, input.urn))),
  upsertStructuredProperties: async (_root, { input }, ctx) => {
    const params = input.structuredPropertyInputParams;
    checkUpsertInput(params);
    const urns = params.map((p) => p.structuredPropertyUrn);
    const field = (_i: number, err: { field?: string }) => (err.field === 'values' ? '.values' : '.structuredPropertyUrn');
    return ctx.receipts.resultOf(await atInputPaths(urns, 'structuredPropertyInputParams', field, () => ctx.services.values.upsert(ctx.caller, input.assetUrn, params, { expectedVersion: input.expectedVersion ?? null })));
  },
  removeStructuredProperties: async (_root, { input }, ctx) =>
    ctx.receipts.resultOf(
      await atInputPaths(input.structuredPropertyUrns, 'structuredPropertyUrns', () => '', () => ctx.services.values.remove(ctx.caller, input.assetUrn, input.structuredPropertyUrns, { expectedVersion: input.expectedVersion ?? null })),
    ),
  createTest: async (_root, { input }, ctx) =>
    ctx.receipts.resultOf(await ctx.services.tests.createTest(ctx.caller, { ...input, definition: { json: input.definition.json ?? '' } })),
  updateTest: async (_root, { urn, input: { expectedVersion, ...input } }, ctx) =>
    ctx.receipts.resultOf(await ctx.services.tests.updateTest(ctx.caller, urn, { ...input, definition: { json: input.definition.json ?? '' } }, { expectedVersion: expectedVersion ?? null })),
  deleteTest: async (_root, { urn }, ctx) => ctx.receipts.resultOf(await ctx.services.tests.deleteTest(ctx.caller, urn)),
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
  importStructuredPropertyValues: async (_root, { input }, ctx) =>
    ctx.receipts.resultOf(
      await ctx.services.valueImports.importValues(ctx.caller, {
        columns: input.columns,
        rows: input.rows.map((r, i) => ({ line: r.line ?? i + 1, urn: r.urn, cells: r.cells })),
        dryRun: input.dryRun ?? false,
      }),
    ),
  bulkEditStructuredProperties: (_root, { input }, ctx) =>
    ctx.services.bulkEdits.edit(ctx.caller, {
      query: input.query ?? null,
      orFilters: orFiltersOf(input.orFilters),
      types: input.types ?? null,
      urns: input.urns ?? null,
      property: input.structuredPropertyUrn,
      operation: input.operation,
      values: (input.values ?? []).map((v, i) => typedValueOfInput(v, `values[${i}]`)),
      dryRun: input.dryRun ?? false,
    }),
  evaluateTests: async (_root, { input }, ctx) =>
    ctx.receipts.resultOf(await ctx.services.tests.evaluate(ctx.caller, { urn: input.urn, push: input.push ?? false, ...(input.testUrns ? { testUrns: input.testUrns } : {}) })),
  runTests: async (_root, { input }, ctx) => {
    const { jobId } = await ctx.services.compliance.run(ctx.caller, { testUrns: input?.testUrns ?? null, query: input?.query ?? null, types: input?.types ?? null });
    return ctx.services.jobs.get(ctx.caller, jobId);
  },
};
