/**
 * Whether this browser is signed in (issue #41). The console holds no secret: signing
 * in, through the OpenID provider or with an access token traded at POST /auth/session,
 * leaves an HttpOnly session cookie that the browser sends with every request to this
 * server, from every tab, and that no script can read. The console learns who it is
 * from `me`; a 401 means signed out. Tabs tell each other when they sign in or out (a
 * BroadcastChannel), and the server's revocation covers a tab that did not hear it: its
 * next request is refused.
 *
 * A refused sign-in through the provider comes back as `#sign-in-error=<code>`: only a
 * code from domain/signInErrors.ts is read, and shown as that code's own sentence; the
 * server's reason is fetched from GET /auth/sign-in-error, which only the server can
 * have set (docs/security.md).
 */
import { isSignInErrorCode, SIGN_IN_ERRORS } from '../../domain/signInErrors.js';
import type { MeQuery } from '../generated/graphql';

export type Me = MeQuery['me'];

type Listener = () => void;
const listeners = new Set<Listener>();
/** Bumped at every sign-in and sign-out: the key the app reloads `me` on. */
let epoch = 0;
let signedOut = false;
/** Whether `me` answered since the last sign-in: a 401 then is a session that ended, worth a reason. */
let confirmed = false;
let signedOutReason: string | null = null;

const channel = typeof BroadcastChannel === 'undefined' ? null : new BroadcastChannel('propgraph-console-session');
type SessionNews = 'signed-in' | 'signed-out';

function changed(): void {
  epoch++;
  listeners.forEach((l) => l());
}

export const session = {
  /** Changes whenever the sign-in state does (for useSyncExternalStore). */
  snapshot(): number {
    return epoch;
  },
  isSignedOut(): boolean {
    return signedOut;
  },
  /** `me` answered: the browser is signed in. */
  confirm(): void {
    confirmed = true;
  },
  /** This tab signed in: every tab asks `me` again. */
  signedIn(): void {
    signedOut = false;
    confirmed = false;
    signedOutReason = null;
    channel?.postMessage('signed-in' satisfies SessionNews);
    changed();
  },
  /**
   * Signed out: by choice (reason null; every tab is told), or because the server refused
   * the session (its reason is shown when the session had been working).
   */
  signOut(reason: string | null = null): void {
    if (reason === null) channel?.postMessage('signed-out' satisfies SessionNews);
    markSignedOut(confirmed ? reason : signedOutReason);
  },
  /** Why the last session ended (an expired or revoked one, a refused sign-in), if it did not end by choice. */
  reason(): string | null {
    return signedOutReason;
  },
  subscribe(listener: Listener): () => void {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
};

function markSignedOut(reason: string | null): void {
  signedOut = true;
  confirmed = false;
  signedOutReason = reason;
  changed();
}

channel?.addEventListener('message', (event: MessageEvent<unknown>) => {
  if (event.data === 'signed-out') markSignedOut(null);
  else if (event.data === 'signed-in') {
    signedOut = false;
    signedOutReason = null;
    changed();
  }
});

/** The OpenID provider's name when the server offers sign-in through one. */
export function signInProvider(): string | null {
  return document.querySelector<HTMLMetaElement>('meta[name="propgraph-sign-in"]')?.content || null;
}

/** Where the provider's button goes: sign in, then come back to this page. */
export function signInUrl(): string {
  const here = window.location.pathname === '/' ? '/properties' : `${window.location.pathname}${window.location.search}`;
  return `/auth/login?returnTo=${encodeURIComponent(here)}`;
}

const SIGN_IN_ERROR = '#sign-in-error=';

/**
 * Reads what a refused sign-in left in the address bar, once per page load, and removes
 * it from there (and so from the tab's history): a known code becomes the reason the
 * sign-in page shows, with the server's own words when it has them; anything else in
 * the fragment is never shown.
 */
export function takeSignInOutcome(): void {
  if (taken) return;
  taken = true;
  const hash = window.location.hash;
  if (!hash.startsWith(SIGN_IN_ERROR)) return;
  history.replaceState(history.state, '', `${window.location.pathname}${window.location.search}`);
  const code = hash.slice(SIGN_IN_ERROR.length);
  if (!isSignInErrorCode(code)) return;
  signedOutReason = SIGN_IN_ERRORS[code];
  void serverReason(code).then((detail) => {
    if (detail && signedOutReason === SIGN_IN_ERRORS[code]) {
      signedOutReason = `${SIGN_IN_ERRORS[code]} ${detail}`;
      changed();
    }
  });
}

let taken = false;

/** The server's reason for the sign-in it refused (HttpOnly, set only by its callback); null when it has none. */
async function serverReason(code: string): Promise<string | null> {
  try {
    const response = await fetch('/auth/sign-in-error', { headers: { accept: 'application/json' } });
    if (!response.ok) return null;
    const body = (await response.json()) as { code?: unknown; message?: unknown };
    return body.code === code && typeof body.message === 'string' ? body.message : null;
  } catch {
    return null;
  }
}

/** Trades an access token for this browser's session (all its tabs); the server's reason when it refuses. */
export async function signInWithToken(token: string): Promise<string | null> {
  let response: Response;
  try {
    response = await fetch('/auth/session', { method: 'POST', headers: { accept: 'application/json', authorization: `Bearer ${token}`, 'x-propgraph-client': 'console' } });
  } catch {
    return 'The server could not be reached. Check that it is running and try again.';
  }
  if (response.ok) {
    session.signedIn();
    return null;
  }
  const body = (await response.json().catch(() => ({}))) as { message?: unknown };
  return typeof body.message === 'string' ? body.message : `The server answered ${response.status} ${response.statusText}`;
}

/** Ends this browser's session on the server, so every tab is signed out. */
export async function signOutEverywhere(): Promise<void> {
  await fetch('/auth/sign-out', { method: 'POST', headers: { 'x-propgraph-client': 'console' } }).catch(() => undefined);
  session.signOut();
}
