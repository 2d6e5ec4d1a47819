import type { TestComplianceResolvers } from '../generated/resolvers-types.js';
import { entityModel } from './entityModel.js';

export const TestCompliance: TestComplianceResolvers = {
  test: (m, _args, ctx) => {
    ctx.loaders.test.prime(m.test.urn, m.test);
    return entityModel(m.test.urn);
  },
  failingEntities: async (m, { input }, ctx) => {
    const page = await ctx.services.compliance.failing(ctx.caller, { urn: m.test.urn, query: input?.query ?? null, count: input?.count ?? null, scrollId: input?.scrollId ?? null });
    return { total: page.total, nextScrollId: page.scrollId, entities: page.entities.map((e) => entityModel(e.urn)) };
  },
};
