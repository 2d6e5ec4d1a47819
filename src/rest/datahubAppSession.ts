/**
 * What DataHub's own web app calls besides GraphQL (docs/datahub-compatibility.md, "Serving
 * DataHub's web app"), under the path the app is served at (DATAHUB_APP_PATH, /datahub):
 *
 *   POST {app}/logIn {username, password}   signs in with an access token as the password
 *                                           (propgraph keeps no passwords); the username must
 *                                           be the token's principal (its id or its URN; a
 *                                           machine token's, its name)
 *   GET  {app}/sso                          single sign-on at the OpenID provider (OIDC_ISSUER),
 *   GET  {app}/sso/callback                 back from it, with a session token issued
 *   GET  {app}/authenticate?redirect_uri=   where the app sends a browser that got a 401: on
 *                                           to the page when signed in, else to sign in
 *   GET  {app}/logOut                       signs out
 *   POST {app}/signUp, resetNativeUserCredentials   refused: there are no passwords to set
 *   POST {app}/openapi/v1/tracking/track    the app's analytics events: accepted, not kept
 *   GET  {app}/mfe/config                   the app's micro-frontends: none (YAML)
 *
 * The app holds the signed-in person in two cookies, as DataHub's frontend server sets them:
 * `actor`, readable by the app's scripts, the principal's URN (the app shows the person as
 * signed in while it is present), and an HttpOnly one with the token. The app's GraphQL
 * endpoint ({app}/api/v2/graphql, only it) takes that token from the cookie when the request
 * carries no Authorization header; the one authentication hook checks it as any token
 * (rest/authentication.ts), and its 401 sends the app to {app}/authenticate. This module is
 * the app's own and apart from the console's sign-in (rest/signInRoutes.ts).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ServiceError } from '../domain/errors.js';
import { displayNameOf } from '../domain/principal.js';
import { tryParseUrn } from '../domain/urn.js';
import type { AuthorizationChecks } from '../identity/openIdProvider.js';
import type { SignInService } from '../services/signInService.js';
import type { TokenService } from '../services/tokenService.js';
import { clearCookie, readCookie, setCookie, type CookieOptions } from './cookies.js';

/** Where the app is served: its pages, its files and the routes it calls. */
export const DATAHUB_APP_PATH = '/datahub';
export const DATAHUB_APP_GRAPHQL_PATH = `${DATAHUB_APP_PATH}/api/v2/graphql`;

/** DataHub's name for the cookie the app reads the signed-in person from (its CLIENT_AUTH_COOKIE). */
const ACTOR_COOKIE = 'actor';
const TOKEN_COOKIE = 'propgraph_datahub_app';
const CHECKS_COOKIE = 'propgraph_datahub_sso';
const CHECKS_MAX_AGE_S = 600;

/** The app's routes that anyone may call (they are how one signs in). */
export const DATAHUB_APP_PUBLIC_ROUTES = ['/logIn', '/sso', '/sso/callback', '/authenticate', '/logOut', '/signUp', '/resetNativeUserCredentials', '/openapi/v1/tracking/track', '/mfe/config'].map(
  (p) => `${DATAHUB_APP_PATH}${p}`,
);

export interface DataHubAppSessionOptions {
  readonly tokens: TokenService;
  /** Single sign-on; null when no OpenID provider is configured. */
  readonly signIn: SignInService | null;
  /** How long a sign-in with a token lasts in the browser (the session length of single sign-on). */
  readonly sessionHours: number;
}

/**
 * Turns the app's cookie into the bearer token its GraphQL requests authenticate with. It
 * runs before the authentication hook, on the app's GraphQL endpoint only, and never
 * overrides a token the request carries itself.
 */
