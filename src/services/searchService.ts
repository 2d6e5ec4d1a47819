/**
 * Search and aggregation (docs/contract.md §6, §12): the use cases behind GraphQL's
 * scrollAcrossEntities / aggregateAcrossEntities and REST's GET /v3/entity/{entityName}.
 * Queries and filters become keywords and one FilterNode; field names are resolved
 * against the property registry (searchFields.ts); the search module runs the search.
 * Hits are URNs; what is shown of them is read from the database.
 */
import { PAGE_LIMITS, pageSize } from '../domain/limits.js';
import { ENTITY, defaultSearchTypes, entityTypeByGraphql, findEntityType, type EntityTypeInfo } from '../domain/registry/entityTypes.js';
import { UnavailableError, ValidationError } from '../domain/errors.js';
import { parseLuceneQuery } from '../domain/luceneQuery.js';
import { and, ALL, fieldsOf, filterFromOrFilters, simplify, splitKeywords, type AndFilter, type FilterNode } from '../domain/searchFilter.js';
import { PROPERTY_FIELD_PREFIX } from '../domain/searchFields.js';
import { parseUrn } from '../domain/urn.js';
import type { SearchEngine } from '../search/engine.js';
import { SORT_ATTRIBUTE_OF, type PageRequest, type ScrollOrder, type SearchRequest, type SortAttribute } from '../search/request.js';
import { sortKeyOf } from '../domain/searchSort.js';
import { withExplanation, type EngineRequest } from '../search/explain.js';
import { Searcher } from '../search/searcher.js';
import { MAX_FACET_VALUES, MAX_RANKED_HITS } from '../search/settings.js';
import type { Db } from '../store/database.js';
import { enqueueSingletonJob } from '../store/jobs.js';
import type { RegistryEpochReader } from '../store/propertyRegistry.js';
import { inTransaction } from '../store/transaction.js';
import type { AuditTrail } from './audit.js';
import type { Caller } from './caller.js';
import type { EntityService, EntityView } from './entityService.js';
import { SEARCH_INDEX_BUILD } from './jobs/kinds.js';
import { DEFAULT_KEY_FACETS, describeFacet, emptyFacet, type Facet } from './searchFacets.js';
import { narrowed, resolveFields, resolveQuietly, type ResolvedFields } from './searchFields.js';
import type { AccessPolicies } from './accessPolicies.js';
import { forTypes } from '../domain/policies/readFilter.js';
import type { LookupEpoch } from './searchRegistry.js';
import type { LocalRegistryChanges } from './localRegistryChanges.js';
import { SearchRegistry } from './searchRegistry.js';

export type { AndFilter, FacetFilter, FilterCondition } from '../domain/searchFilter.js';
export type { Facet, FacetAggregation } from './searchFacets.js';

export interface ScrollInput {
  /** Entity type names (`dataset`) or GraphQL EntityType values (`DATASET`); empty means every type searched by default. */
  types: string[];
  query?: string | null;
  count?: number | null;
  scrollId?: string | null;
  orFilters?: AndFilter[] | null;
  /** Soft-deleted entities too (DataHub's searchFlags.includeSoftDeleted). */
  includeSoftDeleted?: boolean | null;
  /** DataHub's sortCriteria: the first decides. Empty: keyword hits by relevance, others in URN order. */
  sort?: ReadonlyArray<{ field: string; sortOrder: string }>;
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
  /** Absent or empty: the default facets (entity type, platform, properties shown in search filters). */
  facets?: string[] | null;
  maxAggValues?: number | null;
  includeSoftDeleted?: boolean | null;
}

export interface AggregateResult {
  facets: Facet[];
}

export interface EntitySearchOptions {
  readonly query?: string | undefined;
  /** Page size; absent: the search default (domain/limits.ts pageSize). */
  readonly count?: number | undefined;
  readonly scrollId?: string | undefined;
  readonly sort?: string | undefined;
  readonly sortOrder?: string | undefined;
  readonly aspects?: readonly string[] | undefined;
}

export interface SearchDeps {
  readonly db: Db;
  readonly registryEpoch: RegistryEpochReader;
  /** Null when search is disabled (no binary, or turned off). */
  readonly engine: SearchEngine | null;
  readonly disabledReason?: string | undefined;
  readonly entities: EntityService;
  /**
   * How long (ms) a search may use the cached registry without asking the database
   * whether another process changed it; 0 asks on every search.
   */
  readonly registryRecheckMs: number;
  /** The registry changes this process has committed (a change made here is seen by the next search here). */
  readonly registryChanges: LocalRegistryChanges;
  /** Where a rebuild asked for is recorded. */
  readonly audit: AuditTrail;
  /** What each caller may read (the policies): applied inside the engine's query. */
  readonly access: AccessPolicies;
}

