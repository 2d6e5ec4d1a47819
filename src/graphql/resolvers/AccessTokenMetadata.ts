import type { AccessTokenMetadataResolvers, AccessTokenScope } from '../generated/resolvers-types.js';

export const AccessTokenMetadata: AccessTokenMetadataResolvers = {
  scope: (m) => m.scope.toUpperCase() as AccessTokenScope,
};