export function installDataHubAppCookieAuth(app: FastifyInstance): void {
  app.addHook('onRequest', async (request) => {
    if (request.headers.authorization !== undefined || request.url.split('?')[0] !== DATAHUB_APP_GRAPHQL_PATH) return;
    const token = readCookie(request, TOKEN_COOKIE);
    if (token) request.headers.authorization = `Bearer ${decodeURIComponent(token)}`;
  });
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
  const secure = (request: FastifyRequest) => request.protocol === 'https';
  const cookie = (request: FastifyRequest, maxAgeSeconds: number): CookieOptions => ({ path: DATAHUB_APP_PATH, maxAgeSeconds, sameSite: 'Lax', secure: secure(request) });
  const sessionSeconds = Math.round(options.sessionHours * 3600);

  const signedIn = (request: FastifyRequest, reply: FastifyReply, token: string, actor: string) => {
    setCookie(reply, TOKEN_COOKIE, encodeURIComponent(token), cookie(request, sessionSeconds));
    // The app's scripts read this one: it is not HttpOnly, and holds only the principal's URN.
    // Fastify adds each set-cookie header to those set before.
    reply.header('set-cookie', `${ACTOR_COOKIE}=${encodeURIComponent(actor)}; Path=${DATAHUB_APP_PATH}; Max-Age=${sessionSeconds}; SameSite=Lax${secure(request) ? '; Secure' : ''}`);
  };
  const signedOut = (request: FastifyRequest, reply: FastifyReply) => {
    clearCookie(reply, TOKEN_COOKIE, { path: DATAHUB_APP_PATH, sameSite: 'Lax', secure: secure(request) });
    reply.header('set-cookie', `${ACTOR_COOKIE}=; Path=${DATAHUB_APP_PATH}; Max-Age=0; SameSite=Lax`);
  };
  const refused = (reply: FastifyReply, status: number, message: string) => reply.code(status).header('cache-control', 'no-store').send({ error: status === 401 ? 'Unauthorized' : 'Bad Request', message });

  app.post(`${DATAHUB_APP_PATH}/logIn`, { bodyLimit: 16 * 1024 }, async (request, reply) => {
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
    signedIn(request, reply, body.password, actor);
    return reply.header('cache-control', 'no-store').send({});
  });

  app.get(`${DATAHUB_APP_PATH}/authenticate`, async (request, reply) => {
    const target = appPath((request.query as Record<string, unknown>).redirect_uri);
    const token = readCookie(request, TOKEN_COOKIE);
    if (token && (await options.tokens.authenticate(decodeURIComponent(token))).ok) return reply.header('cache-control', 'no-store').redirect(target, 302);
    signedOut(request, reply);
    const next = options.signIn ? `${DATAHUB_APP_PATH}/sso` : `${DATAHUB_APP_PATH}/login`;
    return reply.header('cache-control', 'no-store').redirect(`${next}?redirect_uri=${encodeURIComponent(target)}`, 302);
  });

  app.get(`${DATAHUB_APP_PATH}/logOut`, async (request, reply) => {
    signedOut(request, reply);
    return reply.header('cache-control', 'no-store').redirect(`${DATAHUB_APP_PATH}/login`, 302);
  });

  const callbackUrl = (request: FastifyRequest) => `${request.protocol}://${request.host}${DATAHUB_APP_PATH}/sso/callback`;
  app.get(`${DATAHUB_APP_PATH}/sso`, async (request, reply) => {
    if (!options.signIn) return refused(reply, 404, 'No single sign-on is configured (OIDC_ISSUER): sign in with an access token as the password');
    const returnTo = appPath((request.query as Record<string, unknown>).redirect_uri);
    const { url, checks } = await options.signIn.startBrowserSignIn(callbackUrl(request));
    setCookie(reply, CHECKS_COOKIE, Buffer.from(JSON.stringify({ ...checks, returnTo }), 'utf8').toString('base64url'), { path: `${DATAHUB_APP_PATH}/sso/callback`, maxAgeSeconds: CHECKS_MAX_AGE_S, sameSite: 'Lax', secure: secure(request) });
    return reply.header('cache-control', 'no-store').redirect(url.href, 302);
  });

  app.get(`${DATAHUB_APP_PATH}/sso/callback`, async (request, reply) => {
    if (!options.signIn) return refused(reply, 404, 'No single sign-on is configured (OIDC_ISSUER)');
    const pending = decodePending(readCookie(request, CHECKS_COOKIE));
    clearCookie(reply, CHECKS_COOKIE, { path: `${DATAHUB_APP_PATH}/sso/callback`, sameSite: 'Lax', secure: secure(request) });
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