const DEFAULT_AGG_VALUES = 20;

interface ParsedQuery {
  readonly keywords: string | null;
  readonly filter: FilterNode;
}

export interface SearchService {
  /** Whether this server has a search engine (search is not disabled). */
  readonly enabled: boolean;
  /** GraphQL scrollAcrossEntities: keyword hits by relevance, others in URN order. */
  scroll(caller: Caller, input: ScrollInput): Promise<ScrollResult>;
  /** GraphQL aggregateAcrossEntities: facet counts for the filters. */
  aggregate(caller: Caller, input: AggregateInput): Promise<AggregateResult>;
  /**
   * REST GET /{v}/entity/{entityName}, in URN order (`sortOrder`), keywords or not.
   * Searchable types go to the search engine; other types (and searchable ones while
   * search is disabled) are listed from the database, which serves no query beyond `*`.
   */
  searchEntities(caller: Caller, entityType: EntityTypeInfo, options: EntitySearchOptions): Promise<{ scrollId: string | null; entities: EntityView[] }>;
  /**
   * DataHub's searchAcrossEntities: a page by offset (`start`), in the order a scroll
   * gives; `start + count` at most MAX_RANKED_HITS (offsets are a ranked page's).
   */
  search(caller: Caller, input: ScrollInput & { readonly start?: number | null }): Promise<ScrollResult & { start: number }>;
  /**
   * DataHub's OpenAPI scroll: a scroll (one type, several or the default ones) whose hits
   * come back as entities with the aspects named (all of them when none are).
   */
  scrollEntities(caller: Caller, input: ScrollInput & { readonly aspects?: readonly string[] }): Promise<{ scrollId: string | null; total: number; entities: EntityView[] }>;
  /** Queues a rebuild of every index from the database (system-update); one at a time. */
  requestRebuild(caller: Caller, reason: string): Promise<{ jobId: string; created: boolean }>;
}

export class DefaultSearchService implements SearchService {
  private readonly registry: SearchRegistry;
  private readonly searcherOrNull: Searcher | null;

  constructor(private readonly deps: SearchDeps) {
    this.registry = new SearchRegistry({ db: deps.db, epoch: deps.registryEpoch, recheckMs: deps.registryRecheckMs, localChanges: deps.registryChanges });
    this.searcherOrNull = deps.engine ? new Searcher(deps.engine) : null;
  }

  get enabled(): boolean {
    return this.searcherOrNull !== null;
  }

  async scroll(caller: Caller, input: ScrollInput): Promise<ScrollResult> {
    const types = typesOf(input.types);
    const count = pageSize(input.count, PAGE_LIMITS.searchCount);
    const query = parseQuery(input.query, input.orFilters);
    const readable = this.deps.access.readFilterOf(caller);
    const page = await this.registry.withCurrentRegistry(
      async (used) => this.request(types, query, narrowed(await resolveFields(this.registry, query.filter, [], used), await this.restriction(await readable, types, used)), input.includeSoftDeleted),
      (request) => this.searcher().page(request, { count, scrollId: input.scrollId ?? null, ...scrollOrderOf(input.sort) }),
    );
    return { nextScrollId: page.nextScrollId, count: page.hits.length, total: page.total, entities: page.hits.map((h) => ({ urn: h.urn, entityType: h.type })) };
  }

  async aggregate(caller: Caller, input: AggregateInput): Promise<AggregateResult> {
    const types = typesOf(input.types);
    const maxValues = input.maxAggValues ?? DEFAULT_AGG_VALUES;
    if (!Number.isInteger(maxValues) || maxValues < 0) throw new ValidationError('maxAggValues must be a whole number >= 0', 'maxAggValues');
    const limit = Math.min(maxValues, MAX_FACET_VALUES);
    const query = parseQuery(input.query, input.orFilters);
    const requested = [...new Set(input.facets ?? [])];
    const defaults = requested.length === 0;
    const readable = this.deps.access.readFilterOf(caller);
    const names = defaults ? await this.defaultFacets(await readable) : requested;
    const facets = await this.registry.withCurrentRegistry(
      async (used) => {
        // A default facet whose property went away since the index said so is just left out.
        const resolved = await resolveFields(this.registry, query.filter, names, used, defaults);
        return { resolved, request: this.request(types, query, narrowed(resolved, await this.restriction(await readable, types, used)), input.includeSoftDeleted) };
      },
      async ({ resolved, request }) => {
        const counted = names.flatMap((name) => {
          const field = resolved.fields.get(name);
          return field ? [{ name, field }] : [];
        });
        const values = await this.searcher().facets(request, counted, limit);
        return names.flatMap((name) => {
          const field = resolved.fields.get(name);
          if (field) return [describeFacet(name, field, resolved.properties.get(name), values.get(name) ?? [])];
          return defaults ? [] : [emptyFacet(name)];
        });
      },
    );
    return { facets };
  }

