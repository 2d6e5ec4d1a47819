/** The frame of every signed-in page: skip link, navigation, who is signed in. */
import type { ReactNode } from 'react';
import { EndSessionDocument } from '../generated/graphql';
import { request } from '../lib/api';
import { Link } from '../lib/router';
import { session, type Me } from '../lib/session';

/** Signing out ends a sign-in's session on the server too; a pasted token stays valid (it may be used elsewhere). */
async function signOut(me: Me): Promise<void> {
  if (me.tokenType === 'SESSION' && me.tokenId) await request(EndSessionDocument, { tokenId: me.tokenId }).catch(() => undefined);
  session.signOut();
}

const SECTIONS = [
  { href: '/properties', label: 'Properties' },
  { href: '/search', label: 'Search' },
  { href: '/tests', label: 'Tests' },
  { href: '/csv', label: 'CSV' },
];

export function Layout({ me, path, children }: { me: Me; path: string; children: ReactNode }) {
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="top">
        <span className="brand">propgraph console</span>
        <nav aria-label="Sections">
          <ul>
            {SECTIONS.map((s) => (
              <li key={s.href}>
                <Link href={s.href} aria-current={path.startsWith(s.href) ? 'page' : undefined}>
                  {s.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <div className="who">
          <span>
            {me.corpUser.username} <span className="scope">({me.scope.toLowerCase()} access)</span>
          </span>
          <button type="button" className="secondary" onClick={() => void signOut(me)}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        {children}
      </main>
    </>
  );
}
