/** Who is calling a service, as established by the authentication hook at the edge. */
import type { TokenKind, TokenScope } from '../domain/accessToken.js';
import { principalKindOf } from '../domain/principal.js';

export type Scope = TokenScope;

/**
 * The interface a request came through, recorded with every aspect version it writes
 * (the audit stamp's third part, beside actor and time). `cli` and `console` are what
 * propgraph's own clients say of themselves (X-Propgraph-Client); `system` is the
 * server's own work (cleanup jobs); `migration` a migration's rewrite of values, in the name of whoever changed the definition.
 */
export type WriteInterface = 'rest-v2' | 'rest-v3' | 'restli' | 'graphql' | 'cli' | 'console' | 'system' | 'migration';

/**
 * One request as the edge received it. What is kept for the length of a request is kept
 * against this object (the policies its reads are judged on: accessPolicies.ts), so it
 * ends with the request; callers made for background work have none.
 */
export interface RequestScope {
  /** The request's id, as the access log shows it. */
  readonly id: string;
}

export interface Caller {
  /** Recorded as createdBy on writes, e.g. `urn:li:corpuser:ana@example.com` or `urn:li:corpuser:__service_ci-loader` (domain/principal.ts). */
  readonly actor: string;
  readonly scope: Scope;
  /** The access token the caller presented, when authentication is on. */
  readonly tokenId?: string;
  /** What that token is: a machine's, or a person's (personal, or a sign-in session). */
  readonly tokenKind?: TokenKind;
  /** The interface the request came through; set by the edge (rest/writeInterface.ts). */
  readonly via?: WriteInterface;
  /** The groups a person's sign-in gave them (the OIDC groups claim): policies grant to groups. None for machines. */
  readonly groups?: readonly string[];
  /** The request the caller is making, when it came through the edge (never for background work). */
  readonly request?: RequestScope;
}

/**
 * Whether the actor is a person who signed in through OpenID Connect (through a sign-in
 * session or one of their personal tokens): people hold tokens of their own. A console
 * session opened with a machine token is a session, but acts as the machine.
 */
export function isPerson(caller: Caller): boolean {
  return (caller.tokenKind === 'personal' || caller.tokenKind === 'session') && principalKindOf(caller.actor) === 'person';
}

/** The caller used by background jobs and start-up tasks. */
export const SYSTEM_CALLER: Caller = { actor: 'urn:li:corpuser:__propgraph_system', scope: 'admin', via: 'system' };

export interface WriteOptions {
  /** Return at commit, without waiting for the search index (REST `async=true`). */
  readonly async?: boolean;
  /**
   * The write brings its entity into being when it does not exist, as DataHub's
   * ingestion does for a Rest.li proposal: the key aspect (derived from the URN) is
   * written in the same transaction, so aspects that never create entities
   * (structuredProperties) can be the first thing said about one. Unset, such a write
   * to a missing entity is refused with 404, as REST v3 answers.
   */
  readonly createsEntity?: boolean;
}
