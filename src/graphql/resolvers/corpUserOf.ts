/** The CorpUser an actor urn names, or null for actors that are not people or accounts. */
import { ENTITY } from '../../domain/registry/entityTypes.js';
import { tryParseUrn } from '../../domain/urn.js';
import type { EntityModel } from '../models.js';
import { entityModel } from './entityModel.js';

export function corpUserOf(actor: string): EntityModel | null {
  const parsed = tryParseUrn(actor);
  return parsed.ok && parsed.urn.entityType === ENTITY.corpuser ? entityModel(actor) : null;
}
