/**
 * A saved view and the search page's address, each made from the other. A view is kept
 * as DataHub keeps it (entity types and an AND of filters) with the keywords and sort
 * beside them (docs/guide.md, "Sorting and saved views"); the console opens it as the
 * same address a search has, so a view is shared as any search is, by its link. A view
 * another client made may hold what the page cannot show (an OR of filters, a negated
 * value, a condition the sidebar has no control for): what is left out is said.
 */
import type { DataHubViewDefinitionInput, EntityType, SavedViewFragment } from '../generated/graphql.js';
import { PROPERTY_FIELD_PREFIX } from '../../domain/searchFields.js';
import { filtersOf } from './searchState.js';
import { sortOf, sortParam } from './sortParam.js';

/** The view definition of the search an address holds. */
export function viewDefinitionOf(params: URLSearchParams): DataHubViewDefinitionInput {
  const sort = sortOf(params.get('sort'));
  const query = params.get('q')?.trim() ?? '';
  return {
    entityTypes: params.getAll('type') as EntityType[],
    filter: { operator: 'AND', filters: filtersOf(params).filter((f) => f.field !== '_entityType') },
    ...(query ? { query } : {}),
    ...(sort ? { sortCriterion: sort } : {}),
  };
}

type Definition = SavedViewFragment['definition'];
type Filter = Definition['filter']['filters'][number];

const isValues = (f: Filter) => !f.negated && (f.condition === null || f.condition === 'EQUAL' || f.condition === 'IN');

/** The address parameters of one filter, or null when the search page has no control for it. */
function paramsOfFilter(f: Filter): Array<[string, string]> | null {
  if (f.field === '_entityType' && isValues(f)) return f.values.map((v) => ['type', v]);
  if (f.field === 'platform' && isValues(f)) return f.values.map((v) => ['platform', v]);
  if (!f.field.startsWith(PROPERTY_FIELD_PREFIX)) return null;
  const name = f.field.slice(PROPERTY_FIELD_PREFIX.length);
  if (isValues(f)) return f.values.map((v) => [`v:${name}`, v]);
  if (f.condition === 'EXISTS') return [[`has:${name}`, f.negated ? 'no' : 'yes']];
  if (f.negated || f.values.length !== 1) return null;
  if (f.condition === 'GREATER_THAN_OR_EQUAL_TO') return [[`min:${name}`, f.values[0]!]];
  if (f.condition === 'LESS_THAN_OR_EQUAL_TO') return [[`max:${name}`, f.values[0]!]];
  return null;
}

const described = (f: Filter) => `${f.negated ? 'not ' : ''}${f.field} ${f.condition ?? 'EQUAL'} ${f.values.join(', ')}`.trim();

/** The address of the search a view keeps, and what of the view it cannot hold. */
export function searchOfView(definition: Definition): { params: URLSearchParams; left: string[] } {
  const params = new URLSearchParams();
  const left: string[] = [];
  if (definition.query) params.set('q', definition.query);
  for (const t of definition.entityTypes) params.append('type', t);
  const { operator, filters } = definition.filter;
  if (operator === 'OR' && filters.length > 1) {
    left.push(`any of ${filters.map(described).join('; ')} (the search page combines filters with AND)`);
  } else {
    for (const f of filters) {
      const found = paramsOfFilter(f);
      if (found) for (const [k, v] of found) params.append(k, v);
      else left.push(described(f));
    }
  }
  if (definition.sortCriterion) params.set('sort', sortParam(definition.sortCriterion));
  return { params, left };
}

/** Whether an address holds the search a view keeps (the same parameters, in any order). */
export function isSearchOfView(params: URLSearchParams, definition: Definition): boolean {
  const canonical = (p: URLSearchParams) => [...p].map(([k, v]) => `${k}=${v}`).sort().join('&');
  const { params: viewParams, left } = searchOfView(definition);
  return left.length === 0 && canonical(viewParams) === canonical(params);
}
