/** Who is calling a service, as established by the authentication hook at the edge. */
import type { TokenScope } from '../domain/accessToken.js';

export type Scope = TokenScope;

export interface Caller {
  /** Recorded as createdBy on writes, e.g. `urn:li:corpuser:ci-loader`. */
  readonly actor: string;
  readonly scope: Scope;
  /** The access token the caller presented, when authentication is on. */
  readonly tokenId?: string;
}

/** The caller used by background jobs and start-up tasks. */
export const SYSTEM_CALLER: Caller = { actor: 'urn:li:corpuser:__propgraph_system', scope: 'admin' };

export interface WriteOptions {
  /** Return at commit, without waiting for the search index (REST `async=true`). */
  readonly async?: boolean;
}
