/**
 * Search and aggregation over structured property values (SPEC 6): the use cases
 * behind GraphQL's scrollAcrossEntities / aggregateAcrossEntities and REST's
 * GET /v3/entity/{entityName}. Queries and filters become one FilterNode; field names
 * are resolved against the property registry here (only current generations of live
 * properties can be named; soft-deleted ones are an error), then compiled for
 * Meilisearch. Hits are URNs; what is shown of them is read from the database.
 */
import { entityTypeByGraphql, findEntityType, searchableEntityTypes, type EntityTypeInfo } from '../domain/entityTypes.js';
import { UnavailableError, ValidationError } from '../domain/errors.js';
import { parseLuceneQuery } from '../domain/luceneQuery.js';
import { parseSearchField, type SearchField } from '../domain/searchFields.js';
import {
  and,
  fieldsOf,
  filterFromOrFilters,
  mapLeaves,
  NONE,
  simplify,
  type AndFilter,
  type FilterNode,
} from '../domain/searchFilter.js';
import { formatDouble } from '../domain/typedValue.js';
import { parseUrn } from '../domain/urn.js';
import { compileFilter, type FieldTarget } from '../search/compileFilter.js';
import { afterCursorFilter, decodeCursor, encodeCursor, type ScrollCursor, type SortDirection } from '../search/cursor.js';
import { reversedField, valueField } from '../search/documents.js';
import { SearchRequestError, SearchUnavailableError, type EngineHit, type EngineQuery, type EngineResult, type SearchEngine } from '../search/engine.js';
import { MAX_FACET_VALUES } from '../search/settings.js';
import type { Db } from '../store/database.js';
import { enqueueSingletonJob } from '../store/jobs.js';
import type { SqlQueryRunner } from '../store/migrate.js';
import type { RegisteredProperty } from '../store/propertyRegistry.js';
import { inTransaction } from '../store/transaction.js';
import type { Caller } from './caller.js';
import type { EntityService, EntityView } from './entityService.js';
import { REINDEX } from './jobs/kinds.js';
import { SearchRegistry, type EpochUsed } from './searchRegistry.js';

export type { AndFilter, FacetFilter, FilterCondition } from '../domain/searchFilter.js';

export interface ScrollInput {
  /** Entity type names (`dataset`) or GraphQL EntityType values (`DATASET`); empty means every searchable type. */
  types: string[];
  query?: string | null;
  count?: number | null;
  scrollId?: string | null;
  orFilters?: AndFilter[] | null;
}

export interface ScrollResult {
  nextScrollId: string | null;
  count: number;
  total: number;
  entities: Array<{ urn: string; entityType: string }>;
}

export interface AggregateInput {
  types: string[];
  query?: string | null;
  orFilters?: AndFilter[] | null;
  facets?: string[] | null;
  maxAggValues?: number | null;
}

export interface AggregateResult {
  facets: Array<{ field: string; aggregations: Array<{ value: string; count: number }> }>;
}

export interface EntitySearchOptions {
  readonly query?: string | undefined;
  readonly count: number;
  readonly scrollId?: string | undefined;
  readonly sort?: string | undefined;
  readonly sortOrder?: string | undefined;
  readonly aspects?: readonly string[] | undefined;
}

export interface SearchDeps {
  readonly db: Db;
  /** The driver itself, for the hot, tiny query every search makes. */
  readonly sql: SqlQueryRunner;
  /** Null when search is disabled (no binary, or turned off). */
  readonly engine: SearchEngine | null;
  readonly disabledReason?: string | undefined;
  readonly entities: EntityService;
  /**
   * How long (ms) a search may use the cached registry without asking the database
   * whether another process changed it; 0 asks on every search.
   */
  readonly registryRecheckMs: number;
}

const DEFAULT_COUNT = 10;
const MAX_COUNT = 1000;
const DEFAULT_AGG_VALUES = 20;
/** Entities searches never show: soft-deleted ones (status.removed), as in DataHub. */
const LIVE_ONLY = '_removed = false';

