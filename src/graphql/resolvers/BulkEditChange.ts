import type { BulkEditChangeResolvers } from '../generated/resolvers-types.js';
import { entityModel } from './entityModel.js';

export const BulkEditChange: BulkEditChangeResolvers = {
  entity: (m) => entityModel(m.urn),
  before: (m) => [...m.before],
  after: (m) => [...m.after],
};
