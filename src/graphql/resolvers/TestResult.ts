import type { TestResultResolvers } from '../generated/resolvers-types.js';
import { entityModel } from './entityModel.js';

export const TestResult: TestResultResolvers = {
  // A result may outlive its test (deleted since); then the test is null.
  test: async (m, _args, ctx) => ((await ctx.loaders.test.load(m.test)) ? entityModel(m.test) : null),
  type: (m) => m.type,
  lastComputed: (m) => m.lastComputed ?? null,
};