  async searchEntities(caller: Caller, entityType: EntityTypeInfo, options: EntitySearchOptions): Promise<{ scrollId: string | null; entities: EntityView[] }> {
    const text = options.query?.trim() ?? '';
    const ordered = pageOrderOf(options.sort, options.sortOrder, 'sort');
    const { order } = ordered;
    const count = pageSize(options.count, PAGE_LIMITS.searchCount);
    if (!entityType.searchable || !this.searcherOrNull) {
      if (text !== '' && text !== '*') {
        if (entityType.searchable) throw new UnavailableError(`Search is not available: ${this.deps.disabledReason ?? 'no search engine'}`);
        throw new ValidationError(`Entity type ${entityType.name} is not searchable; query must be absent or *`, 'query');
      }
      if (order !== 'asc' || ordered.sortBy) throw new ValidationError(`Entities of type ${entityType.name} are listed in ascending urn order only`, ordered.sortBy ? 'sort' : 'sortOrder');
      return this.deps.entities.listEntities(caller, entityType, {
        count,
        ...(options.scrollId ? { scrollId: options.scrollId } : {}),
        ...(options.aspects ? { aspects: options.aspects } : {}),
      });
    }
    const query = parseQuery(text, null);
    const readable = this.deps.access.readFilterOf(caller);
    const page = await this.registry.withCurrentRegistry(
      async (used) => this.request([entityType], query, narrowed(await resolveFields(this.registry, query.filter, [], used), await this.restriction(await readable, [entityType], used)), false),
      (request) => this.searcher().page(request, { count, scrollId: options.scrollId ?? null, ...ordered }),
    );
    const views = await this.deps.entities.readEntities(page.hits.map((h) => parseUrn(h.urn)), options.aspects);
    const entities = page.hits.map((h) => views.get(h.urn)).filter((v): v is EntityView => v !== undefined);
    return { scrollId: page.nextScrollId, entities };
  }

  async search(caller: Caller, input: ScrollInput & { readonly start?: number | null }): Promise<ScrollResult & { start: number }> {
    const start = input.start ?? 0;
    if (!Number.isInteger(start) || start < 0) throw new ValidationError(`start must be a whole number >= 0, got ${start}`, 'start');
    const count = pageSize(input.count, PAGE_LIMITS.searchCount);
    if (start + count > MAX_RANKED_HITS) {
      throw new ValidationError(`start + count may be at most ${MAX_RANKED_HITS} (got ${start + count}); page further with scrollAcrossEntities`, 'start');
    }
    const page = await this.scroll(caller, { ...input, count: start + count, scrollId: null });
    const entities = page.entities.slice(start);
    return { start, count: entities.length, total: page.total, nextScrollId: null, entities };
  }

  async scrollEntities(caller: Caller, input: ScrollInput & { readonly aspects?: readonly string[] }): Promise<{ scrollId: string | null; total: number; entities: EntityView[] }> {
    const page = await this.scroll(caller, input);
    const aspects = input.aspects && input.aspects.length > 0 ? input.aspects : undefined;
    const views = await this.deps.entities.readEntities(page.entities.map((e) => parseUrn(e.urn)), aspects);
    return { scrollId: page.nextScrollId, total: page.total, entities: page.entities.map((e) => views.get(e.urn)).filter((v): v is EntityView => v !== undefined) };
  }

  async requestRebuild(caller: Caller, reason: string): Promise<{ jobId: string; created: boolean }> {
    return this.deps.audit.around(
      { action: 'index.rebuild', actor: caller.actor, target: 'search indexes', detail: { reason } },
      async () => {
        if (!this.deps.engine) throw new UnavailableError(`Search is not available: ${this.deps.disabledReason ?? 'no search engine'}`);
        const format = this.deps.engine.format;
        const { id, created } = await inTransaction(this.deps.db, (tx) => enqueueSingletonJob(tx, SEARCH_INDEX_BUILD, { reason, format }));
        return { jobId: String(id), created };
      },
      (queued) => ({ jobId: queued.jobId, created: queued.created }),
    );
  }

