/**
 * Console sessions (issue #41): a browser signed in once, in every tab, until it signs
 * out. A session is an access token of kind `session` whose secret lives only in an
 * HttpOnly cookie (rest/browserSession.ts), out of any script's reach. Signing in through
 * the OpenID provider issues one for the person (services/signInService.ts); signing in
 * with an access token trades that token for one here. Signing out revokes the session on
 * the server, so every tab that shares the cookie is signed out at its next request.
 *
 * Nothing here needs a privilege: a caller opens a session only as themselves, with their
 * own scope, and ending one needs its secret.
 */
import { ValidationError } from '../domain/errors.js';
import type { Caller } from './caller.js';
import type { DefaultTokenService, NewToken } from './tokenService.js';

export interface BrowserSessionService {
  /** A session acting as the caller, opened with the access token they presented. */
  open(caller: Caller): Promise<NewToken>;
  /** Ends the session whose secret the browser presented; whether there was one to end. */
  end(secret: string): Promise<boolean>;
}

const HOUR_MS = 3_600_000;

export class DefaultBrowserSessionService implements BrowserSessionService {
  constructor(private readonly deps: { tokens: DefaultTokenService; tokenSessionHours: number }) {}

  open(caller: Caller): Promise<NewToken> {
    if (!caller.tokenId) throw new ValidationError('Authentication is off (AUTH_ENABLED=false): there is nothing to sign in to', 'authorization');
    return this.deps.tokens.openSession(caller, { lifetimeMs: this.deps.tokenSessionHours * HOUR_MS });
  }

  end(secret: string): Promise<boolean> {
    return this.deps.tokens.endSession(secret);
  }
}
