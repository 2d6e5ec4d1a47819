/**
 * Which display names several properties share (issue #41: the demo's "Tier" and a
 * steward's "Tier" could not be told apart), read once for the whole catalogue, so that
 * every page names such a property with its qualified name beside it: `Tier
 * (acme.governance.tier)`. Soft-deleted properties count, since history still shows them.
 */
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { PropertyNamesDocument, type DefinitionFragment } from '../generated/graphql';
import { request } from './api';

export interface PropertyName {
  readonly urn: string;
  readonly qualifiedName: string;
  readonly displayName: string | null;
}

interface Names {
  readonly names: readonly PropertyName[];
  /** Display names (trimmed, any case) that more than one property has. */
  readonly shared: ReadonlySet<string>;
  /** Reads the names again (after a definition is saved). */
  refresh(): void;
}

const PAGE = 1000;
const nameKey = (displayName: string): string => displayName.trim().toLowerCase();

const NamesContext = createContext<Names>({ names: [], shared: new Set(), refresh: () => undefined });

async function readNames(): Promise<PropertyName[]> {
  const out: PropertyName[] = [];
  let scrollId: string | null | undefined;
  do {
    const page = await request(PropertyNamesDocument, {
      input: { types: ['STRUCTURED_PROPERTY'], query: '*', count: PAGE, searchFlags: { includeSoftDeleted: true }, ...(scrollId ? { scrollId } : {}) },
    });
    for (const r of page.scrollAcrossEntities?.searchResults ?? []) {
      if ('definition' in r.entity && r.entity.definition) out.push({ urn: r.entity.urn, qualifiedName: r.entity.definition.qualifiedName, displayName: r.entity.definition.displayName ?? null });
    }
    scrollId = page.scrollAcrossEntities?.nextScrollId;
  } while (scrollId);
  return out;
}

export function PropertyNamesProvider({ children }: { children: ReactNode }) {
  const [names, setNames] = useState<PropertyName[]>([]);
  const [generation, setGeneration] = useState(0);
  useEffect(() => {
    let current = true;
    // Without the names a page still works: labels are then the display names alone.
    readNames()
      .then((n) => current && setNames(n))
      .catch(() => undefined);
    return () => {
      current = false;
    };
  }, [generation]);
  const refresh = useCallback(() => setGeneration((g) => g + 1), []);
  const value = useMemo(() => {
    const seen = new Map<string, number>();
    for (const n of names) if (n.displayName?.trim()) seen.set(nameKey(n.displayName), (seen.get(nameKey(n.displayName)) ?? 0) + 1);
    return { names, shared: new Set([...seen].filter(([, count]) => count > 1).map(([key]) => key)), refresh };
  }, [names, refresh]);
  return <NamesContext.Provider value={value}>{children}</NamesContext.Provider>;
}

export const usePropertyNames = (): Names => useContext(NamesContext);

type Named = Pick<DefinitionFragment, 'displayName' | 'qualifiedName'>;

/** A property's name as people should read it: the display name, qualified when another property shares it. */
export function labelOf(d: Named, shared: ReadonlySet<string>): string {
  if (!d.displayName) return d.qualifiedName;
  return shared.has(nameKey(d.displayName)) ? `${d.displayName} (${d.qualifiedName})` : d.displayName;
}

/** `label(definition)` for the page's properties. */
export function usePropertyLabel(): (d: Named) => string {
  const { shared } = usePropertyNames();
  return useCallback((d: Named) => labelOf(d, shared), [shared]);
}

/** The other properties a display name being written would share its name with. */
export function sameDisplayName(names: readonly PropertyName[], displayName: string, ownQualifiedName: string): PropertyName[] {
  if (!displayName.trim()) return [];
  return names.filter((n) => n.qualifiedName !== ownQualifiedName && n.displayName && nameKey(n.displayName) === nameKey(displayName));
}