  /** What the caller may read, resolved against the registry as their own filter is; null when they may read everything. */
  private async restriction(readable: FilterNode, types: readonly EntityTypeInfo[], used: LookupEpoch): Promise<ResolvedFields | null> {
    const narrowedToTypes = forTypes(readable, types.map((t) => t.name));
    return narrowedToTypes.kind === 'all' ? null : resolveQuietly(this.registry, narrowedToTypes, used);
  }

  private request(
    types: readonly EntityTypeInfo[],
    query: ParsedQuery,
    resolved: { filter: FilterNode; fields: SearchRequest['fields'] },
    includeSoftDeleted: boolean | null | undefined,
  ): SearchRequest {
    // As in DataHub: a filter on `removed` replaces the default of leaving soft-deleted entities out.
    const namesRemoved = fieldsOf(resolved.filter).some((f) => {
      const field = resolved.fields.get(f);
      return field?.kind === 'key' && field.name === 'removed';
    });
    return {
      types: types.map((t) => t.name),
      keywords: query.keywords,
      filter: resolved.filter,
      fields: resolved.fields,
      includeRemoved: includeSoftDeleted === true || namesRemoved,
    };
  }

  /**
   * The default facets: entity type, platform, and every live property whose
   * structuredPropertySettings.showInSearchFilters is true (read from the index of
   * definitions, where the indexer put it).
   */
  private async defaultFacets(readable: FilterNode): Promise<string[]> {
    // The properties shown are those whose definitions the caller may read.
    if (readable.kind === 'none') return [...DEFAULT_KEY_FACETS];
    const shown: FilterNode = { kind: 'equals', field: 'showInSearchFilters', values: ['true'] };
    const page = await this.searcher().page(
      { types: [ENTITY.structuredProperty.name], keywords: null, filter: shown, fields: new Map([['showInSearchFilters', { kind: 'key', name: 'showInSearchFilters' }]]), includeRemoved: false },
      { count: MAX_FACET_VALUES, scrollId: null, order: 'asc' },
    );
    return [...DEFAULT_KEY_FACETS, ...page.hits.map((h) => `${PROPERTY_FIELD_PREFIX}${parseUrn(h.urn).parts[0]}`)];
  }

  private searcher(): Searcher {
    if (!this.searcherOrNull) throw new UnavailableError(`Search is not available: ${this.deps.disabledReason ?? 'no search engine'}`);
    return this.searcherOrNull;
  }
}

function parseQuery(query: string | null | undefined, orFilters: AndFilter[] | null | undefined): ParsedQuery {
  const { keywords, filter } = splitKeywords(parseLuceneQuery(query?.trim() ?? ''));
  return { keywords, filter: simplify(and([filter, orFilters ? filterFromOrFilters(orFilters) : ALL])) };
}

function typesOf(names: readonly string[]): EntityTypeInfo[] {
  if (names.length === 0) return defaultSearchTypes();
  const out = new Map<string, EntityTypeInfo>();
  for (const name of names) {
    const type = findEntityType(name) ?? entityTypeByGraphql(name);
    if (!type) throw new ValidationError(`Unknown entity type ${name}`, 'types');
    if (!type.searchable) throw new ValidationError(`Entity type ${type.name} is not searchable`, 'types');
    out.set(type.name, type);
  }
  return [...out.values()];
}

/** How a page is ordered: the URN by default (keyset), relevance for keywords unless sorted, or a time or the name. */
function pageOrderOf(field: string | undefined, sortOrder: string | undefined, name: string): { order: Exclude<ScrollOrder, 'relevance'>; sortBy?: SortAttribute } {
  const key = field === undefined ? 'urn' : sortKeyOf(field, name);
  const order = directionOf(sortOrder);
  return key === 'urn' ? { order } : { order, sortBy: SORT_ATTRIBUTE_OF[key] };
}

function scrollOrderOf(sort: ScrollInput['sort']): Pick<PageRequest, 'order' | 'sortBy'> {
  const first = sort?.[0];
  if (!first) return { order: 'relevance' };
  return pageOrderOf(first.field, first.sortOrder, 'sortInput.sortCriteria[0].field');
}

function directionOf(sortOrder: string | undefined): Exclude<ScrollOrder, 'relevance'> {
  if (sortOrder === undefined || /^asc(ending)?$/i.test(sortOrder)) return 'asc';
  if (/^desc(ending)?$/i.test(sortOrder)) return 'desc';
  throw new ValidationError(`sortOrder must be ASCENDING or DESCENDING, got ${sortOrder}`, 'sortOrder');
}

export type { EngineRequest } from '../search/explain.js';

/** Runs `fn` recording, in `record`, every request its searches send to the engine (see search/explain.ts). */
export function explainingSearches<T>(record: EngineRequest[], fn: () => T): T {
  return withExplanation(record, fn);
}
