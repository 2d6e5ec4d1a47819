/**
 * The console's session routes (issue #41; docs/security.md, "Browser sessions"):
 *
 *   POST /auth/session    with Authorization: Bearer <token>: trades the token for a
 *                         console session acting as its principal; the session's secret
 *                         is set as the HttpOnly cookie (browserSession.ts) and never
 *                         appears in the answer, which says who is signed in until when
 *   POST /auth/sign-out   ends the browser's session on the server (every tab sharing
 *                         the cookie is signed out at its next request) and clears the
 *                         cookie; public, as a session that ended must still be
 *                         forgettable, and answered 204 whether or not one was live
 *
 * Signing in through the OpenID provider ends in the same cookie (signInRoutes.ts).
 */
import type { FastifyInstance } from 'fastify';
import { ValidationError } from '../domain/errors.js';
import { principalKindOf } from '../domain/principal.js';
import type { BrowserSessionService } from '../services/browserSessions.js';
import { cameOverTls, crossSiteRefusal, endBrowserSession, sessionSecretOf, startBrowserSession } from './browserSession.js';

export const SESSION_PATH = '/auth/session';
export const SIGN_OUT_PATH = '/auth/sign-out';

export async function sessionRoutes(app: FastifyInstance, options: { sessions: BrowserSessionService }): Promise<void> {
  app.post(SESSION_PATH, async (request, reply) => {
    if (request.credential === 'cookie') {
      throw new ValidationError('Sign in with an access token: send it as Authorization: Bearer <token> (this browser is signed in already when its session cookie works)', 'authorization');
    }
    // Another site's page must not sign this browser in as someone else (login forgery).
    const refusal = crossSiteRefusal(request, { unlabelled: 'allow' });
    if (refusal) return reply.code(403).send({ error: 'Forbidden', message: refusal });
    const session = await options.sessions.open(request.caller);
    startBrowserSession(reply, session.token, { secure: cameOverTls(request) });
    const { metadata } = session;
    return reply.header('cache-control', 'no-store').send({
      principal: metadata.principal,
      principalType: principalKindOf(metadata.principal),
      scope: metadata.scope,
      sessionId: metadata.id,
      expiresAt: metadata.expiresAt,
    });
  });

  app.post(SIGN_OUT_PATH, async (request, reply) => {
    const secret = sessionSecretOf(request);
    reply.header('cache-control', 'no-store');
    if (secret) {
      // Another site cannot sign a person out either.
      const refusal = crossSiteRefusal(request);
      if (refusal) return reply.code(403).send({ error: 'Forbidden', message: refusal });
      await options.sessions.end(secret);
    }
    endBrowserSession(reply, { secure: cameOverTls(request) });
    return reply.code(204).send();
  });
}
