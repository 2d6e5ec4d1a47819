/**
 * What DataHub's own web app calls besides GraphQL (docs/datahub-compatibility.md, "Serving
 * DataHub's web app"), under the path the app is served at (DATAHUB_APP_PATH, /datahub):
 *
 *   POST {app}/logIn {username, password}   signs in with an access token as the password
 *                                           (propgraph keeps no passwords); the username must
 *                                           be the token's principal (its id or its URN; a
 *                                           machine token's, its name)
 *   GET  {app}/sso                          single sign-on at the OpenID provider (OIDC_ISSUER),
 *   GET  {app}/sso/callback                 back from it, signed in
 *   GET  {app}/authenticate?redirect_uri=   where the app sends a browser that got a 401: on
 *                                           to the page when signed in, else to sign in
 *   GET  {app}/logOut                       signs out
 *   POST {app}/signUp, resetNativeUserCredentials   refused: there are no passwords to set
 *   POST {app}/openapi/v1/tracking/track    the app's analytics events: accepted, not kept
 *   GET  {app}/mfe/config                   the app's micro-frontends: none (YAML)
 *
 * Signing in opens propgraph's browser session (rest/browserSession.ts, docs/security.md
 * "Browser sessions"): its HttpOnly, SameSite=Strict cookie is what authenticates the app's
 * GraphQL requests, as it does the console's, with the same forgery check; the app and
 * the console in one browser share it. Beside it the app needs DataHub's `actor` cookie,
 * which its scripts read (the principal's URN: the app shows the person as signed in while
 * it is present, and sends a 401 to {app}/authenticate). This module is the app's own
 * routes; the session is the identity module's.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ServiceError } from '../domain/errors.js';
import { displayNameOf } from '../domain/principal.js';
import { tryParseUrn } from '../domain/urn.js';
import type { AuthorizationChecks } from '../identity/openIdProvider.js';
import type { BrowserSessionService } from '../services/browserSessions.js';
import type { SignInService } from '../services/signInService.js';
import type { TokenService } from '../services/tokenService.js';
import { cameOverTls, crossSiteRefusal, endBrowserSession, sessionSecretOf, startBrowserSession } from './browserSession.js';
import { clearCookie, readCookie, setCookie } from './cookies.js';
import { DATAHUB_APP_PATH } from '../web/datahubApp.js';

/** The routes the app calls, under the path it is served at (web/datahubApp.ts). */
export const DATAHUB_APP_GRAPHQL_PATH = `${DATAHUB_APP_PATH}/api/v2/graphql`;

/** DataHub's name for the cookie the app reads the signed-in person from (its CLIENT_AUTH_COOKIE). */
const ACTOR_COOKIE = 'actor';
const CHECKS_COOKIE = 'propgraph_datahub_sso';
const CHECKS_MAX_AGE_S = 600;
const CALLBACK_PATH = `${DATAHUB_APP_PATH}/sso/callback`;

/** The app's routes that anyone may call (they are how one signs in). */
export const DATAHUB_APP_PUBLIC_ROUTES = ['/logIn', '/sso', '/sso/callback', '/authenticate', '/logOut', '/signUp', '/resetNativeUserCredentials', '/openapi/v1/tracking/track', '/mfe/config'].map(
  (p) => `${DATAHUB_APP_PATH}${p}`,
);

export interface DataHubAppSessionOptions {
  readonly tokens: TokenService;
  readonly sessions: BrowserSessionService;
  /** Single sign-on; null when no OpenID provider is configured. */
  readonly signIn: SignInService | null;
  /** The console's callback URL registered at the provider (OIDC_REDIRECT_URL), whose origin the app's callback shares; unset: the address the browser used. */
  readonly redirectUrl: string | undefined;
}

/** A page of the app to go back to: a path under the app, never another site. */
function appPath(value: unknown): string {
  const fallback = `${DATAHUB_APP_PATH}/`;
  if (typeof value !== 'string' || !value.startsWith('/') || value.startsWith('//') || value.includes('\\') || value.length > 2000) return fallback;
  const path = value.startsWith(`${DATAHUB_APP_PATH}/`) || value === DATAHUB_APP_PATH ? value : `${DATAHUB_APP_PATH}${value}`;
  try {
    const url = new URL(path, 'http://app.invalid');
    return url.origin === 'http://app.invalid' ? `${url.pathname}${url.search}` : fallback;
  } catch {
    return fallback;
  }
}

