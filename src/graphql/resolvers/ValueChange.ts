import type { ValueChangeResolvers } from '../generated/resolvers-types.js';
import { entityModel } from './entityModel.js';

export const ValueChange: ValueChangeResolvers = {
  structuredProperty: (m) => entityModel(m.propertyUrn),
  before: (m) => (m.before === null ? null : [...m.before]),
  after: (m) => [...m.after],
};
