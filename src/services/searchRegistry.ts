/**
 * The property registry as searches see it: field names resolve to registry entries
 * through a per-process cache, and a search runs against a registry that is current
 * (docs/search.md, "How fresh the registry is"): a change committed through this
 * process is seen by the next search at once, one committed elsewhere within
 * `recheckMs`, after which the registry's change counter is read alongside the search.
 */
import type { Db } from '../store/database.js';
import { findPropertiesBySearchField, listSearchFields, type RegisteredProperty, type RegistryEpochReader } from '../store/propertyRegistry.js';
import type { LocalRegistryChanges } from './localRegistryChanges.js';

/** The registry epoch a search's field resolution relied on (null: it named no property). */
export interface LookupEpoch {
  epoch: bigint | null;
}

/** The registry entries searches have looked up, valid while the change counter stays at `epoch` (null: names no property). */
interface RegistryCache {
  epoch: bigint;
  fields: Map<string, RegisteredProperty | null>;
}

/** The database confirmed, when `at` (performance.now()) was, that the registry was at `epoch`. */
interface Confirmed {
  at: number;
  epoch: bigint;
  /** The count of this process's registry changes when the confirmation was asked for. */
  localChanges: number;
}

export interface SearchRegistryDeps {
  readonly db: Db;
  /** Reads the registry's change counter (a tiny query made beside many searches). */
  readonly epoch: RegistryEpochReader;
  /** How long (ms) the cache may be used without asking whether another process changed the registry; 0 asks every time. */
  readonly recheckMs: number;
  /** The registry changes this process has committed. */
  readonly localChanges: LocalRegistryChanges;
}

export class SearchRegistry {
  private cache: RegistryCache = { epoch: -1n, fields: new Map() };
  private confirmed: Confirmed | null = null;

  constructor(private readonly deps: SearchRegistryDeps) {}

  /**
   * Registry entries for the fields, from the cache when it has them all; otherwise
   * read (the counter first, so a change racing the read makes the cache stale, never
   * wrongly current). Whether a cached answer was still current is checked by
   * `withCurrentRegistry`, alongside the engine query.
   */
  async lookup(searchFields: readonly string[], used: LookupEpoch): Promise<Map<string, RegisteredProperty>> {
    let cache = this.cache;
    if (!searchFields.every((f) => cache.fields.has(f))) {
      const epoch = await this.deps.epoch();
      const found = await findPropertiesBySearchField(this.deps.db, searchFields);
      if (epoch !== cache.epoch) cache = { epoch, fields: new Map() };
      for (const f of searchFields) cache.fields.set(f, found.get(f) ?? null);
      if (cache.fields.size > 10_000) cache.fields = new Map(searchFields.map((f) => [f, found.get(f) ?? null]));
      this.cache = cache;
    }
    if (searchFields.length > 0) used.epoch = cache.epoch;
    const out = new Map<string, RegisteredProperty>();
    for (const f of searchFields) {
      const p = cache.fields.get(f);
      if (p) out.set(f, p);
    }
    return out;
  }

  /** The search fields of every live property, for "did you mean" (an error path only). */
  async knownSearchFields(): Promise<Array<{ searchField: string; qualifiedName: string }>> {
    return listSearchFields(this.deps.db);
  }

  /**
   * Runs a search whose field names `resolve` looks up in the cached registry, then
   * `run`s it. Within `recheckMs` of the database last confirming the cache, and with
   * no registry change committed by this process since, the cache is used as it is: a
   * change made here is seen by the next search at once, one made by another replica
   * within that time. Otherwise the registry's change counter is read in parallel with
   * the search; if it moved, the search is resolved again and rerun, so a cached entry
   * never outlives a change that committed before the check.
   *
   * Only what the cache can cause is retried: a refusal from `resolve` (a property
   * unknown or soft deleted) must come from a current registry, so it is checked;
   * a failure of `run` (the engine timing out, say) is the caller's at once.
   */
  async withCurrentRegistry<R, T>(resolve: (used: LookupEpoch) => Promise<R>, run: (resolved: R) => Promise<T>): Promise<T> {
    if (this.cacheConfirmed()) {
      const cached = await resolve({ epoch: null }).then(
        (resolved) => ({ ok: true as const, resolved }),
        () => ({ ok: false as const }),
      );
      if (cached.ok) return run(cached.resolved);
    }
    const used: LookupEpoch = { epoch: null };
    const at = performance.now();
    const localChanges = this.deps.localChanges.count;
    const checked = this.deps.epoch();
    const outcome = await resolve(used).then(
      async (resolved) => {
        try {
          return { refused: false as const, ok: true as const, value: await run(resolved) };
        } catch (error) {
          return { refused: false as const, ok: false as const, error };
        }
      },
      (error: unknown) => ({ refused: true as const, ok: false as const, error }),
    );
    const epoch = await checked;
    if (used.epoch !== null && used.epoch !== epoch && (outcome.ok || outcome.refused)) {
      this.cache = { epoch: -1n, fields: new Map() };
      return run(await resolve({ epoch: null }));
    }
    this.confirm(at, epoch, localChanges);
    if (!outcome.ok) throw outcome.error;
    return outcome.value;
  }

  private confirm(at: number, epoch: bigint, localChanges: number): void {
    // An empty cache holds nothing a change could make stale: it takes the epoch read, so
    // that searches naming no property (most of them) are confirmed too, rather than
    // reading the counter every time because no lookup ever set the cache's epoch.
    if (this.cache.fields.size === 0 && this.cache.epoch !== epoch) this.cache = { epoch, fields: new Map() };
    if (this.cache.epoch === epoch) this.confirmed = { at, epoch, localChanges };
  }

  private cacheConfirmed(): boolean {
    const c = this.confirmed;
    return (
      c !== null &&
      c.epoch === this.cache.epoch &&
      c.localChanges === this.deps.localChanges.count &&
      performance.now() - c.at < this.deps.recheckMs
    );
  }
}
