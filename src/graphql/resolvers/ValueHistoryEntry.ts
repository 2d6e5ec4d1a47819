import type { ValueHistoryEntryResolvers } from '../generated/resolvers-types.js';
import { corpUserOf } from './corpUserOf.js';
import { entityModel } from './entityModel.js';

export const ValueHistoryEntry: ValueHistoryEntryResolvers = {
  entity: (m) => entityModel(m.urn),
  actor: (m) => corpUserOf(m.actor),
  actorUrn: (m) => m.actor,
  changes: (m) => [...m.changes],
};
