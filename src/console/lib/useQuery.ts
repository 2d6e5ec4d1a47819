/**
 * Runs a GraphQL query when its variables change; `reload` runs it again, and `poll`
 * (milliseconds) runs it again on its own while the page is visible, keeping what it
 * shows until the new answer comes (the compliance pages follow the evaluator so).
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import type { TypedDocumentString } from '../generated/graphql';
import { messageOf, request } from './api';

export interface QueryState<R> {
  readonly data: R | null;
  readonly error: string | null;
  readonly loading: boolean;
  reload(): void;
}

export function useQuery<R, V>(document: TypedDocumentString<R, V>, variables: V, options: { skip?: boolean; poll?: number } = {}): QueryState<R> {
  const key = JSON.stringify(variables);
  const [state, setState] = useState<{ data: R | null; error: string | null; loading: boolean }>({ data: null, error: null, loading: !options.skip });
  const [generation, setGeneration] = useState(0);
  const latest = useRef(0);
  useEffect(() => {
    if (options.skip) return;
    const ticket = ++latest.current;
    setState((s) => ({ ...s, loading: true }));
    request(document, JSON.parse(key) as V)
      .then((data) => ticket === latest.current && setState({ data, error: null, loading: false }))
      .catch((err: unknown) => ticket === latest.current && setState({ data: null, error: messageOf(err), loading: false }));
  }, [document, key, generation, options.skip]);
  const reload = useCallback(() => setGeneration((g) => g + 1), []);
  useEffect(() => {
    if (options.skip || !options.poll) return;
    const timer = setInterval(() => {
      if (globalThis.document.visibilityState === 'visible') reload();
    }, options.poll);
    return () => clearInterval(timer);
  }, [options.skip, options.poll, reload]);
  return { ...state, reload };
}
