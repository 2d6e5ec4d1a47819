/** Makes `request.caller`, and how it was established, available to every route. */
import type { Caller } from '../services/caller.js';

/** How a request authenticated: `Authorization: Bearer`, the browser session cookie, or not at all. */
export type Credential = 'bearer' | 'cookie' | 'none';

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller;
    credential: Credential;
  }
}

/** The caller used while authentication is off. */
export const LOCAL_CALLER: Caller = { actor: 'urn:li:corpuser:__local', scope: 'admin' };