interface Page {
  readonly hits: EngineHit[];
  readonly total: number;
  readonly next: string | null;
}

interface Resolved {
  readonly node: FilterNode;
  readonly targets: Map<string, FieldTarget>;
}

function keyTarget(field: SearchField & { kind: 'key' }): FieldTarget {
  return { attr: field.name, valueKind: 'text', ...(field.name === 'urn' ? { equalityById: true } : {}) };
}

function propertyTarget(p: RegisteredProperty): FieldTarget {
  return { attr: valueField(p.generation), reversedAttr: reversedField(p.generation), valueKind: p.valueType === 'number' ? 'number' : 'text' };
}

export class SearchService {
  private readonly registry: SearchRegistry;

  constructor(private readonly deps: SearchDeps) {
    this.registry = new SearchRegistry({ db: deps.db, sql: deps.sql, recheckMs: deps.registryRecheckMs });
  }

  get enabled(): boolean {
    return this.deps.engine !== null;
  }

  async scroll(_caller: Caller, input: ScrollInput): Promise<ScrollResult> {
    const types = this.typesOf(input.types);
    const count = countOf(input.count);
    const cursor = input.scrollId ? decodeCursor(input.scrollId) : null;
    if (cursor && cursor.direction !== 'asc') throw new ValidationError('scrollId belongs to a scroll in another sort order', 'scrollId');
    const filter = this.filterOf(input.query, input.orFilters);
    const page = await this.registry.consistent((used) => this.page(types, filter, count, cursor, 'asc', used));
    return {
      nextScrollId: page.next,
      count: page.hits.length,
      total: page.total,
      entities: page.hits.map((h) => ({ urn: h.urn, entityType: h._type })),
    };
  }

