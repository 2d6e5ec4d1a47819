import type { EntityResolvers } from '../generated/resolvers-types.js';
import type { EntityModel, SavedViewModel } from '../models.js';
import { objectTypeOf } from './entityModel.js';

/** The object type of an entity model: a saved view, or an entity by its type. */
export function resolveEntityType(model: EntityModel | SavedViewModel): string {
  return 'viewType' in model ? 'DataHubView' : objectTypeOf(model);
}

export const Entity: EntityResolvers = {
  __resolveType: (model) => resolveEntityType(model) as ReturnType<NonNullable<EntityResolvers['__resolveType']>> & string,
};
