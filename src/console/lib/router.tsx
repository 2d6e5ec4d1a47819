/**
 * Client-side routes on the History API: the address bar always holds the page and
 * its state (a search's words and filters), so any view can be shared as a link.
 */
import { useEffect, useState, type AnchorHTMLAttributes, type MouseEvent } from 'react';

const EVENT = 'propgraph:navigate';

export interface Location {
  readonly path: string;
  readonly params: URLSearchParams;
}

function current(): Location {
  return { path: window.location.pathname, params: new URLSearchParams(window.location.search) };
}

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (options.replace) window.history.replaceState(null, '', to);
  else window.history.pushState(null, '', to);
  window.dispatchEvent(new Event(EVENT));
  if (!options.replace) window.scrollTo(0, 0);
}

export function useLocation(): Location {
  const [location, setLocation] = useState(current);
  useEffect(() => {
    const update = () => setLocation(current());
    window.addEventListener('popstate', update);
    window.addEventListener(EVENT, update);
    return () => {
      window.removeEventListener('popstate', update);
      window.removeEventListener(EVENT, update);
    };
  }, []);
  return location;
}

export function Link({ href, onClick, ...rest }: AnchorHTMLAttributes<HTMLAnchorElement> & { href: string }) {
  const follow = (event: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(event);
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(href);
  };
  return <a href={href} onClick={follow} {...rest} />;
}

export const propertyPath = (urn: string) => `/properties/${encodeURIComponent(urn)}`;
export const entityPath = (urn: string) => `/entity/${encodeURIComponent(urn)}`;
export const testPath = (urn: string) => `/tests/${encodeURIComponent(urn)}`;