  async aggregate(_caller: Caller, input: AggregateInput): Promise<AggregateResult> {
    const types = this.typesOf(input.types);
    const maxValues = input.maxAggValues ?? DEFAULT_AGG_VALUES;
    if (!Number.isInteger(maxValues) || maxValues < 0) throw new ValidationError('maxAggValues must be a whole number >= 0', 'maxAggValues');
    const limit = Math.min(maxValues, MAX_FACET_VALUES);
    const requested = [...new Set(input.facets ?? [])];
    const node = this.filterOf(input.query, input.orFilters);
    const { facetTargets, results } = await this.registry.consistent(async (used) => {
      const resolved = await this.resolve(node, used, requested);
      const targets = new Map(requested.map((f) => [f, resolved.targets.get(f)]));
      const attrs = [...new Set([...targets.values()].filter((t): t is FieldTarget => t !== undefined).map((t) => t.attr))];
      if (resolved.node.kind === 'none' || attrs.length === 0) return { facetTargets: targets, results: [] as EngineResult[] };
      const filter = this.filterStrings(resolved);
      return { facetTargets: targets, results: await this.run(types.map((t) => ({ type: t.name, filter, limit: 0, facets: attrs }))) };
    });
    return {
      facets: requested.map((field) => {
        const target = facetTargets.get(field);
        const counts = new Map<string, number>();
        if (target) {
          for (const r of results) {
            for (const [raw, n] of Object.entries(r.facets[target.attr] ?? {})) {
              const value = target.valueKind === 'number' ? formatDouble(Number(raw)) : raw;
              counts.set(value, (counts.get(value) ?? 0) + n);
            }
          }
        }
        const aggregations = [...counts]
          .map(([value, count]) => ({ value, count }))
          .sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0))
          .slice(0, limit);
        return { field, aggregations };
      }),
    };
  }

  /**
   * REST GET /{v}/entity/{entityName}. Searchable types go to the search engine;
   * other types (and searchable ones while search is disabled) are listed from the
   * database, which serves no query beyond `*`.
   */
  async searchEntities(caller: Caller, entityType: EntityTypeInfo, options: EntitySearchOptions): Promise<{ scrollId: string | null; entities: EntityView[] }> {
    const query = options.query?.trim() ?? '';
    if (options.sort !== undefined && options.sort !== 'urn') throw new ValidationError(`sort supports only urn, got ${options.sort}`, 'sort');
    const direction = directionOf(options.sortOrder);
    if (!entityType.searchable || !this.deps.engine) {
      if (query !== '' && query !== '*') {
        if (entityType.searchable) throw new UnavailableError(`Search is not available: ${this.deps.disabledReason ?? 'no search engine'}`);
        throw new ValidationError(`Entity type ${entityType.name} is not searchable; query must be absent or *`, 'query');
      }
      if (direction !== 'asc') throw new ValidationError(`Entities of type ${entityType.name} are listed in ascending urn order only`, 'sortOrder');
      return this.deps.entities.listEntities(caller, entityType, {
        count: options.count,
        ...(options.scrollId ? { scrollId: options.scrollId } : {}),
        ...(options.aspects ? { aspects: options.aspects } : {}),
      });
    }
    const cursor = options.scrollId ? decodeCursor(options.scrollId) : null;
    if (cursor && cursor.direction !== direction) throw new ValidationError('scrollId belongs to a scroll in another sort order', 'scrollId');
    const filter = parseLuceneQuery(query);
    const page = await this.registry.consistent((used) => this.page([entityType], filter, options.count, cursor, direction, used));
    const views = await this.deps.entities.readEntities(page.hits.map((h) => parseUrn(h.urn)), options.aspects);
    const entities = page.hits.map((h) => views.get(h.urn)).filter((v): v is EntityView => v !== undefined);
    return { scrollId: page.next, entities };
  }

  /** Queues a rebuild of every index from the database (system-update); one at a time. */
  async requestRebuild(_caller: Caller, reason: string): Promise<{ jobId: string; created: boolean }> {
    if (!this.deps.engine) throw new UnavailableError(`Search is not available: ${this.deps.disabledReason ?? 'no search engine'}`);
    const { id, created } = await inTransaction(this.deps.db, (tx) => enqueueSingletonJob(tx, REINDEX, { reason }));
    return { jobId: String(id), created };
  }

  private filterOf(query: string | null | undefined, orFilters: AndFilter[] | null | undefined): FilterNode {
    return simplify(and([parseLuceneQuery(query?.trim() ?? ''), filterFromOrFilters(orFilters)]));
  }

  private typesOf(names: readonly string[]): EntityTypeInfo[] {
    if (names.length === 0) return searchableEntityTypes();
    const out = new Map<string, EntityTypeInfo>();
    for (const name of names) {
      const type = findEntityType(name) ?? entityTypeByGraphql(name);
      if (!type) throw new ValidationError(`Unknown entity type ${name}`, 'types');
      if (!type.searchable) throw new ValidationError(`Entity type ${type.name} is not searchable`, 'types');
      out.set(type.name, type);
    }
    return [...out.values()];
  }

  /**
   * Resolves the field names of the filter (and of `extraFields`, the facets) against
   * the registry. Leaves on fields that name no current property become `none`.
   */
  private async resolve(node: FilterNode, used: EpochUsed, extraFields: readonly string[] = []): Promise<Resolved> {
    const names = [...new Set([...fieldsOf(node), ...extraFields])];
    const parsed = new Map(names.map((n) => [n, parseSearchField(n)]));
    const searchFields = [...new Set([...parsed.values()].flatMap((f) => (f.kind === 'property' ? [f.searchField] : [])))];
    const registry = await this.registry.lookup(searchFields, used);
    const targets = new Map<string, FieldTarget>();
    for (const [name, field] of parsed) {
      if (field.kind === 'key') {
        targets.set(name, keyTarget(field));
        continue;
      }
      const property = registry.get(field.searchField);
      if (!property) continue;
      if (property.removed) throw new ValidationError(`Cannot filter on deleted Structured Property [${property.urn}]`, 'field');
      if (field.versioned && (property.version !== field.versioned.version || property.valueType !== field.versioned.valueType)) continue;
      targets.set(name, propertyTarget(property));
    }
    return { node: mapLeaves(node, (leaf) => (targets.has(leaf.field) ? leaf : NONE)), targets };
  }

  private filterStrings(resolved: Resolved): string[] {
    return resolved.node.kind === 'all' ? [LIVE_ONLY] : [LIVE_ONLY, compileFilter(resolved.node, resolved.targets)];
  }

  /**
   * One page of a keyset scroll across `types`: each index returns its first `count`
   * hits after the cursor, merged in key order. Counts come from a facet on `_type`,
   * which Meilisearch computes exactly (estimatedTotalHits stops at maxTotalHits).
   */
  private async page(types: readonly EntityTypeInfo[], node: FilterNode, count: number, cursor: ScrollCursor | null, direction: SortDirection, used: EpochUsed): Promise<Page> {
    const resolved = await this.resolve(node, used);
    if (resolved.node.kind === 'none') return { hits: [], total: 0, next: null };
    const filter = this.filterStrings(resolved);
    const queries: EngineQuery[] = types.map((t) => ({
      type: t.name,
      filter: cursor ? [...filter, afterCursorFilter(cursor)] : filter,
      limit: count,
      sort: [`_k:${direction}`],
      facets: ['_type'],
    }));
    if (cursor) for (const t of types) queries.push({ type: t.name, filter, limit: 0, facets: ['_type'] });
    const results = await this.run(queries);
    const countOfType = (r: EngineResult) => r.facets._type?.[r.type] ?? 0;
    const pages = results.slice(0, types.length);
    const remaining = pages.reduce((n, r) => n + countOfType(r), 0);
    const total = cursor ? results.slice(types.length).reduce((n, r) => n + countOfType(r), 0) : remaining;
    const hits = pages
      .flatMap((r) => r.hits)
      .sort((a, b) => (a._k < b._k ? -1 : a._k > b._k ? 1 : 0) * (direction === 'asc' ? 1 : -1))
      .slice(0, count);
    const last = hits[hits.length - 1];
    const next = last && remaining > hits.length ? encodeCursor({ direction, after: last._k }) : null;
    return { hits, total, next };
  }

  private async run(queries: EngineQuery[]): Promise<EngineResult[]> {
    const engine = this.deps.engine;
    if (!engine) throw new UnavailableError(`Search is not available: ${this.deps.disabledReason ?? 'no search engine'}`);
    for (let attempt = 1; ; attempt++) {
      try {
        return await engine.search(queries);
      } catch (err) {
        if (err instanceof SearchRequestError && err.code === 'index_not_found' && attempt === 1) {
          // A new deployment (or a dropped index): create the indexes, then they are just empty.
          await engine.ensureIndexes(searchableEntityTypes().map((t) => t.name)).catch(() => undefined);
          continue;
        }
        throw searchError(err);
      }
    }
  }
}

