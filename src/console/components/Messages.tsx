/** Errors and confirmations, announced to screen readers as they appear. */
import type { ReactNode } from 'react';

export function ErrorMessage({ children, title }: { children: ReactNode; title?: string }) {
  if (!children) return null;
  return (
    <div className="message message-error" role="alert">
      {title && <strong>{title} </strong>}
      {children}
    </div>
  );
}

export function StatusMessage({ children }: { children: ReactNode }) {
  return (
    <div className="message message-status" role="status">
      {children}
    </div>
  );
}

export function Loading({ what }: { what: string }) {
  return <p className="loading" role="status">Loading {what}…</p>;
}
