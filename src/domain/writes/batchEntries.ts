/**
 * DataHub's clients send one batch item per aspect (`emit_mcps` in OpenAPI mode), so
 * one URN can appear in several items of one batch. The write path takes at most one
 * request per aspect of each entity; these rules turn such a batch into one entry per
 * entity, in first-appearance order, each aspect's requests combined in order.
 */

export interface BatchEntry<T> {
  /** The canonical URN (as parsed), so spellings of one entity meet. */
  readonly urn: string;
  readonly aspects: ReadonlyMap<string, T>;
}

/**
 * Merges entries of the same URN. `combine(earlier, later)` says what two requests for
 * the same aspect amount to when applied one after the other.
 */
export function mergeBatchEntries<T>(entries: readonly BatchEntry<T>[], combine: (earlier: T, later: T) => T): Array<{ urn: string; aspects: Map<string, T> }> {
  const merged = new Map<string, Map<string, T>>();
  for (const { urn, aspects } of entries) {
    let into = merged.get(urn);
    if (!into) merged.set(urn, (into = new Map()));
    for (const [name, request] of aspects) {
      const earlier = into.get(name);
      into.set(name, earlier === undefined ? request : combine(earlier, request));
    }
  }
  return [...merged].map(([urn, aspects]) => ({ urn, aspects }));
}

/** A replacing write applied after another leaves only its own value. */
export const laterReplaces = <T>(_earlier: T, later: T): T => later;

/** Patches of one aspect sent one after the other apply in that order; the later system metadata is kept. */
export function patchesInOrder<P, T extends { readonly patches: readonly P[]; readonly systemMetadata?: Record<string, unknown> }>(earlier: T, later: T): T {
  const systemMetadata = later.systemMetadata ?? earlier.systemMetadata;
  return { ...later, patches: [...earlier.patches, ...later.patches], ...(systemMetadata ? { systemMetadata } : {}) };
}
