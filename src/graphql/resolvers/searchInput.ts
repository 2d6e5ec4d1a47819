/** GraphQL search inputs to the search service's inputs (entity types, filters, timing). */
import { ValidationError } from '../../domain/errors.js';
import { quoteInput } from '../../domain/inputLimits.js';
import { scopeByView } from '../../domain/savedView.js';
import { tryParseUrn } from '../../domain/urn.js';
import type { AndFilterInput, EntityType, FacetFilterInput, ResolversTypes } from '../generated/resolvers-types.js';
import type { AndFilter, Explained, Facet } from '../../services/searchService.js';
import type { FilterCondition } from '../../domain/searchFilter.js';
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
      // DataHub's conditions beyond propgraph's (ANCESTORS_INCL, IEQUAL, ...) reach the domain,
      // which refuses them naming the ones it takes (domain/searchFilter.ts).
      condition: (f.condition ?? null) as FilterCondition | null,
      negated: f.negated ?? null,
    })),
  }));
}

/** Runs a search and records what it did in the response's extensions, and what it sent to the engine when asked to explain. */
export async function timed<T extends Explained>(ctx: GraphQLContext, operation: string, types: string[], run: () => Promise<T>): Promise<T> {
  const started = process.hrtime.bigint();
  const result = await run();
  ctx.engineRequests?.push(...result.engineRequests);
  const list = (ctx.extensions.search as unknown[] | undefined) ?? [];
  list.push({ operation, entityTypes: types.length > 0 ? types : 'all searchable', tookMs: Number(process.hrtime.bigint() - started) / 1e6 });
  ctx.extensions.search = list;
  return result;
}

/** A facet as GraphQL's FacetMetadata; a property facet resolves `entity` to its definition, a value that is a URN to its entity. */
export function facetMetadata(facet: Facet): ResolversTypes['FacetMetadata'] {
  return {
    field: facet.field,
    displayName: facet.displayName,
    entity: facet.propertyUrn ? entityModel(facet.propertyUrn) : null,
    aggregations: facet.aggregations.map((a) => {
      const named = tryParseUrn(a.value);
      return { value: a.value, count: a.count, description: a.description ?? null, entity: named.ok ? { urn: named.urn.value, entityType: named.urn.entityType } : null };
    }),
  };
}

/** The older `filters` (one AND of conditions) and `orFilters` as one OR of ANDs. */
export function allFiltersOf(filters: readonly FacetFilterInput[] | null | undefined, orFilters: readonly AndFilterInput[] | null | undefined): AndFilter[] | null {
  const older = filters && filters.length > 0 ? [{ and: [...filters] }] : [];
  return orFiltersOf([...older, ...(orFilters ?? [])]);
}

/**
 * A search's entity types and filters, scoped by the saved view it names (DataHub's
 * `viewUrn`): the view's types and filter apply on top of the search's (domain/savedView.ts).
 * A view the caller cannot see is refused, naming the field.
 */
export async function scopedByView(ctx: GraphQLContext, viewUrn: string | null | undefined, search: { types: string[]; orFilters: AndFilter[] | null }): Promise<{ types: string[]; orFilters: AndFilter[] | null }> {
  if (viewUrn === null || viewUrn === undefined) return search;
  const view = await ctx.services.views.get(ctx.caller, viewUrn);
  if (!view) throw new ValidationError(`viewUrn ${quoteInput(viewUrn)} is not a view you can see; list yours with listMyViews and listGlobalViews`, 'viewUrn');
  return scopeByView(view, search);
}
