/**
 * The work of graphql-js's field-merging check (OverlappingFieldsCanBeMerged), estimated in
 * one linear pass before it runs. The check compares every pair of fields that share a
 * response name in one selection set: quadratic, so a document inside the token limit that
 * spells `dataset(urn: ...) { urn }` a thousand times holds the server while graphql-js
 * compares 500,000 pairs (it gives up at its own budget with "Validation aborted.", after
 * a third of a second). The estimate follows what graphql-js compares and what it caches:
 * - in each selection set as written (its inline fragments included), every pair of its
 *   own fields of one name;
 * - its own fields against those of each fragment it spreads (once per set and fragment);
 * - the fields of two fragments merged into one set: once per pair of fragments in the
 *   whole document, as graphql-js remembers the pairs it compared.
 * What is counted is what is spelled: Apollo Client's `__typename` in every set and
 * fragments spread at many levels cost a few thousand comparisons (DataHub's app's pages:
 * at most about 6,400), a field repeated hundreds of times in one set hundreds of thousands.
 */
import { BREAK, Kind, visit, type DocumentNode, type FragmentDefinitionNode, type SelectionSetNode } from 'graphql';

type Fragments = (name: string) => FragmentDefinitionNode | null | undefined;

export interface MergeWork {
  /** Comparisons counted, up to a little past the limit (the count stops there). */
  readonly comparisons: number;
  /** The response name spelled most often in one selection set where the count passed the limit. */
  readonly field: string;
  readonly spellings: number;
}

/** A set's own fields by response name (inline fragments flattened) and the fragments it spreads, in order. */
interface Own {
  readonly counts: Map<string, number>;
  readonly spreads: string[];
}

function own(set: SelectionSetNode): Own {
  const counts = new Map<string, number>();
  const spreads: string[] = [];
  const add = (s: SelectionSetNode): void => {
    for (const selection of s.selections) {
      if (selection.kind === Kind.FIELD) {
        const name = selection.alias?.value ?? selection.name.value;
        counts.set(name, (counts.get(name) ?? 0) + 1);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) add(selection.selectionSet);
      else if (!spreads.includes(selection.name.value)) spreads.push(selection.name.value);
    }
  };
  add(set);
  return { counts, spreads };
}

/** Pairs of same-named fields between two sets of counts. */
function crossPairs(a: ReadonlyMap<string, number>, b: ReadonlyMap<string, number>): number {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let pairs = 0;
  for (const [name, n] of small) pairs += n * (large.get(name) ?? 0);
  return pairs;
}

export function mergeComparisons(document: DocumentNode, fragments: Fragments, limit: number): MergeWork {
  const owns = new Map<string, Own>();
  const ownOf = (name: string): Own | undefined => {
    let found = owns.get(name);
    if (!found) {
      const definition = fragments(name);
      if (!definition) return undefined;
      owns.set(name, (found = own(definition.selectionSet)));
    }
    return found;
  };
  /** A fragment's fields with those of the fragments it spreads, transitively (cycles are graphql's own rule to report). */
  const merged = new Map<string, Map<string, number>>();
  const mergedOf = (name: string, path: Set<string> = new Set()): Map<string, number> => {
    const known = merged.get(name);
    if (known) return known;
    const o = ownOf(name);
    if (!o || path.has(name)) return new Map();
    path.add(name);
    const counts = new Map(o.counts);
    for (const next of o.spreads) for (const [field, n] of mergedOf(next, path)) counts.set(field, (counts.get(field) ?? 0) + n);
    path.delete(name);
    merged.set(name, counts);
    return counts;
  };
  /** Every fragment merged into a set through its spreads, each once. */
  const reached = (spreads: readonly string[]): string[] => {
    const out: string[] = [];
    const go = (name: string): void => {
      // Past the limit of fragments in one set the walk (limits.ts) refuses the document anyway.
      if (out.includes(name) || out.length > 64) return;
      const o = ownOf(name);
      if (!o) return;
      out.push(name);
      for (const next of o.spreads) go(next);
    };
    for (const name of spreads) go(name);
    return out;
  };

  const comparedFragments = new Set<string>();
  let comparisons = 0;
  let worst = { field: '', spellings: 0 };
  const note = (counts: ReadonlyMap<string, number>): void => {
    for (const [field, n] of counts) if (n > worst.spellings) worst = { field, spellings: n };
  };

  visit(document, {
    SelectionSet(node, _key, parent) {
      // An inline fragment's fields were counted with the set that holds it.
      if (comparisons > limit) return BREAK;
      if (parent && !Array.isArray(parent) && (parent as { kind?: string }).kind === Kind.INLINE_FRAGMENT) return undefined;
      const o = own(node);
      for (const n of o.counts.values()) comparisons += (n * (n - 1)) / 2;
      for (const name of o.spreads) comparisons += crossPairs(o.counts, mergedOf(name));
      const all = reached(o.spreads);
      for (let i = 0; i < all.length && comparisons <= limit; i++) {
        for (let j = i + 1; j < all.length; j++) {
          const key = all[i]! < all[j]! ? `${all[i]}\u0000${all[j]}` : `${all[j]}\u0000${all[i]}`;
          if (comparedFragments.has(key)) continue;
          comparedFragments.add(key);
          comparisons += crossPairs(ownOf(all[i]!)!.counts, ownOf(all[j]!)!.counts);
        }
      }
      if (comparisons > limit) {
        const counts = new Map(o.counts);
        for (const name of all) for (const [field, n] of ownOf(name)!.counts) counts.set(field, (counts.get(field) ?? 0) + n);
        note(counts);
      }
      return undefined;
    },
  });
  return { comparisons, ...worst };
}
