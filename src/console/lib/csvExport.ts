/**
 * The console's CSV export (docs/console.md, "Values in CSV"): the entities a search
 * selects, read page by page from scrollAcrossEntities, as the file `propgraph values
 * export` writes (src/cli/files/valuesCsvLayout.ts): the URN, the context columns, then a
 * column per property.
 */
import { formatCsvRecord, joinValues } from '../../cli/files/csvFile.js';
import { CONTEXT_COLUMNS, contextCells } from '../../cli/files/valuesCsvLayout.js';
import { ExportEntitiesDocument, type AndFilterInput, type ExportEntitiesQuery } from '../generated/graphql';
import { request } from './api';
import { valueText } from './properties';

/** Entities read per request: the most one search answers. */
const PAGE = 1000;

type Hit = NonNullable<ExportEntitiesQuery['scrollAcrossEntities']>['searchResults'][number]['entity'];

function rowOf(e: Hit, columns: readonly string[]): string[] {
  const held = 'structuredProperties' in e ? (e.structuredProperties?.properties ?? []) : [];
  const stored = 'properties' in e ? { name: e.name, description: e.properties?.description ?? null } : {};
  const cells = columns.map((qualifiedName) => joinValues((held.find((p) => p.structuredProperty.definition.qualifiedName === qualifiedName)?.values ?? []).map((v) => valueText(v))));
  return [e.urn, ...contextCells(e.urn, stored), ...cells];
}

/** The CSV text of the search's entities and the properties' columns; `onPage` hears the rows read so far. */
export async function exportCsv(search: { query: string; orFilters: AndFilterInput[] }, columns: readonly string[], onPage: (rows: number, total: number) => void): Promise<{ text: string; rows: number }> {
  const lines = [formatCsvRecord(['urn', ...CONTEXT_COLUMNS, ...columns])];
  let scrollId: string | null | undefined;
  do {
    const page = (await request(ExportEntitiesDocument, { input: { query: search.query, orFilters: search.orFilters, count: PAGE, ...(scrollId ? { scrollId } : {}) } })).scrollAcrossEntities;
    for (const r of page?.searchResults ?? []) lines.push(formatCsvRecord(rowOf(r.entity, columns)));
    onPage(lines.length - 1, page?.total ?? 0);
    scrollId = page?.nextScrollId;
  } while (scrollId);
  return { text: `${lines.join('\n')}\n`, rows: lines.length - 1 };
}
