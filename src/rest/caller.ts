/** Makes `request.caller` available to every route. */
import type { Caller } from '../services/caller.js';

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller;
  }
}

/** The caller used while authentication is off. */
export const LOCAL_CALLER: Caller = { actor: 'urn:li:corpuser:__local', scope: 'admin' };
