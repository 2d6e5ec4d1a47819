import type { ResolvedAuditStampResolvers } from '../generated/resolvers-types.js';
import { corpUserOf } from './corpUserOf.js';

export const ResolvedAuditStamp: ResolvedAuditStampResolvers = {
  time: (m) => m.time,
  actor: (m) => corpUserOf(m.actor),
};
