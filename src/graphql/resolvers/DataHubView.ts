import type { DataHubViewResolvers, EntityType, FilterOperator } from '../generated/resolvers-types.js';

/** A saved view (domain/savedView.ts) as DataHub's DataHubView. */
export const DataHubView: DataHubViewResolvers = {
  type: () => 'DATAHUB_VIEW',
  definition: (view) => ({
    entityTypes: view.definition.entityTypes as EntityType[],
    filter: {
      operator: view.definition.filter.operator,
      filters: view.definition.filter.filters.map((f) => ({ field: f.field, values: f.values ?? [], condition: (f.condition ?? 'EQUAL') as FilterOperator, negated: f.negated ?? false })),
    },
    query: view.definition.query ?? null,
    sortCriterion: view.definition.sortCriterion ?? null,
  }),
  relationships: () => ({ start: 0, count: 0, total: 0, relationships: [] }),
};
