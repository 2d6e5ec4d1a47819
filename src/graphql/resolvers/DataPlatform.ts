import { parseUrn } from '../../domain/urn.js';
import type { DataPlatformResolvers, PlatformType } from '../generated/resolvers-types.js';
import type { GraphQLContext } from '../context.js';
import type { EntityModel } from '../models.js';
import { aspectFields, text } from './displayAspects.js';
import { entityTypeOf } from './entityModel.js';

const PLATFORM_TYPES: ReadonlySet<string> = new Set(['FILE_SYSTEM', 'KEY_VALUE_STORE', 'MESSAGE_BROKER', 'OBJECT_STORE', 'OLAP_DATASTORE', 'OTHERS', 'QUERY_ENGINE', 'RELATIONAL_DB', 'SEARCH_ENGINE']);

/** The dataPlatformInfo aspect, or what DataHub shows for a platform it has no info about. */
async function infoOf(model: EntityModel, ctx: GraphQLContext) {
  const stored = await aspectFields(model, 'dataPlatformInfo', ctx);
  const name = parseUrn(model.urn).id;
  const type = typeof stored?.type === 'string' && PLATFORM_TYPES.has(stored.type) ? (stored.type as PlatformType) : 'OTHERS';
  return { type, displayName: text(stored?.displayName) ?? name, datasetNameDelimiter: text(stored?.datasetNameDelimiter) ?? '.', logoUrl: text(stored?.logoUrl), logical: stored?.logical === true };
}

export const DataPlatform: DataPlatformResolvers = {
  type: entityTypeOf,
  name: (model) => parseUrn(model.urn).id,
  displayName: async (model, _args, ctx) => (await infoOf(model, ctx)).displayName,
  properties: (model, _args, ctx) => infoOf(model, ctx),
  info: (model, _args, ctx) => infoOf(model, ctx),
  lastIngested: () => null,
  relationships: () => ({ start: 0, count: 0, total: 0, relationships: [] }),
};
