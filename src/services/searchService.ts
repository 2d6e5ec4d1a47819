/**
 * Search and aggregation (docs/contract.md §6, §12): the use cases behind GraphQL's
 * scrollAcrossEntities / aggregateAcrossEntities and REST's GET /v3/entity/{entityName}.
 * Queries and filters become keywords and one FilterNode; field names are resolved
 * against the property registry (searchFields.ts); the search module runs the search.
 * Hits are URNs; what is shown of them is read from the database. Every answer carries
 * the requests its search sent to the engine (`engineRequests`), for an edge that
 * explains (rest/explainHeader.ts).
 */
import { PAGE_LIMITS, pageSize } from '../domain/limits.js';
import { ENTITY, defaultSearchTypes, entityTypeByGraphql, findEntityType, type EntityTypeInfo } from '../domain/registry/entityTypes.js';
import { UnavailableError, ValidationError } from '../domain/errors.js';
import { parseLuceneQuery } from '../domain/luceneQuery.js';
import { and, ALL, fieldsOf, filterFromOrFilters, simplify, splitKeywords, type AndFilter, type FilterNode } from '../domain/searchFilter.js';
import { PROPERTY_FIELD_PREFIX } from '../domain/searchFields.js';
import type { UrnNamespace } from '../domain/typeUrns.js';
import { parseUrn } from '../domain/urn.js';
import type { SearchEngine } from '../search/engine.js';
import type { EngineRequest, Page, PageRequest, SearchRequest } from '../search/request.js';
import { pageOrderOf, scrollOrderOf, valueSortedPage } from './searchOrder.js';
import { closestWord } from '../domain/closestWord.js';
import { Searcher } from '../search/searcher.js';
import { MAX_FACET_VALUES, MAX_RANKED_HITS } from '../search/settings.js';
import type { Db } from '../store/database.js';
import { enqueueJob } from '../store/jobs.js';
import type { RegistryEpochReader } from '../store/propertyRegistry.js';
import { inTransaction } from '../store/transaction.js';
import type { AuditTrail } from './audit.js';
import type { Caller } from './caller.js';
import type { EntityService, EntityView } from './entityService.js';
import { indexBuildRequest } from '../domain/jobKinds.js';
import { DEFAULT_KEY_FACETS, describeFacet, emptyFacet } from './searchFacets.js';
import { narrowed, resolveFields, resolveQuietly, type ResolvedFields } from './searchFields.js';
import type { AccessPolicies } from './accessPolicies.js';
import { forTypes } from '../domain/policies/readFilter.js';
import type { LookupEpoch } from './searchRegistry.js';
import type { LocalRegistryChanges } from './localRegistryChanges.js';
import type { AggregateInput, AggregateResult, EntitySearchOptions, Explained, ScrollInput, ScrollResult, SearchPageInput, SearchPageResult } from './searchShapes.js';
import { SearchRegistry } from './searchRegistry.js';

export type { AndFilter, FacetFilter, FilterCondition } from '../domain/searchFilter.js';
export type { Facet, FacetAggregation } from './searchFacets.js';

