import type { AccessTokenMetadataResolvers, AccessTokenScope, AccessTokenType } from '../generated/resolvers-types.js';

export const AccessTokenMetadata: AccessTokenMetadataResolvers = {
  scope: (m) => m.scope.toUpperCase() as AccessTokenScope,
  type: (m) => m.type.toUpperCase() as AccessTokenType,
  ownerUrn: (m) => m.owner,
  principalUrn: (m) => m.principal,
};
