/**
 * Sign in: through the server's OpenID provider when it has one ("Sign in with …"),
 * or with an access token, which the server trades for this browser's session (the
 * token itself is kept nowhere); the server's reason is shown when it refuses either.
 */
import { useState, useSyncExternalStore, type FormEvent } from 'react';
import { session, signInProvider, signInUrl, signInWithToken } from '../lib/session';
import { ErrorMessage } from '../components/Messages';

export function SignIn() {
  const [token, setToken] = useState('');
  // The reason the session ended, or the sign-in was refused, may arrive after the page does.
  useSyncExternalStore(session.subscribe, session.snapshot);
  const [refused, setRefused] = useState<string | null>(null);
  const error = refused ?? session.reason();
  const [busy, setBusy] = useState(false);
  const provider = signInProvider();

  async function submit(event: FormEvent) {
    event.preventDefault();
    const value = token.trim();
    if (!value) {
      setRefused('Enter an access token.');
      return;
    }
    setBusy(true);
    const refusal = await signInWithToken(value);
    if (refusal) {
      setRefused(`${refusal}. Check the token, or ask an administrator for a new one.`);
      setBusy(false);
    }
  }

  return (
    <main id="main" className="sign-in">
      <h1>Sign in to the propgraph console</h1>
      {provider && (
        <>
          <p>
            <a className="button" href={signInUrl()}>
              Sign in with {provider}
            </a>
          </p>
          <h2>Or use an access token</h2>
        </>
      )}
      <p>
        Use an access token (an administrator issues them; on a fresh server the root token is in <code>data/root-token</code>). This browser stays
        signed in, in every tab, until you sign out or close it; the token itself is not kept.
      </p>
      <form onSubmit={submit} noValidate>
        <label htmlFor="token">Access token</label>
        <input id="token" name="token" type="password" autoComplete="off" value={token} onChange={(e) => setToken(e.target.value)} aria-describedby={error ? 'sign-in-error' : undefined} />
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      <div id="sign-in-error">{error && <ErrorMessage title="Not signed in.">{error}</ErrorMessage>}</div>
    </main>
  );
}
