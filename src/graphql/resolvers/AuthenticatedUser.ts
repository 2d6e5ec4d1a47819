import { managesGlobalViews } from '../../services/viewService.js';
import type { AccessTokenScope, AccessTokenType, AuthenticatedUserResolvers } from '../generated/resolvers-types.js';
import { entityModel } from './entityModel.js';

export const AuthenticatedUser: AuthenticatedUserResolvers = {
  corpUser: (caller) => entityModel(caller.actor),
  scope: (caller) => caller.scope.toUpperCase() as AccessTokenScope,
  tokenId: (caller) => caller.tokenId ?? null,
  tokenType: (caller) => (caller.tokenKind ? (caller.tokenKind.toUpperCase() as AccessTokenType) : null),
  // What the policies grant (MANAGE_POLICIES and the rest), with the global views the scope lets the caller manage.
  platformPrivileges: async (caller, _args, ctx) => ({ ...(await ctx.services.access.privileges(caller)), manageGlobalViews: managesGlobalViews(caller) }),
};
