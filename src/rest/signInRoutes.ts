/**
 * Sign-in routes for people (issue #30), served when an OpenID provider is configured.
 *
 * The console (authorization code with PKCE, run here, so the client secret never
 * reaches the browser):
 *   GET  /auth/login?returnTo=/path  the browser goes to the provider; the PKCE verifier,
 *                                    state and nonce ride in a cookie only the callback reads
 *   GET  /auth/callback              the provider sends the browser back; the code is
 *                                    redeemed, the person let in, a session token issued
 *                                    into a cookie only /auth/session reads, for 2 minutes
 *   POST /auth/session               the console picks its session token up (once)
 *
 * The CLI (device authorization grant, also run here with the client's credentials):
 *   POST /auth/device                a user code and where to enter it
 *   POST /auth/device/token          one poll: pending, or the person's session token
 *
 * The session token is an ordinary access token (kind `session`, owned by the person):
 * every API request after sign-in is authenticated like any other.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ServiceError } from '../domain/errors.js';
import type { AuthorizationChecks } from '../identity/openIdProvider.js';
import type { SignInService, SignedIn } from '../services/signInService.js';
import { isConsolePath } from '../web/console.js';
import { clearCookie, readCookie, setCookie } from './cookies.js';

export const SIGN_IN_PATHS = ['/auth/login', '/auth/callback', '/auth/session', '/auth/device', '/auth/device/token'];

const CHECKS_COOKIE = 'propgraph_sign_in';
const SESSION_COOKIE = 'propgraph_session';
/** Time to sign in at the provider. */
const CHECKS_MAX_AGE_S = 600;
/** Time for the console to pick its token up after the callback. */
const SESSION_MAX_AGE_S = 120;
const DEFAULT_RETURN = '/properties';

export interface SignInRouteOptions {
  readonly signIn: SignInService;
  /** The callback URL registered at the provider; unset: this server's URL as the browser used it. */
  readonly redirectUrl: string | undefined;
  readonly consoleEnabled: boolean;
}

interface PendingSignIn extends AuthorizationChecks {
  readonly returnTo: string;
}

/** Only a console page of this server: never another site (an open redirect) nor an API path. */
export function safeReturnPath(value: unknown): string {
  if (typeof value !== 'string' || !value.startsWith('/') || value.startsWith('//') || value.includes('\\') || value.length > 2000) return DEFAULT_RETURN;
  let url: URL;
  try {
    url = new URL(value, 'http://console.invalid');
  } catch {
    return DEFAULT_RETURN;
  }
  if (url.origin !== 'http://console.invalid' || !isConsolePath(url.pathname) || url.pathname.startsWith('/assets/')) return DEFAULT_RETURN;
  return `${url.pathname}${url.search}`;
}

function encodePending(pending: PendingSignIn): string {
  return Buffer.from(JSON.stringify(pending), 'utf8').toString('base64url');
}

function decodePending(value: string | undefined): PendingSignIn | undefined {
  if (!value) return undefined;
  try {
    const parsed = JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as Record<string, unknown>;
    const fields = ['state', 'nonce', 'codeVerifier', 'redirectUri', 'returnTo'] as const;
    if (!fields.every((f) => typeof parsed[f] === 'string')) return undefined;
    return { ...(parsed as unknown as PendingSignIn), returnTo: safeReturnPath(parsed.returnTo) };
  } catch {
    return undefined;
  }
}

/** The console reads the outcome from the fragment, which never reaches a server or a log. */
function backToConsole(reply: FastifyReply, returnTo: string, fragment: string): FastifyReply {
  return reply.header('cache-control', 'no-store').redirect(`${returnTo}#${fragment}`, 303);
}

const signInError = (message: string) => `sign-in-error=${encodeURIComponent(message.slice(0, 500))}`;

export async function signInRoutes(app: FastifyInstance, options: SignInRouteOptions): Promise<void> {
  const { signIn } = options;
  const redirectUri = (request: FastifyRequest) => options.redirectUrl ?? `${request.protocol}://${request.host}/auth/callback`;
  const secure = (request: FastifyRequest) => new URL(redirectUri(request)).protocol === 'https:';

  app.get('/auth/login', async (request, reply) => {
    if (!options.consoleEnabled) {
      return reply.code(404).send({ error: 'Not Found', message: 'The web console is off (CONSOLE_ENABLED=false), so there is no browser sign-in; use `propgraph login`' });
    }
    const returnTo = safeReturnPath((request.query as Record<string, unknown>).returnTo);
    const { url, checks } = await signIn.startBrowserSignIn(redirectUri(request));
    setCookie(reply, CHECKS_COOKIE, encodePending({ ...checks, returnTo }), { path: '/auth/callback', maxAgeSeconds: CHECKS_MAX_AGE_S, sameSite: 'Lax', secure: secure(request) });
    return reply.header('cache-control', 'no-store').redirect(url.href, 302);
  });

  app.get('/auth/callback', async (request, reply) => {
    const pending = decodePending(readCookie(request, CHECKS_COOKIE));
    clearCookie(reply, CHECKS_COOKIE, { path: '/auth/callback', sameSite: 'Lax', secure: secure(request) });
    if (!pending) return backToConsole(reply, DEFAULT_RETURN, signInError('The sign-in expired or began in another browser. Sign in again.'));
    let signedIn: SignedIn;
    try {
      signedIn = await signIn.finishBrowserSignIn(new URL(request.url, 'http://callback.invalid'), pending);
    } catch (err) {
      if (err instanceof ServiceError) return backToConsole(reply, pending.returnTo, signInError(err.message));
      throw err;
    }
    setCookie(reply, SESSION_COOKIE, signedIn.token.token, { path: '/auth/session', maxAgeSeconds: SESSION_MAX_AGE_S, sameSite: 'Strict', secure: secure(request) });
    return backToConsole(reply, pending.returnTo, 'signed-in');
  });

  app.post('/auth/session', async (request, reply) => {
    const token = readCookie(request, SESSION_COOKIE);
    clearCookie(reply, SESSION_COOKIE, { path: '/auth/session', sameSite: 'Strict', secure: secure(request) });
    reply.header('cache-control', 'no-store');
    if (!token) return reply.code(404).send({ error: 'Not Found', message: 'No sign-in to pick up: it was picked up already or is older than two minutes. Sign in again.' });
    return { accessToken: token };
  });

  app.post('/auth/device', async (_request, reply) => {
    const started = await signIn.startDeviceSignIn();
    return reply.header('cache-control', 'no-store').send(started);
  });

  app.post('/auth/device/token', async (request, reply) => {
    const body = (request.body ?? {}) as Record<string, unknown>;
    const poll = await signIn.pollDeviceSignIn(body.deviceCode, body.name);
    reply.header('cache-control', 'no-store');
    // RFC 8628's answers, in this server's error shape: the `error` is the OAuth code.
    switch (poll.state) {
      case 'pending':
        return reply.code(400).send({ error: 'authorization_pending', message: 'Waiting for the sign-in to be approved at the provider' });
      case 'slow_down':
        return reply.code(400).send({ error: 'slow_down', message: 'Polling too often: wait 5 seconds longer between polls' });
      case 'expired':
        return reply.code(400).send({ error: 'expired_token', message: 'The code expired before it was approved: run `propgraph login` again' });
      case 'denied':
        return reply.code(400).send({ error: 'access_denied', message: `The sign-in was declined: ${poll.reason}` });
      case 'signed_in': {
        const { person, token } = poll.signedIn;
        return { accessToken: token.token, metadata: token.metadata, person: { urn: person.urn, scope: person.scope, name: person.name } };
      }
    }
  });
}
