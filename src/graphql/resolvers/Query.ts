import { PAGE_LIMITS, pageSize } from '../../domain/limits.js';
import { NotFoundError } from '../../domain/errors.js';
import { defaultSearchTypes, ENTITY } from '../../domain/registry/entityTypes.js';
import type { EntityType, QueryResolvers } from '../generated/resolvers-types.js';
import { entityModel, hitModel } from './entityModel.js';
import { allFiltersOf, facetMetadata, orFiltersOf, scopedByView, timed, typesOf } from './searchInput.js';
import { suggestionsOf } from './suggestions.js';
import { migrationOfInput } from './migrationInput.js';

export const Query: QueryResolvers = {
  dataset: async (_root, { urn }, ctx) => {
    const model = entityModel(urn);
    if (model.entityType !== ENTITY.dataset) return null;
    if (!(await ctx.loaders.exists.load(urn))) return null;
    await ctx.services.access.requireRead(ctx.caller, [urn]);
    return model;
  },
  structuredProperty: async (_root, { urn }, ctx) => {
    const model = entityModel(urn);
    if (model.entityType !== ENTITY.structuredProperty) return null;
    return (await ctx.loaders.property.load(urn)) ? model : null;
  },
  scrollAcrossEntities: async (_root, { input }, ctx) => {
    const { types, orFilters } = await scopedByView(ctx, input.viewUrn, { types: typesOf(input.types), orFilters: orFiltersOf(input.orFilters) });
    const result = await timed(ctx, 'scrollAcrossEntities', types, () =>
      ctx.services.search.scroll(ctx.caller, {
        types,
        query: input.query,
        count: input.count ?? null,
        scrollId: input.scrollId ?? null,
        orFilters,
        includeSoftDeleted: input.searchFlags?.includeSoftDeleted ?? null,
        sort: (input.sortInput?.sortCriteria ?? []).map((c) => ({ field: c.field, sortOrder: c.sortOrder })),
      }),
    );
    return {
      nextScrollId: result.nextScrollId,
      count: result.count,
      total: result.total,
      searchResults: result.entities.map((e) => ({ entity: hitModel(e), extraProperties: [], matchedFields: [] })),
      facets: null,
    };
  },
  aggregateAcrossEntities: async (_root, { input }, ctx) => {
    const { types, orFilters } = await scopedByView(ctx, input.viewUrn, { types: typesOf(input.types), orFilters: orFiltersOf(input.orFilters) });
    const result = await timed(ctx, 'aggregateAcrossEntities', types, () =>
      ctx.services.search.aggregate(ctx.caller, {
        types,
        query: input.query ?? '*',
        orFilters,
        facets: (input.facets ?? []).filter((f): f is string => typeof f === 'string'),
        maxAggValues: input.searchFlags?.maxAggValues ?? null,
        includeSoftDeleted: input.searchFlags?.includeSoftDeleted ?? null,
      }),
    );
    return { facets: result.facets.map(facetMetadata) };
  },
  searchAcrossEntities: async (_root, { input }, ctx) => {
    const { types, orFilters } = await scopedByView(ctx, input.viewUrn, { types: typesOf(input.types), orFilters: allFiltersOf(input.filters, input.orFilters) });
    const flags = input.searchFlags;
    const result = await timed(ctx, 'searchAcrossEntities', types, () =>
      ctx.services.search.search(ctx.caller, {
        types,
        query: input.query,
        start: input.start ?? null,
        count: input.count ?? null,
        orFilters,
        includeSoftDeleted: flags?.includeSoftDeleted ?? null,
        sort: (input.sortInput?.sortCriteria ?? []).map((c) => ({ field: c.field, sortOrder: c.sortOrder })),
        // DataHub answers facets unless skipAggregates; property facets when includeStructuredPropertyFacets.
        facets: flags?.skipAggregates ? 'none' : flags?.includeStructuredPropertyFacets ? 'all' : 'keys',
        suggestions: flags?.getSuggestions ?? false,
      }),
    );
    return {
      start: result.start,
      count: result.count,
      total: result.total,
      searchResults: result.entities.map((e) => ({ entity: hitModel(e), extraProperties: [], matchedFields: [] })),
      facets: result.facets?.map(facetMetadata) ?? null,
      suggestions: result.suggestions.map((s) => ({ text: s.text, frequency: s.frequency, score: null })),
    };
  },
  autoComplete: async (_root, { input }, ctx) => {
    const types = input.type ? [input.type] : [];
    const hits = await suggestionsOf(ctx, types, input.query, input.limit, allFiltersOf(input.filters?.filter((f) => f !== null) ?? null, input.orFilters));
    return { query: input.query, suggestions: hits.map((h) => h.suggestion), entities: hits.map((h) => h.entity) };
  },
  autoCompleteForMultiple: async (_root, { input }, ctx) => {
    const scoped = await scopedByView(ctx, input.viewUrn, { types: typesOf(input.types), orFilters: allFiltersOf(input.filters?.filter((f) => f !== null) ?? null, input.orFilters) });
    const types = scoped.types.length > 0 ? (scoped.types as EntityType[]) : defaultSearchTypes().map((t) => t.graphql as EntityType);
    const filters = scoped.orFilters;
    const groups = await Promise.all(types.map(async (type) => ({ type, hits: await suggestionsOf(ctx, [type], input.query, input.limit, filters) })));
    return {
      query: input.query,
      suggestions: groups.filter((g) => g.hits.length > 0).map((g) => ({ type: g.type, suggestions: g.hits.map((h) => h.suggestion), entities: g.hits.map((h) => h.entity) })),
    };
  },
  test: async (_root, { urn }, ctx) => {
    const model = entityModel(urn);
    if (model.entityType !== ENTITY.test) return null;
    return (await ctx.loaders.test.load(urn)) ? model : null;
  },
  listTests: async (_root, { input }, ctx) => {
    const result = await ctx.services.tests.listTests(ctx.caller, input);
    for (const t of result.tests) ctx.loaders.test.prime(t.urn, t);
    return { start: result.start, count: result.count, total: result.total, tests: result.tests.map((t) => entityModel(t.urn)) };
  },
  validateTest: (_root, { input }, ctx) => {
    const result = ctx.services.tests.validateTest(input.json ?? '');
    return { valid: result.valid, error: result.error ?? null };
  },
  listAccessTokens: async (_root, { input }, ctx) => {
    const all = await ctx.services.tokens.list(ctx.caller);
    const start = Math.max(0, input?.start ?? 0);
    const count = pageSize(input?.count, PAGE_LIMITS.tokensCount);
    const tokens = all.slice(start, start + count);
    return { start, count: tokens.length, total: all.length, tokens };
  },
  me: (_root, _args, ctx) => ctx.caller,
  job: async (_root, { id }, ctx) => {
    try {
      return await ctx.services.jobs.get(ctx.caller, id);
    } catch (err) {
      if (err instanceof NotFoundError) return null;
      throw err;
    }
  },
  listJobs: async (_root, { input }, ctx) => {
    const jobs = await ctx.services.jobs.list(ctx.caller, {
      ...(input?.status ? { status: input.status.toLowerCase() } : {}),
      ...(input?.kind ? { kind: input.kind } : {}),
      ...(input?.propertyUrn ? { propertyUrn: input.propertyUrn } : {}),
      count: input?.count ?? null,
    });
    return { count: jobs.length, jobs };
  },
  testReport: (_root, { input }, ctx) => ctx.services.compliance.report(ctx.caller, { urn: input?.urn ?? null, days: input?.days ?? null }),
  explainTest: (_root, { input }, ctx) => ctx.services.compliance.explain(ctx.caller, { test: input.test, entity: input.urn }),
  previewStructuredPropertyDefinition: async (_root, { input }, ctx) => {
    const migration = migrationOfInput(input.migration);
    const preview = await ctx.services.properties.previewReplace(ctx.caller, { ...input, migration: migration ?? null });
    return {
      impact: preview.impact,
      breaking: [...preview.breaking],
      migration: preview.migration && {
        holders: preview.migration.holders,
        changed: preview.migration.changed,
        rules: preview.migration.rules.map((r) => ({ ...r, examples: r.examples.map((e) => ({ urn: e.urn, before: [...e.before], after: e.after ? [...e.after] : null })) })),
        refusedValues: preview.migration.refused.values,
        refusedEntities: preview.migration.refused.entities,
      },
    };
  },
  valueHistory: async (_root, { input }, ctx) => {
    const page = await ctx.services.history.valueHistory(ctx.caller, { urn: input.urn ?? null, property: input.propertyUrn ?? null, count: input.count ?? null, scrollId: input.scrollId ?? null });
    return { nextScrollId: page.scrollId, entries: page.entries, events: page.events };
  },
  entity: async (_root, { urn }, ctx) => {
    const model = entityModel(urn);
    // Data types and entity types are built in: they exist without being stored.
    if (model.entityType.builtIn) return model;
    if (!(await ctx.loaders.exists.load(urn))) return null;
    await ctx.services.access.requireRead(ctx.caller, [urn]);
    return model;
  },
};
