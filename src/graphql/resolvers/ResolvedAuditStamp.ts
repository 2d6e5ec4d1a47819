import { ENTITY } from '../../domain/registry/entityTypes.js';
import { tryParseUrn } from '../../domain/urn.js';
import type { ResolvedAuditStampResolvers } from '../generated/resolvers-types.js';
import { entityModel } from './entityModel.js';

export const ResolvedAuditStamp: ResolvedAuditStampResolvers = {
  time: (m) => m.time,
  actor: (m) => {
    const parsed = tryParseUrn(m.actor);
    return parsed.ok && parsed.urn.entityType === ENTITY.corpuser ? entityModel(m.actor) : null;
  },
};
