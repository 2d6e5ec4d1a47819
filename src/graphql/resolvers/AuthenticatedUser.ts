import { privilegesOf } from '../../services/privileges.js';
import type { AccessTokenScope, AuthenticatedUserResolvers } from '../generated/resolvers-types.js';
import { entityModel } from './entityModel.js';

export const AuthenticatedUser: AuthenticatedUserResolvers = {
  corpUser: (caller) => entityModel(caller.actor),
  scope: (caller) => caller.scope.toUpperCase() as AccessTokenScope,
  tokenId: (caller) => caller.tokenId ?? null,
  platformPrivileges: (caller) => privilegesOf(caller),
};
