/**
 * `propgraph search [query] [--type t] [--filter field=value] [--facet name] [--sort field[:desc]] [--json]`:
 * one page of hits and the facets asked for, through GraphQL's scrollAcrossEntities and
 * aggregateAcrossEntities (the same search the console and DataHub's clients use).
 */
import { isKeyFieldName, PROPERTY_FIELD_PREFIX } from '../../domain/searchFields.js';
import { SORT_FIELDS } from '../../domain/searchSort.js';
import { ENTITY_TYPES, entityTypeByGraphql, findEntityType } from '../../domain/registry/entityTypes.js';
import type { CommandContext } from '../context.js';
import { CliError, EXIT, type ExitCode } from '../errors.js';
import { CliFacetsDocument, CliSearchDocument, type AndFilterInput, type CliSearchQuery, type EntityType } from '../generated/graphql.js';
import { printTable } from '../table.js';
import { printLine } from '../terminal.js';

export interface SearchOptions {
  readonly type?: string[];
  readonly filter?: string[];
  readonly facet?: string[];
  readonly count?: string;
  readonly sort?: string;
  readonly json?: boolean;
}


const DEFAULT_COUNT = 20;
/** Hits per request; more are read page after page (scroll ids). */
const PAGE = 1000;

/** `acme.governance.tier` is the property's search field; key fields and spelled-out property fields stay as written. */
export function searchField(name: string): string {
  return isKeyFieldName(name) || name.startsWith(PROPERTY_FIELD_PREFIX) ? name : `${PROPERTY_FIELD_PREFIX}${name}`;
}

function entityTypeOf(input: string): EntityType {
  const info = findEntityType(input) ?? entityTypeByGraphql(input.toUpperCase());
  if (!info || !info.searchable) {
    const names = ENTITY_TYPES.filter((t) => t.searchable).map((t) => t.name);
    throw new CliError(`--type ${input}: not a searchable entity type; use one of ${names.join(', ')}`, EXIT.usage);
  }
  return info.graphql as EntityType;
}

/** `field=value` options: values of one field are alternatives (any of them), different fields must all match. */
export function filtersOf(specs: readonly string[]): AndFilterInput[] {
  const byField = new Map<string, string[]>();
  for (const spec of specs) {
    const at = spec.indexOf('=');
    if (at <= 0) throw new CliError(`--filter ${spec}: expected field=value, e.g. --filter platform=bigquery or --filter acme.governance.tier=gold`, EXIT.usage);
    const field = searchField(spec.slice(0, at).trim());
    byField.set(field, [...(byField.get(field) ?? []), spec.slice(at + 1)]);
  }
  if (byField.size === 0) return [];
  return [{ and: [...byField].map(([field, values]) => ({ field, values, condition: 'EQUAL' as const })) }];
}

/**
 * `--sort createdTime`, `--sort name:desc`, `--sort acme.governance.tier`: the server's sort
 * fields (docs/search.md, "Sorting"), a property by its qualified name, ascending unless
 * `:desc` follows.
 */
export function sortOf(spec: string | undefined): { sortCriteria: Array<{ field: string; sortOrder: 'ASCENDING' | 'DESCENDING' }> } | undefined {
  if (spec === undefined) return undefined;
  const m = /^(.+?)(?::(asc|desc|ascending|descending))?$/i.exec(spec.trim());
  if (!m || m[1]!.trim() === '') throw new CliError(`--sort ${spec}: expected a field, e.g. --sort createdTime, --sort name:desc or --sort acme.governance.tier`, EXIT.usage);
  const field = m[1]!.trim();
  return { sortCriteria: [{ field: Object.hasOwn(SORT_FIELDS, field) ? field : searchField(field), sortOrder: /^desc/i.test(m[2] ?? '') ? 'DESCENDING' : 'ASCENDING' }] };
}

/** 0 asks for the total and the facets alone; more than a page is read page by page. */
function countOf(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_COUNT;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < 0) throw new CliError(`--count must be a whole number >= 0 (0: the total and facets only), got '${raw}'`, EXIT.usage);
  return n;
}

type Hit = CliSearchQuery['scrollAcrossEntities'] extends infer R ? (R extends { searchResults: Array<infer H> } ? H : never) : never;

/** One row of the table: what a person recognises an entity by. */
function describeHit(hit: Hit): { type: string; name: string; platform: string; urn: string } {
  const e = hit.entity;
  const type = entityTypeByGraphql(e.type)?.name ?? e.type;
  if ('platform' in e) return { type, name: e.name, platform: e.platform.name, urn: e.urn };
  if ('fieldPath' in e) return { type, name: `${'name' in e.parent ? e.parent.name : e.parent.urn}.${e.fieldPath}`, platform: '', urn: e.urn };
  if ('definition' in e) return { type, name: e.definition.displayName ?? e.definition.qualifiedName, platform: '', urn: e.urn };
  return { type, name: '', platform: '', urn: e.urn };
}

export async function search(ctx: CommandContext, query: string | undefined, options: SearchOptions): Promise<ExitCode> {
  const types = (options.type ?? []).map(entityTypeOf);
  const orFilters = filtersOf(options.filter ?? []);
  const facets = (options.facet ?? []).map(searchField);
  const count = countOf(options.count);
  const sortInput = sortOf(options.sort);
  const common = { query: query?.trim() || '*', ...(types.length > 0 ? { types } : {}), ...(orFilters.length > 0 ? { orFilters } : {}) };
  const paging = { ...common, ...(sortInput ? { sortInput } : {}) };
  const graphql = ctx.graphql();
  const pages = async () => {
    const first = (await graphql.run(CliSearchDocument, { input: { ...paging, count: Math.min(count, PAGE) } })).scrollAcrossEntities;
    const hits = [...(first?.searchResults ?? [])];
    let next = first?.nextScrollId ?? null;
    while (next && hits.length < count) {
      const page = (await graphql.run(CliSearchDocument, { input: { ...paging, count: Math.min(count - hits.length, PAGE), scrollId: next } })).scrollAcrossEntities;
      hits.push(...(page?.searchResults ?? []));
      next = page?.nextScrollId ?? null;
    }
    return { total: first?.total ?? 0, searchResults: hits };
  };
  const [page, counted] = await Promise.all([pages(), facets.length > 0 ? graphql.run(CliFacetsDocument, { input: { ...common, facets } }) : undefined]);
  const facetList = counted?.aggregateAcrossEntities?.facets ?? [];
  const out = ctx.terminal.stdout;
  if (options.json) {
    const results = page.searchResults.map(describeHit);
    const json = { total: page.total, results, ...(facets.length > 0 ? { facets: facetList } : {}) };
    printLine(out, JSON.stringify(json, null, 2));
    return EXIT.ok;
  }
  const rows = page.searchResults.map(describeHit);
  const shown = count > 0 && rows.length < page.total ? `, showing the first ${rows.length} (--count for more)` : '';
  printLine(out, `${page.total} result${page.total === 1 ? '' : 's'}${query?.trim() ? ` for "${query.trim()}"` : ''}${shown}.`);
  if (rows.length > 0) printTable(out, ['TYPE', 'NAME', 'PLATFORM', 'URN'], rows.map((r) => [r.type, r.name, r.platform, r.urn]));
  for (const facet of facetList) {
    printLine(out, '');
    printLine(out, `${facet.displayName ?? facet.field} (${facet.field}):`);
    if (facet.aggregations.length === 0) printLine(out, '  (no values)');
    else printTable(out, undefined, facet.aggregations.map((a) => [`  ${a.value}`, String(a.count)]));
  }
  return EXIT.ok;
}
