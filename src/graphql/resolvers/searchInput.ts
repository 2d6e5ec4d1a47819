/** GraphQL search inputs to the search service's inputs (entity types, filters, timing). */
import type { AndFilterInput, EntityType, ResolversTypes } from '../generated/resolvers-types.js';
import type { AndFilter, Facet } from '../../services/searchService.js';
import type { GraphQLContext } from '../context.js';
import { entityModel } from './entityModel.js';

export function typesOf(types: readonly EntityType[] | null | undefined): string[] {
  return [...(types ?? [])];
}

/** `value` is FacetFilterInput's deprecated single value: it counts when `values` is absent. */
export function orFiltersOf(orFilters: readonly AndFilterInput[] | null | undefined): AndFilter[] | null {
  if (!orFilters) return null;
  return orFilters.map((group) => ({
    and: (group.and ?? []).map((f) => ({
      field: f.field,
      values: f.values ?? (f.value !== null && f.value !== undefined ? [f.value] : null),
      condition: f.condition ?? null,
      negated: f.negated ?? null,
    })),
  }));
}

/** Runs a search and records what it did in the response's extensions. */
export async function timed<T>(ctx: GraphQLContext, operation: string, types: string[], run: () => Promise<T>): Promise<T> {
  const started = process.hrtime.bigint();
  const result = await run();
  const list = (ctx.extensions.search as unknown[] | undefined) ?? [];
  list.push({ operation, entityTypes: types.length > 0 ? types : 'all searchable', tookMs: Number(process.hrtime.bigint() - started) / 1e6 });
  ctx.extensions.search = list;
  return result;
}

/** A facet as GraphQL's FacetMetadata; a property facet resolves `entity` to its definition. */
export function facetMetadata(facet: Facet): ResolversTypes['FacetMetadata'] {
  return {
    field: facet.field,
    displayName: facet.displayName,
    entity: facet.propertyUrn ? entityModel(facet.propertyUrn) : null,
    aggregations: facet.aggregations.map((a) => ({ value: a.value, count: a.count, description: a.description ?? null })),
  };
}
