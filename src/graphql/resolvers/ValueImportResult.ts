import type { ValueImportResultResolvers } from '../generated/resolvers-types.js';

export const ValueImportResult: ValueImportResultResolvers = {
  problems: (m) => [...m.problems],
  changes: (m) => [...m.changes],
};
