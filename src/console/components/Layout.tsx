/** The frame of every signed-in page: skip link, navigation, who is signed in. */
import type { ReactNode } from 'react';
import { displayNameOf } from '../../domain/principal.js';
import { Link } from '../lib/router';
import { signOutEverywhere, type Me } from '../lib/session';

/** Who is signed in, as the header says it: a person, or a machine token's or the system's principal. */
const KIND: Record<Me['corpUser']['principalType'], string> = { PERSON: '', MACHINE: 'machine token, ', SYSTEM: 'system, ' };

const SECTIONS = [
  { href: '/properties', label: 'Properties' },
  { href: '/search', label: 'Search' },
  { href: '/tests', label: 'Tests' },
  { href: '/csv', label: 'CSV' },
  { href: '/policies', label: 'Policies' },
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
            {displayNameOf(me.corpUser.urn)}{' '}
            <span className="scope">
              ({KIND[me.corpUser.principalType]}
              {me.scope.toLowerCase()} access)
            </span>
          </span>
          {/* Without authentication (AUTH_ENABLED=false) there is no session to end. */}
          {me.tokenId && (
            <button type="button" className="secondary" onClick={() => void signOutEverywhere()}>
              Sign out
            </button>
          )}
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        {children}
      </main>
    </>
  );
}
