/**
 * The access token, kept for this browser tab's session only (sessionStorage), and
 * who it belongs to. A 401 from the API signs out with the server's reason.
 *
 * With an OpenID provider configured (the page's <meta name="propgraph-sign-in">),
 * people sign in at the provider: /auth/login sends the browser there, the server
 * redeems the code, and sends the browser back to the page it left with `#signed-in`;
 * the session token then waits in a cookie only POST /auth/session reads, once. A
 * refused sign-in comes back as `#sign-in-error=<reason>`.
 */
import type { MeQuery } from '../generated/graphql';

const KEY = 'propgraph.console.token';

export type Me = MeQuery['me'];

type Listener = () => void;
const listeners = new Set<Listener>();
let signedOutReason: string | null = null;

export const session = {
  token(): string | null {
    return sessionStorage.getItem(KEY);
  },
  signIn(token: string): void {
    sessionStorage.setItem(KEY, token);
    signedOutReason = null;
    listeners.forEach((l) => l());
  },
  signOut(reason: string | null = null): void {
    sessionStorage.removeItem(KEY);
    signedOutReason = reason;
    listeners.forEach((l) => l());
  },
  /** Why the last session ended (an expired or revoked token), if it did not end by choice. */
  reason(): string | null {
    return signedOutReason;
  },
  subscribe(listener: Listener): () => void {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
};

const SIGNED_IN = '#signed-in';
const SIGN_IN_ERROR = '#sign-in-error=';

/** The OpenID provider's name when the server offers sign-in through one. */
export function signInProvider(): string | null {
  return document.querySelector<HTMLMetaElement>('meta[name="propgraph-sign-in"]')?.content || null;
}

/** Where the provider's button goes: sign in, then come back to this page. */
export function signInUrl(): string {
  const here = window.location.pathname === '/' ? '/properties' : `${window.location.pathname}${window.location.search}`;
  return `/auth/login?returnTo=${encodeURIComponent(here)}`;
}

/**
 * Reads what the sign-in's callback left in the address bar, and removes it from there
 * (and so from the tab's history): true when a session waits to be picked up; a refusal
 * becomes the reason the sign-in page shows.
 */
export function takeSignInOutcome(): boolean {
  // Once per page load: React may call a state initializer twice.
  taken ??= readOutcome();
  return taken;
}

let taken: boolean | undefined;

function readOutcome(): boolean {
  const hash = window.location.hash;
  if (hash !== SIGNED_IN && !hash.startsWith(SIGN_IN_ERROR)) return false;
  history.replaceState(history.state, '', `${window.location.pathname}${window.location.search}`);
  if (hash === SIGNED_IN) return true;
  signedOutReason = decodeURIComponent(hash.slice(SIGN_IN_ERROR.length));
  return false;
}

/** Picks up the session token the sign-in left for this page (once), and signs in with it. */
export async function pickUpSignIn(): Promise<void> {
  let body: { accessToken?: unknown; message?: unknown } = {};
  let ok = false;
  try {
    const response = await fetch('/auth/session', { method: 'POST', credentials: 'same-origin', headers: { accept: 'application/json' } });
    ok = response.ok;
    body = (await response.json()) as typeof body;
  } catch {
    body = { message: 'The server could not be reached to finish signing in. Sign in again.' };
  }
  if (ok && typeof body.accessToken === 'string') session.signIn(body.accessToken);
  else session.signOut(typeof body.message === 'string' ? body.message : 'The sign-in could not be finished. Sign in again.');
}
