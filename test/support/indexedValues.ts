/**
 * What the search index holds, asked through the server's own search API, exactly:
 * `indexedPairs` counts the documents matching (urn = u AND property = v) for many
 * pairs at once (an OR of ANDs in GraphQL orFilters, counted by the scroll total,
 * which the engine computes exactly). Pairs name distinct urns, so the count equals
 * the number of pairs exactly when every urn is indexed with its value.
 */
import { graphql } from './graphql.js';

export interface IndexedPair {
  readonly urn: string;
  /** The value as a filter takes it: a number's decimal text, or the string. */
  readonly value: string;
}

const SCROLL = `query total($input: ScrollAcrossEntitiesInput!) { scrollAcrossEntities(input: $input) { total } }`;

/** The number of datasets matching the orFilters (or every dataset when none). */
export async function searchTotal(base: string, orFilters: unknown[] = [], query = '*'): Promise<number> {
  const res = await graphql(base, SCROLL, { input: { types: ['DATASET'], query, count: 0, orFilters } });
  if (res.errors || res.status !== 200) throw new Error(`search failed: ${res.status} ${JSON.stringify(res.errors ?? res.response.text)}`);
  return res.data.scrollAcrossEntities.total as number;
}

/** How many of the (urn, value of `field`) pairs the index holds; 200 pairs per search. */
export async function indexedPairs(base: string, field: string, pairs: readonly IndexedPair[], chunk = 200): Promise<number> {
  let found = 0;
  for (let i = 0; i < pairs.length; i += chunk) {
    const orFilters = pairs.slice(i, i + chunk).map((p) => ({ and: [{ field: 'urn', values: [p.urn] }, { field, values: [p.value] }] }));
    found += await searchTotal(base, orFilters);
  }
  return found;
}

/** The number of datasets holding any value of `field`. */
export function holdersOf(base: string, field: string): Promise<number> {
  return searchTotal(base, [{ and: [{ field, condition: 'EXISTS' }] }]);
}

/** Asked of Meilisearch itself: how many documents of the index match a raw filter. */
export async function engineCount(meili: { url: string; key: string }, indexUid: string, filter: string): Promise<number> {
  const res = await fetch(`${meili.url}/indexes/${indexUid}/search`, {
    method: 'POST',
    headers: { authorization: `Bearer ${meili.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ filter, limit: 0, page: 1, hitsPerPage: 0 }),
  });
  if (!res.ok) throw new Error(`Meilisearch search failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { totalHits: number }).totalHits;
}

/** Deletes the indexes under `prefix` (suites sharing one Meilisearch leave it as they found it). */
export async function dropIndexes(meili: { url: string; key: string }, prefix: string): Promise<void> {
  const headers = { authorization: `Bearer ${meili.key}` };
  const res = await fetch(`${meili.url}/indexes?limit=1000`, { headers });
  if (!res.ok) return;
  const { results } = (await res.json()) as { results: Array<{ uid: string }> };
  for (const { uid } of results.filter((r) => r.uid.startsWith(prefix))) await fetch(`${meili.url}/indexes/${uid}`, { method: 'DELETE', headers });
}
