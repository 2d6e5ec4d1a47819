/**
 * The display fields DataHub's web app reads from an entity's own aspects (a dataset's
 * properties, a platform's info, a person's info), with the fallbacks it shows when none
 * is stored: what the aspect says, else what the URN says.
 */
import type { GraphQLContext } from '../context.js';
import type { EntityModel } from '../models.js';

type Fields = Record<string, unknown>;

export async function aspectFields(model: EntityModel, aspect: string, ctx: GraphQLContext): Promise<Fields | null> {
  // DataHub's app asks every entity for aspects its type may not have (a field's deprecation): none.
  if (aspect !== model.entityType.keyAspect && !model.entityType.aspects.includes(aspect)) return null;
  const found = await ctx.loaders.aspect.load({ urn: model.urn, aspect });
  return found && typeof found.value === 'object' && found.value !== null ? (found.value as Fields) : null;
}

export const text = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