export async function datahubAppSessionRoutes(app: FastifyInstance, options: DataHubAppSessionOptions): Promise<void> {
  const actorCookie = (request: FastifyRequest, value: string, clear = false) =>
    // The app's scripts read this one: it is not HttpOnly, and holds only the principal's URN. Like the session cookie it lasts as long as the browser's session.
    `${ACTOR_COOKIE}=${clear ? '' : encodeURIComponent(value)}; Path=${DATAHUB_APP_PATH};${clear ? ' Max-Age=0;' : ''} SameSite=Lax${cameOverTls(request) ? '; Secure' : ''}`;
  const signedIn = (request: FastifyRequest, reply: FastifyReply, secret: string, actor: string) => {
    startBrowserSession(reply, secret, { secure: cameOverTls(request) });
    // Fastify adds each set-cookie header to those set before.
    reply.header('set-cookie', actorCookie(request, actor));
  };
  const signedOut = (request: FastifyRequest, reply: FastifyReply) => {
    endBrowserSession(reply, { secure: cameOverTls(request) });
    reply.header('set-cookie', actorCookie(request, '', true));
  };
  const refused = (reply: FastifyReply, status: 400 | 401 | 403 | 404, message: string) =>
    reply.code(status).header('cache-control', 'no-store').send({ error: { 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found' }[status], message });

  app.post(`${DATAHUB_APP_PATH}/logIn`, { bodyLimit: 16 * 1024 }, async (request, reply) => {
    // Another site's page must not sign this browser in as someone else (login forgery).
    const forgery = crossSiteRefusal(request, { unlabelled: 'allow' });
    if (forgery) return refused(reply, 403, forgery);
    const body = (request.body ?? {}) as { username?: unknown; password?: unknown };
    if (typeof body.password !== 'string' || body.password === '') {
      return refused(reply, 400, 'password is required: propgraph keeps no passwords, so give an access token as the password (create one with propgraph tokens create or the console)');
    }
    const result = await options.tokens.authenticate(body.password);
    if (!result.ok) return refused(reply, 401, `The password is not a valid access token: ${result.reason}`);
    const actor = result.caller.actor;
    const id = tryParseUrn(actor);
    // A machine token's principal (__service_<name>) is named by its token's name too, as the console shows it.
    const names = [actor, displayNameOf(actor), ...(id.ok ? [id.urn.id] : [])];
    if (typeof body.username === 'string' && body.username !== '' && !names.includes(body.username)) {
      return refused(reply, 401, `This token belongs to ${actor}: sign in as ${displayNameOf(actor)}`);
    }
    // The browser holds a session opened with the token, never the token itself: signing out ends it, the token stays.
    let session;
    try {
      session = await options.sessions.open(result.caller);
    } catch (err) {
      if (err instanceof ServiceError) return refused(reply, 400, err.message);
      throw err;
    }
    signedIn(request, reply, session.token, actor);
    return reply.header('cache-control', 'no-store').send({});
  });

  app.get(`${DATAHUB_APP_PATH}/authenticate`, async (request, reply) => {
    const target = appPath((request.query as Record<string, unknown>).redirect_uri);
    reply.header('cache-control', 'no-store');
    const secret = sessionSecretOf(request);
    const result = secret ? await options.tokens.authenticate(secret) : undefined;
    // Signed in (in the app or the console of this browser): on to the page, the actor cookie as the app needs it.
    if (result?.ok) return reply.header('set-cookie', actorCookie(request, result.caller.actor)).redirect(target, 302);
    signedOut(request, reply);
    const next = options.signIn ? `${DATAHUB_APP_PATH}/sso` : `${DATAHUB_APP_PATH}/login`;
    return reply.redirect(`${next}?redirect_uri=${encodeURIComponent(target)}`, 302);
  });

  app.get(`${DATAHUB_APP_PATH}/logOut`, async (request, reply) => {
    reply.header('cache-control', 'no-store');
    // A link on another site's page must not sign the person out: only the app's own pages (or the address bar) may.
    const site = request.headers['sec-fetch-site'];
    if (site === 'cross-site' || site === 'same-site') return reply.redirect(`${DATAHUB_APP_PATH}/`, 302);
    const secret = sessionSecretOf(request);
    if (secret) await options.sessions.end(secret);
    signedOut(request, reply);
    return reply.redirect(`${DATAHUB_APP_PATH}/login`, 302);
  });

  const callbackUrl = (request: FastifyRequest) => (options.redirectUrl ? new URL(CALLBACK_PATH, options.redirectUrl).href : `${request.protocol}://${request.host}${CALLBACK_PATH}`);
  const secureCallback = (request: FastifyRequest) => new URL(callbackUrl(request)).protocol === 'https:';
  app.get(`${DATAHUB_APP_PATH}/sso`, async (request, reply) => {
    if (!options.signIn) return refused(reply, 404, 'No single sign-on is configured (OIDC_ISSUER): sign in with an access token as the password');
    const returnTo = appPath((request.query as Record<string, unknown>).redirect_uri);
    const { url, checks } = await options.signIn.startBrowserSignIn(callbackUrl(request));
    setCookie(reply, CHECKS_COOKIE, Buffer.from(JSON.stringify({ ...checks, returnTo }), 'utf8').toString('base64url'), { path: CALLBACK_PATH, maxAgeSeconds: CHECKS_MAX_AGE_S, sameSite: 'Lax', secure: secureCallback(request) });
    return reply.header('cache-control', 'no-store').redirect(url.href, 302);
  });

  app.get(`${DATAHUB_APP_PATH}/sso/callback`, async (request, reply) => {
    if (!options.signIn) return refused(reply, 404, 'No single sign-on is configured (OIDC_ISSUER)');
    const pending = decodePending(readCookie(request, CHECKS_COOKIE));
    clearCookie(reply, CHECKS_COOKIE, { path: CALLBACK_PATH, sameSite: 'Lax', secure: secureCallback(request) });
    if (!pending) return reply.redirect(`${DATAHUB_APP_PATH}/login`, 302);
    try {
      const done = await options.signIn.finishBrowserSignIn(new URL(request.url, 'http://callback.invalid'), pending);
      signedIn(request, reply, done.token.token, done.person.urn);
    } catch (err) {
      if (err instanceof ServiceError) return refused(reply, 401, `Single sign-on failed: ${err.message}`);
      throw err;
    }
    return reply.header('cache-control', 'no-store').redirect(pending.returnTo, 303);
  });

  for (const route of ['/signUp', '/resetNativeUserCredentials']) {
    app.post(`${DATAHUB_APP_PATH}${route}`, { bodyLimit: 16 * 1024 }, async (_request, reply) =>
      refused(reply, 400, 'propgraph keeps no passwords to sign up with or reset: sign in with an access token as the password, or with single sign-on'),
    );
  }

  // The app reports page views and clicks; propgraph keeps no analytics.
  app.post(`${DATAHUB_APP_PATH}/openapi/v1/tracking/track`, { bodyLimit: 64 * 1024 }, async (_request, reply) => reply.code(200).send({}));

  app.get(`${DATAHUB_APP_PATH}/mfe/config`, async (_request, reply) => reply.type('text/yaml; charset=utf-8').header('cache-control', 'no-cache').send('microFrontends: []\n'));
}

interface PendingSso extends AuthorizationChecks {
  readonly returnTo: string;
}

function decodePending(value: string | undefined): PendingSso | undefined {
  if (!value) return undefined;
  try {
    const parsed = JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as Record<string, unknown>;
    if (!['state', 'nonce', 'codeVerifier', 'redirectUri', 'returnTo'].every((f) => typeof parsed[f] === 'string')) return undefined;
    return { ...(parsed as unknown as PendingSso), returnTo: appPath(parsed.returnTo) };
  } catch {
    return undefined;
  }
}
