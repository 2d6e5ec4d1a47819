/** Autocomplete (DataHub's autoComplete): the names of the entities a keyword search finds first. */
import { keyAspectOf, parseUrn } from '../../domain/urn.js';
import type { AndFilter } from '../../services/searchService.js';
import type { GraphQLContext } from '../context.js';
import type { EntityModel } from '../models.js';
import { entityModel } from './entityModel.js';

const DEFAULT_SUGGESTIONS = 10;

/** A hit's name as people type it: the key's name, else the last part of the URN's id. */
function suggestionOf(urn: string): string {
  const parsed = parseUrn(urn);
  return keyAspectOf(parsed).name ?? parsed.parts[parsed.parts.length - 1]!;
}

export async function suggestionsOf(
  ctx: GraphQLContext,
  types: readonly string[],
  query: string,
  limit: number | null | undefined,
  orFilters: AndFilter[] | null,
): Promise<Array<{ suggestion: string; entity: EntityModel }>> {
  const page = await ctx.services.search.scroll(ctx.caller, { types: [...types], query: query.trim() === '' ? '*' : query, count: limit ?? DEFAULT_SUGGESTIONS, orFilters });
  ctx.engineRequests?.push(...page.engineRequests);
  return page.entities.map((e) => ({ suggestion: suggestionOf(e.urn), entity: entityModel(e.urn) }));
}
