import type { AccessTokenScope, AccessTokenType, AuthenticatedUserResolvers } from '../generated/resolvers-types.js';
import { entityModel } from './entityModel.js';

export const AuthenticatedUser: AuthenticatedUserResolvers = {
  corpUser: (caller) => entityModel(caller.actor),
  scope: (caller) => caller.scope.toUpperCase() as AccessTokenScope,
  tokenId: (caller) => caller.tokenId ?? null,
  tokenType: (caller) => (caller.tokenKind ? (caller.tokenKind.toUpperCase() as AccessTokenType) : null),
  platformPrivileges: (caller, _args, ctx) => ctx.services.access.privileges(caller),
};
