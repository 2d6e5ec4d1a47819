import type { LifecycleEventResolvers } from '../generated/resolvers-types.js';
import { corpUserOf } from './corpUserOf.js';

export const LifecycleEvent: LifecycleEventResolvers = {
  actor: (m) => corpUserOf(m.actor),
  actorUrn: (m) => m.actor,
  detail: (m) => (m.detail ? JSON.stringify(m.detail) : null),
};
