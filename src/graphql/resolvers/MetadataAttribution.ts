import { tryParseUrn } from '../../domain/urn.js';
import type { MetadataAttributionResolvers } from '../generated/resolvers-types.js';
import { entityModel } from './entityModel.js';

/** An attribution's URNs as entities (a source that is no URN is left out); its detail as key/value entries. */
export const MetadataAttribution: MetadataAttributionResolvers = {
  time: (m) => m.time,
  actor: (m) => entityModel(m.actor),
  source: (m) => (m.source !== undefined && tryParseUrn(m.source).ok ? entityModel(m.source) : null),
  sourceDetail: (m) => (m.sourceDetail ? Object.entries(m.sourceDetail).map(([key, value]) => ({ key, value })) : null),
};
