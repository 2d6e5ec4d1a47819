import { parseUrn } from '../../domain/urn.js';
import type { DataPlatformResolvers } from '../generated/resolvers-types.js';
import { entityTypeOf } from './entityModel.js';

export const DataPlatform: DataPlatformResolvers = {
  type: entityTypeOf,
  name: (model) => parseUrn(model.urn).id,
};
