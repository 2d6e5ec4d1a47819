/**
 * The access token, kept for this browser tab's session only (sessionStorage), and
 * who it belongs to. A 401 from the API signs out with the server's reason.
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