function searchError(err: unknown): Error {
  if (err instanceof SearchUnavailableError) return new UnavailableError('The search engine is not reachable right now; retry later');
  if (err instanceof SearchRequestError && err.code === 'invalid_search_filter') {
    if (/contains/i.test(err.message) && /experimental|feature/i.test(err.message)) {
      return new ValidationError("CONTAIN filters need Meilisearch's containsFilter feature, which this deployment's Meilisearch has turned off", 'condition');
    }
    return new ValidationError(`The search engine rejected the filter: ${err.message}`, 'query');
  }
  return err instanceof Error ? err : new Error(String(err));
}

function countOf(count: number | null | undefined): number {
  if (count === null || count === undefined) return DEFAULT_COUNT;
  if (!Number.isInteger(count) || count < 0) throw new ValidationError('count must be a whole number >= 0', 'count');
  return Math.min(count, MAX_COUNT);
}

function directionOf(sortOrder: string | undefined): SortDirection {
  if (sortOrder === undefined || /^asc(ending)?$/i.test(sortOrder)) return 'asc';
  if (/^desc(ending)?$/i.test(sortOrder)) return 'desc';
  throw new ValidationError(`sortOrder must be ASCENDING or DESCENDING, got ${sortOrder}`, 'sortOrder');
}
