import type { BulkEditResultResolvers } from '../generated/resolvers-types.js';

export const BulkEditResult: BulkEditResultResolvers = {
  structuredPropertyUrn: (m) => m.propertyUrn,
  job: async (m, _args, ctx) => (m.jobId === null ? null : ctx.services.jobs.get(ctx.caller, m.jobId)),
  refused: (m) => [...m.refused],
  changes: (m) => [...m.changes],
};
