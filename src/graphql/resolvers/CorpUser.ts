import { parseUrn } from '../../domain/urn.js';
import type { CorpUserResolvers } from '../generated/resolvers-types.js';
import { entityTypeOf } from './entityModel.js';

export const CorpUser: CorpUserResolvers = {
  type: entityTypeOf,
  username: (model) => parseUrn(model.urn).id,
};