export type { AggregateInput, AggregateResult, EntitySearchOptions, Explained, ScrollInput, ScrollResult, SearchPageInput, SearchPageResult } from './searchShapes.js';

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
  /** The namespace facets show type URNs in (URN_NAMESPACE). */
  readonly urnNamespace: UrnNamespace;
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
  searchEntities(caller: Caller, entityType: EntityTypeInfo, options: EntitySearchOptions): Promise<{ scrollId: string | null; entities: EntityView[] } & Explained>;
  /**
   * DataHub's searchAcrossEntities: a page by offset (`start`), in the order a scroll
   * gives; `start + count` at most MAX_RANKED_HITS (offsets are a ranked page's).
   */
  search(caller: Caller, input: SearchPageInput): Promise<SearchPageResult>;
  /**
   * DataHub's OpenAPI scroll: a scroll (one type, several or the default ones) whose hits
   * come back as entities with the aspects named (all of them when none are).
   */
  scrollEntities(caller: Caller, input: ScrollInput & { readonly aspects?: readonly string[] }): Promise<{ scrollId: string | null; total: number; entities: EntityView[] } & Explained>;
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
    const page = await this.orderedPage(caller, types, query, scrollOrderOf(input.sort), count, input.scrollId ?? null, input.includeSoftDeleted);
    return { nextScrollId: page.nextScrollId, count: page.hits.length, total: page.total, entities: page.hits.map((h) => ({ urn: h.urn, entityType: h.type })), engineRequests: page.engineRequests };
  }

  async aggregate(caller: Caller, input: AggregateInput): Promise<AggregateResult> {
    const types = typesOf(input.types);
    const maxValues = input.maxAggValues ?? DEFAULT_AGG_VALUES;
    if (!Number.isInteger(maxValues) || maxValues < 0) throw new ValidationError('maxAggValues must be a whole number >= 0', 'maxAggValues');
    const limit = Math.min(maxValues, MAX_FACET_VALUES);
    const query = parseQuery(input.query, input.orFilters);
    const requested = [...new Set(input.facets ?? [])];
    const defaults = requested.length === 0;
    return this.deps.access.withReadFilter(caller, async (readable) => {
      const shown = defaults ? await this.defaultFacets(readable) : { names: requested, engineRequests: [] };
      const { names } = shown;
      const { facets, engineRequests } = await this.registry.withCurrentRegistry(
        async (used) => {
          // A default facet whose property went away since the index said so is just left out.
          const resolved = await resolveFields(this.registry, query.filter, names, used, defaults);
          return { resolved, request: this.request(types, query, narrowed(resolved, await this.restriction(readable, types, used)), input.includeSoftDeleted) };
        },
        async ({ resolved, request }) => {
          const counted = names.flatMap((name) => {
            const field = resolved.fields.get(name);
            return field ? [{ name, field }] : [];
          });
          const { values, engineRequests } = await this.searcher().facets(request, counted, limit);
          const described = names.flatMap((name) => {
            const field = resolved.fields.get(name);
            if (field) return [describeFacet(name, field, resolved.properties.get(name), values.get(name) ?? [], this.deps.urnNamespace)];
            return defaults ? [] : [emptyFacet(name)];
          });
          return { facets: described, engineRequests };
        },
      );
      return { facets, engineRequests: [...shown.engineRequests, ...engineRequests] };
    });
  }

  async searchEntities(caller: Caller, entityType: EntityTypeInfo, options: EntitySearchOptions): Promise<{ scrollId: string | null; entities: EntityView[] } & Explained> {
    const text = options.query?.trim() ?? '';
    const ordered = pageOrderOf(options.sort, options.sortOrder, 'sort');
    const { order } = ordered;
    const count = pageSize(options.count, PAGE_LIMITS.searchCount);
    if (!entityType.searchable || !this.searcherOrNull) {
      if (text !== '' && text !== '*') {
        if (entityType.searchable) throw new UnavailableError(`Search is not available: ${this.deps.disabledReason ?? 'no search engine'}`);
        throw new ValidationError(`Entity type ${entityType.name} is not searchable; query must be absent or *`, 'query');
      }
      if (order !== 'asc' || ordered.sortBy || ordered.byValue) throw new ValidationError(`Entities of type ${entityType.name} are listed in ascending urn order only`, ordered.sortBy || ordered.byValue ? 'sort' : 'sortOrder');
      const listed = await this.deps.entities.listEntities(caller, entityType, {
        count,
        ...(options.scrollId ? { scrollId: options.scrollId } : {}),
        ...(options.aspects ? { aspects: options.aspects } : {}),
      });
      return { ...listed, engineRequests: [] };
    }
    const query = parseQuery(text, null);
    const page = await this.orderedPage(caller, [entityType], query, ordered, count, options.scrollId ?? null, false);
    const views = await this.deps.entities.readEntities(page.hits.map((h) => parseUrn(h.urn)), options.aspects);
    const entities = page.hits.map((h) => views.get(h.urn)).filter((v): v is EntityView => v !== undefined);
    return { scrollId: page.nextScrollId, entities, engineRequests: page.engineRequests };
  }

  async search(caller: Caller, input: SearchPageInput): Promise<SearchPageResult> {
    const listed = await this.listedInstead(caller, input);
    if (listed) return listed;
    const start = input.start ?? 0;
    if (!Number.isInteger(start) || start < 0) throw new ValidationError(`start must be a whole number >= 0, got ${start}`, 'start');
    const count = pageSize(input.count, PAGE_LIMITS.searchCount);
    if (start + count > MAX_RANKED_HITS) {
      throw new ValidationError(`start + count may be at most ${MAX_RANKED_HITS} (got ${start + count}); page further with scrollAcrossEntities`, 'start');
    }
    const page = await this.scroll(caller, { ...input, count: start + count, scrollId: null });
    const entities = page.entities.slice(start);
    const choice = input.facets ?? 'none';
    const aggregated =
      choice === 'none'
        ? null
        : await this.aggregate(caller, { types: input.types, query: input.query ?? null, orFilters: input.orFilters ?? null, includeSoftDeleted: input.includeSoftDeleted ?? null, facets: choice === 'keys' ? [...DEFAULT_KEY_FACETS] : null });
    const suggested = input.suggestions && page.total === 0 ? await this.suggestionsFor(caller, input) : { suggestions: [], engineRequests: [] };
    return {
      start,
      count: entities.length,
      total: page.total,
      nextScrollId: null,
      entities,
      facets: aggregated?.facets ?? null,
      suggestions: suggested.suggestions,
      engineRequests: [...page.engineRequests, ...(aggregated?.engineRequests ?? []), ...suggested.engineRequests],
    };
  }

  /**
   * A search of one type that is not indexed (data platforms, as DataHub's app lists them
   * for its platform picker), for everything (`*`, no filter): the entities stored, in URN
   * order, from the database. Anything narrower is refused as before.
   */
  private async listedInstead(caller: Caller, input: SearchPageInput): Promise<SearchPageResult | null> {
    const [only, ...others] = input.types.map((t) => findEntityType(t) ?? entityTypeByGraphql(t));
    if (!only || others.length > 0 || only.searchable || (input.query?.trim() ?? '*') !== '*' || (input.orFilters?.length ?? 0) > 0 || (input.start ?? 0) !== 0) return null;
    const page = await this.deps.entities.listEntities(caller, only, { count: pageSize(input.count, PAGE_LIMITS.searchCount), aspects: [] });
    const entities = page.entities.map((e) => ({ urn: e.urn, entityType: only.name }));
    return { start: 0, count: entities.length, total: entities.length, nextScrollId: null, entities, facets: input.facets && input.facets !== 'none' ? [] : null, suggestions: [], engineRequests: [] };
  }

  /** For each keyword no entity matched, the closest name among those sharing its first letters; the query with it replaced, and how many entities that finds. */
  private async suggestionsFor(caller: Caller, input: SearchPageInput): Promise<{ suggestions: Array<{ text: string; frequency: number }> } & Explained> {
    const engineRequests: EngineRequest[] = [];
    const { keywords } = parseQuery(input.query, null);
    if (!keywords) return { suggestions: [], engineRequests };
    const words = keywords.split(/\s+/).filter((w) => w.length >= 3);
    let text = keywords;
    for (const word of words) {
      const near = await this.scroll(caller, { types: input.types, query: word.slice(0, 2), count: SUGGESTION_CANDIDATES, orFilters: input.orFilters ?? null });
      engineRequests.push(...near.engineRequests);
      const candidates = near.entities.flatMap((e) => nameWords(parseUrn(e.urn)));
      const closest = closestWord(word, candidates);
      if (closest && closest.toLowerCase() !== word.toLowerCase()) text = text.replace(word, closest);
    }
    if (text === keywords) return { suggestions: [], engineRequests };
    const found = await this.scroll(caller, { types: input.types, query: text, count: 1, orFilters: input.orFilters ?? null });
    engineRequests.push(...found.engineRequests);
    return { suggestions: found.total > 0 ? [{ text, frequency: found.total }] : [], engineRequests };
  }

  async scrollEntities(caller: Caller, input: ScrollInput & { readonly aspects?: readonly string[] }): Promise<{ scrollId: string | null; total: number; entities: EntityView[] } & Explained> {
    const page = await this.scroll(caller, input);
    const aspects = input.aspects && input.aspects.length > 0 ? input.aspects : undefined;
    const views = await this.deps.entities.readEntities(page.entities.map((e) => parseUrn(e.urn)), aspects);
    return { scrollId: page.nextScrollId, total: page.total, entities: page.entities.map((e) => views.get(e.urn)).filter((v): v is EntityView => v !== undefined), engineRequests: page.engineRequests };
  }

  async requestRebuild(caller: Caller, reason: string): Promise<{ jobId: string; created: boolean }> {
    return this.deps.audit.around(
      { action: 'index.rebuild', actor: caller.actor, target: 'search indexes', detail: { reason } },
      async () => {
        if (!this.deps.engine) throw new UnavailableError(`Search is not available: ${this.deps.disabledReason ?? 'no search engine'}`);
        const format = this.deps.engine.format;
        const { id, created } = await inTransaction(this.deps.db, (tx) => enqueueJob(tx, indexBuildRequest(reason, format)));
        return { jobId: String(id), created };
      },
      (queued) => ({ jobId: queued.jobId, created: queued.created }),
    );
  }

  /**
   * A page in the order asked, the sort's property resolved with the filter's fields (a deleted one is refused as a filter on it is),
   * narrowed to what the caller may read inside the engine's query.
   */
  private orderedPage(caller: Caller, types: readonly EntityTypeInfo[], query: ParsedQuery, ordering: Pick<PageRequest, 'order' | 'sortBy'> & { readonly byValue?: string }, count: number, scrollId: string | null, includeSoftDeleted: boolean | null | undefined): Promise<Page> {
    const { byValue, ...engineOrder } = ordering;
    return this.deps.access.withReadFilter(caller, (readable) =>
      this.registry.withCurrentRegistry(
        async (used) => {
          const resolved = await resolveFields(this.registry, query.filter, byValue ? [byValue] : [], used);
          const restricted = narrowed(resolved, await this.restriction(readable, types, used));
          return { request: this.request(types, query, restricted, includeSoftDeleted), property: byValue ? resolved.properties.get(byValue) : undefined };
        },
        ({ request, property }) =>
          byValue && property && engineOrder.order !== 'relevance'
            ? valueSortedPage(this.searcher(), this.deps.db, request, { field: byValue, propertyUrn: property.urn, generation: property.generation, direction: engineOrder.order }, count, scrollId)
            : this.searcher().page(request, { count, scrollId, ...engineOrder }),
      ),
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
  private async defaultFacets(readable: FilterNode): Promise<{ names: string[]; engineRequests: readonly EngineRequest[] }> {
    // The properties shown are those whose definitions the caller may read.
    if (readable.kind === 'none') return { names: [...DEFAULT_KEY_FACETS], engineRequests: [] };
    const shown: FilterNode = { kind: 'equals', field: 'showInSearchFilters', values: ['true'] };
    const page = await this.searcher().page(
      { types: [ENTITY.structuredProperty.name], keywords: null, filter: shown, fields: new Map([['showInSearchFilters', { kind: 'key', name: 'showInSearchFilters' }]]), includeRemoved: false },
      { count: MAX_FACET_VALUES, scrollId: null, order: 'asc' },
    );
    return { names: [...DEFAULT_KEY_FACETS, ...page.hits.map((h) => `${PROPERTY_FIELD_PREFIX}${parseUrn(h.urn).parts[0]}`)], engineRequests: page.engineRequests };
  }

  private searcher(): Searcher {
    if (!this.searcherOrNull) throw new UnavailableError(`Search is not available: ${this.deps.disabledReason ?? 'no search engine'}`);
    return this.searcherOrNull;
  }
}

/** Entities read to find a suggestion for one word. */
const SUGGESTION_CANDIDATES = 50;

/** The words of an entity's name (its key's name, or its last key part), split where names split. */
function nameWords(urn: ReturnType<typeof parseUrn>): string[] {
  const name = urn.parts[urn.entityType.keyFields.indexOf('name')] ?? urn.parts[urn.parts.length - 1] ?? '';
  return name.split(/[^A-Za-z0-9]+/).filter((w) => w.length >= 3);
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

export type { EngineRequest } from '../search/request.js';
