/**
 * Sign-in routes for people (issue #30), served when an OpenID provider is configured.
 *
 * The console (authorization code with PKCE, run here, so the client secret never
 * reaches the browser):
 *   GET  /auth/login?returnTo=/path  the browser goes to the provider; the PKCE verifier,
 *                                    state and nonce ride in a cookie only the callback reads
 *   GET  /auth/callback              the provider sends the browser back; the code is
 *                                    redeemed, the person let in, and a session token
 *                                    issued into the browser session cookie
 *                                    (browserSession.ts): signed in, in every tab
 *   GET  /auth/sign-in-error         why the last sign-in failed, once (the callback
 *                                    sends only a code in the address: domain/signInErrors.ts)
 *
 * The CLI (device authorization grant, also run here with the client's credentials):
 *   POST /auth/device                a user code and where to enter it
 *   POST /auth/device/token          one poll: pending, or the person's session token
 *
 * The session token is an ordinary access token (kind `session`, owned by the person):
 * every API request after sign-in is authenticated like any other.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ForbiddenError, ServiceError, UnauthorizedError, UnavailableError } from '../domain/errors.js';
import { isSignInErrorCode, type SignInErrorCode } from '../domain/signInErrors.js';
import type { AuthorizationChecks } from '../identity/openIdProvider.js';
import type { SignInService, SignedIn } from '../services/signInService.js';
import { isConsolePath } from '../web/console.js';
import { startBrowserSession } from './browserSession.js';
import { clearCookie, readCookie, setCookie } from './cookies.js';

const ERROR_PATH = '/auth/sign-in-error';
export const SIGN_IN_PATHS = ['/auth/login', '/auth/callback', ERROR_PATH, '/auth/device', '/auth/device/token'];

const CHECKS_COOKIE = 'propgraph_sign_in';
const ERROR_COOKIE = 'propgraph_sign_in_error';
/** Time to sign in at the provider. */
const CHECKS_MAX_AGE_S = 600;
/** Time for the console to read why its sign-in failed. */
const ERROR_MAX_AGE_S = 120;
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

function backToConsole(reply: FastifyReply, location: string): FastifyReply {
  return reply.header('cache-control', 'no-store').redirect(location, 303);
}

/** The code a refused sign-in shows as, by the error's class. */
function errorCodeOf(err: ServiceError): SignInErrorCode {
  if (err instanceof ForbiddenError) return 'not-let-in';
  if (err instanceof UnauthorizedError) return 'refused';
  if (err instanceof UnavailableError) return 'unavailable';
  return 'failed';
}

function decodeFailure(value: string | undefined): { code: SignInErrorCode; message: string } | undefined {
  if (!value) return undefined;
  try {
    const parsed = JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as Record<string, unknown>;
    return isSignInErrorCode(parsed.code) && typeof parsed.message === 'string' ? { code: parsed.code, message: parsed.message } : undefined;
  } catch {
    return undefined;
  }
}

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

  /** Back to the console with only a code in the address; the server's reason waits for GET /auth/sign-in-error. */
  const failedSignIn = (request: FastifyRequest, reply: FastifyReply, returnTo: string, code: SignInErrorCode, message: string) => {
    const detail = Buffer.from(JSON.stringify({ code, message: message.slice(0, 1000) }), 'utf8').toString('base64url');
    setCookie(reply, ERROR_COOKIE, detail, { path: ERROR_PATH, maxAgeSeconds: ERROR_MAX_AGE_S, sameSite: 'Lax', secure: secure(request) });
    return backToConsole(reply, `${returnTo}#sign-in-error=${code}`);
  };

  app.get('/auth/callback', async (request, reply) => {
    const pending = decodePending(readCookie(request, CHECKS_COOKIE));
    clearCookie(reply, CHECKS_COOKIE, { path: '/auth/callback', sameSite: 'Lax', secure: secure(request) });
    if (!pending) return failedSignIn(request, reply, DEFAULT_RETURN, 'expired', 'The sign-in expired or began in another browser. Sign in again.');
    let signedIn: SignedIn;
    try {
      signedIn = await signIn.finishBrowserSignIn(new URL(request.url, 'http://callback.invalid'), pending);
    } catch (err) {
      if (err instanceof ServiceError) return failedSignIn(request, reply, pending.returnTo, errorCodeOf(err), err.message);
      throw err;
    }
    startBrowserSession(reply, signedIn.token.token, { secure: secure(request) });
    return backToConsole(reply, pending.returnTo);
  });

  app.get(ERROR_PATH, async (request, reply) => {
    const stored = readCookie(request, ERROR_COOKIE);
    clearCookie(reply, ERROR_COOKIE, { path: ERROR_PATH, sameSite: 'Lax', secure: secure(request) });
    reply.header('cache-control', 'no-store');
    const failure = decodeFailure(stored);
    if (!failure) return reply.code(404).send({ error: 'Not Found', message: 'No failed sign-in to report: it was read already or is older than two minutes.' });
    return failure;
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
