/**
 * Every kind of data a release holds, written through its HTTP API (so through any
 * release's server), and read back through REST v3, GraphQL and Rest.li, for the
 * upgrade suites: what an earlier release wrote must read back identically after the
 * current build opens its data.
 *
 * Written: structured property definitions (a plain one with allowed values, a number,
 * one on schema fields, one that took a breaking change under a new version, one
 * soft-deleted), datasets with values written twice (the first kept as history), values
 * on schema fields, a soft-deleted dataset, metadata tests with their results pushed,
 * and access tokens (read, write, and a revoked one).
 *
 * Earlier versions of an aspect are read over REST v3 (`?version=N`) where the server
 * has that read; propgraph 0.1.0 has not (it answers the latest whatever the version
 * asked), so across an upgrade from it the history is compared as stored (storedHistory).
 */
import { datasetUrn, propertyUrn, V3 } from './catalog.js';
import { enc, http, type HttpResponse } from './http.js';
import { withClient } from './storedValues.js';

export const ROOT_TOKEN = 'upgrade-suite-root-token-0123456789';
export const DATASETS = 120;
export const FIELD_DATASETS = 12;
/** Datasets whose metadata test results the server evaluates and stores. */
export const EVALUATED = 40;
export const datasetOf = (i: number) => datasetUrn(`up.d${String(i).padStart(4, '0')}`);
export const fieldOf = (i: number, col: number) => `urn:li:schemaField:(${datasetOf(i)},col${col})`;
export const PROPERTIES = ['up.tier', 'up.score', 'up.note', 'up.versioned', 'up.retired'];
export const TESTS = ['up-gold', 'up-scored'];

export interface Tokens {
  readonly read: string;
  readonly write: string;
  readonly revoked: string;
}

const root = { authorization: `Bearer ${ROOT_TOKEN}` };

async function ok(res: Promise<HttpResponse>): Promise<any> {
  const r = await res;
  if (r.status >= 300) throw new Error(`${r.status}: ${r.text.slice(0, 400)}`);
  return r.body;
}

function define(url: string, qualifiedName: string, value: Record<string, unknown>): Promise<any> {
  return ok(
    http(url, 'POST', `${V3}/entity/structuredProperty/${enc(propertyUrn(qualifiedName))}/propertyDefinition`, {
      headers: root,
      query: { createIfNotExists: 'false' },
      json: { value: { qualifiedName, cardinality: 'SINGLE', entityTypes: ['urn:li:entityType:svc.dataset'], ...value } },
    }),
  );
}

const values = (entries: Record<string, Array<string | number>>) => ({
  properties: Object.entries(entries).map(([name, vs]) => ({
    propertyUrn: propertyUrn(name),
    values: vs.map((v) => (typeof v === 'number' ? { double: v } : { string: v })),
  })),
});

export async function writeEveryKind(url: string): Promise<Tokens> {
  await define(url, 'up.tier', { valueType: 'urn:li:dataType:svc.string', allowedValues: [{ value: { string: 'gold' } }, { value: { string: 'silver' }, description: 'second best' }], displayName: 'Tier' });
  await define(url, 'up.score', { valueType: 'urn:li:dataType:svc.number', description: 'a score' });
  await define(url, 'up.note', { valueType: 'urn:li:dataType:svc.string', cardinality: 'MULTIPLE', entityTypes: ['urn:li:entityType:svc.schemaField'] });
  await define(url, 'up.versioned', { valueType: 'urn:li:dataType:svc.string', version: '20240101000000' });
  await define(url, 'up.retired', { valueType: 'urn:li:dataType:svc.string' });

  for (const round of [1, 2]) {
    const batch = Array.from({ length: DATASETS }, (_, i) => ({
      urn: datasetOf(i),
      status: { value: { removed: false } },
      structuredProperties: {
        value: values({ 'up.tier': [i % 3 === 0 ? 'gold' : 'silver'], 'up.score': [i * round], 'up.versioned': [`v${round}`], 'up.retired': [`r${i}`] }),
      },
    }));
    await ok(http(url, 'POST', `${V3}/entity/dataset`, { headers: root, json: batch }));
  }
  for (let i = 0; i < FIELD_DATASETS; i++) {
    for (const col of [0, 1]) {
      await ok(
        http(url, 'POST', `${V3}/entity/schemaField/${enc(fieldOf(i, col))}/structuredProperties`, { headers: root, query: { createIfNotExists: 'false' }, json: { value: values({ 'up.note': [`note ${i}.${col}`, 'shared'] }) } }),
      );
    }
  }
  // A breaking change under a new version: values written before are hidden from then on.
  await define(url, 'up.versioned', { valueType: 'urn:li:dataType:svc.number', version: '20250101000000' });
  await ok(http(url, 'POST', `${V3}/entity/dataset/${enc(datasetOf(1))}/structuredProperties`, { headers: root, query: { createIfNotExists: 'false' }, json: { value: values({ 'up.versioned': [2025] }) } }));
  await ok(http(url, 'POST', `${V3}/entity/structuredProperty/${enc(propertyUrn('up.retired'))}/status`, { headers: root, query: { createIfNotExists: 'false' }, json: { value: { removed: true } } }));
  await ok(http(url, 'POST', `${V3}/entity/dataset/${enc(datasetOf(DATASETS - 1))}/status`, { headers: root, query: { createIfNotExists: 'false' }, json: { value: { removed: true } } }));

  for (const [id, rules] of [
    ['up-gold', { property: `structuredProperties.${propertyUrn('up.tier')}`, operator: 'equals', values: ['gold'] }],
    ['up-scored', { property: `structuredProperties.${propertyUrn('up.score')}`, operator: 'exists' }],
  ] as const) {
    const definition = { on: { types: ['dataset'] }, rules };
    await ok(http(url, 'POST', `${V3}/entity/test/${enc(`urn:li:test:${id}`)}/testInfo`, { headers: root, query: { createIfNotExists: 'false' }, json: { value: { name: id, category: 'Upgrade', definition: { type: 'JSON', json: JSON.stringify(definition) } } } }));
  }
  // Ten entities a request: each pushed result is a write that may wait for the index.
  for (let i = 0; i < EVALUATED; i += 10) {
    const urns = Array.from({ length: Math.min(10, EVALUATED - i) }, (_, k) => datasetOf(i + k));
    await ok(http(url, 'POST', '/gms/test', { headers: root, query: { action: 'batchEvaluate' }, json: { urns, push: true } }));
  }

  const token = async (name: string, scope: string) => (await ok(http(url, 'POST', `${V3}/tokens`, { headers: root, json: { name, scope } }))) as { accessToken: string; metadata: { id: string } };
  const read = await token('up-reader', 'read');
  const write = await token('up-writer', 'write');
  const revoked = await token('up-revoked', 'read');
  await ok(http(url, 'DELETE', `${V3}/tokens/${enc(revoked.metadata.id)}`, { headers: root }));
  return { read: read.accessToken, write: write.accessToken, revoked: revoked.accessToken };
}

const DATASET_QUERY = `query ds($urn: String!) {
  dataset(urn: $urn) {
    urn type name origin platform { urn name }
    structuredProperties {
      properties {
        structuredProperty { urn definition { qualifiedName displayName valueType { urn } cardinality allowedValues { description } } }
        values { ... on StringValue { stringValue } ... on NumberValue { numberValue } }
        associatedUrn
      }
    }
  }
}`;

const SEARCH_QUERY = `query s($input: ScrollAcrossEntitiesInput!) { scrollAcrossEntities(input: $input) { total searchResults { entity { urn } } } }`;
const FACETS_QUERY = `query f($input: AggregateAcrossEntitiesInput!) { aggregateAcrossEntities(input: $input) { facets { field aggregations { value count } } } }`;

/** The read's own metadata (how long it took, when it was observed); audit times of writes are data and stay. */
const VOLATILE = new Set(['lastObserved', 'runId', 'tookMs']);

function stripVolatile(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value, (key, v) => (VOLATILE.has(key) ? undefined : v)));
}

/**
 * Everything a client reads of the catalogue, keyed by what was asked, over the three
 * interfaces. `versionReads`: ask for an earlier version of each dataset's values too
 * (a read propgraph 0.1.0 does not have).
 */
export async function readEverything(url: string, options: { versionReads: boolean } = { versionReads: true }): Promise<Record<string, unknown>> {
  const read: Record<string, unknown> = {};
  const get = async (key: string, path: string, query: Record<string, string> = {}) => {
    const res = await http(url, 'GET', path, { headers: root, query });
    read[key] = { status: res.status, body: stripVolatile(res.body) };
  };
  const gql = async (key: string, query: string, variables: Record<string, unknown>) => {
    const res = await http(url, 'POST', '/api/graphql', { headers: root, json: { query, variables } });
    read[key] = { status: res.status, body: stripVolatile(res.body) };
  };
  for (const name of PROPERTIES) {
    await get(`rest property ${name}`, `${V3}/entity/structuredProperty/${enc(propertyUrn(name))}`);
    await get(`restli property ${name}`, `/entitiesV2/${enc(propertyUrn(name))}`);
  }
  for (const i of [0, 1, 2, 3, 5, 11, 40, DATASETS - 2, DATASETS - 1]) {
    await get(`rest dataset ${i}`, `${V3}/entity/dataset/${enc(datasetOf(i))}`);
    if (options.versionReads) await get(`rest dataset ${i} history`, `${V3}/entity/dataset/${enc(datasetOf(i))}/structuredProperties`, { version: '1' });
    await get(`restli dataset ${i}`, `/entitiesV2/${enc(datasetOf(i))}`);
    await gql(`graphql dataset ${i}`, DATASET_QUERY, { urn: datasetOf(i) });
  }
  for (const [i, col] of [[0, 0], [3, 1], [FIELD_DATASETS - 1, 1]] as const) {
    await get(`rest field ${i}.${col}`, `${V3}/entity/schemaField/${enc(fieldOf(i, col))}`);
    await get(`restli field ${i}.${col}`, `/entitiesV2/${enc(fieldOf(i, col))}`);
  }
  for (const id of TESTS) {
    await get(`rest test ${id}`, `${V3}/entity/test/${enc(`urn:li:test:${id}`)}`);
    await gql(`graphql test ${id}`, 'query t($urn: String!) { test(urn: $urn) { urn name category definition { json } } }', { urn: `urn:li:test:${id}` });
  }
  return read;
}

/** A GraphQL answer that must hold data: an error answered the same way by two versions proves nothing. */
function answered(body: any, what: string): unknown {
  if (!body || body.errors || !body.data) throw new Error(`${what} failed: ${JSON.stringify(body).slice(0, 500)}`);
  return stripVolatile(body);
}

/** What searches answer: totals, first hits and facet counts, over GraphQL and REST. */
export async function searchEverything(url: string): Promise<Record<string, unknown>> {
  const answers: Record<string, unknown> = {};
  const search = async (key: string, input: Record<string, unknown>) => {
    const res = await http(url, 'POST', '/api/graphql', { headers: root, json: { query: SEARCH_QUERY, variables: { input } } });
    answers[key] = answered(res.body, key);
  };
  for (const query of ['*', 'structuredProperties.up.tier:gold', 'structuredProperties.up.score:>50', 'up.d0011']) {
    await search(`graphql scroll ${query}`, { types: ['DATASET'], query, count: 5 });
  }
  await search('graphql fields', { types: ['SCHEMA_FIELD'], query: 'structuredProperties.up.note:shared', count: 3 });
  await search('graphql soft-deleted', { types: ['DATASET'], query: '*', count: 5, orFilters: [{ and: [{ field: 'removed', values: ['true'] }] }] });
  const facets = await http(url, 'POST', '/api/graphql', {
    headers: root,
    json: { query: FACETS_QUERY, variables: { input: { types: ['DATASET'], query: '*', facets: ['structuredProperties.up.tier', 'structuredProperties.up.score', '_entityType'] } } },
  });
  answers['graphql facets'] = answered(facets.body, 'facets');
  const rest = await http(url, 'GET', `${V3}/entity/dataset`, { headers: root, query: { query: 'structuredProperties.up_tier:silver', count: '5' } });
  if (rest.status !== 200) throw new Error(`REST search failed: ${rest.status} ${rest.text.slice(0, 300)}`);
  answers['rest search'] = { status: rest.status, body: stripVolatile(rest.body) };
  return answers;
}

/**
 * Every earlier version of the catalogue's aspects as the database stores them (the
 * write path numbers them as DataHub does, 1 the oldest, in every release): what an
 * upgrade keeps of history, compared where the older release has no read of it.
 */
export async function storedHistory(databaseUrl: string): Promise<unknown[]> {
  const urns = [
    ...Array.from({ length: DATASETS }, (_, i) => datasetOf(i)),
    ...Array.from({ length: FIELD_DATASETS }, (_, i) => [fieldOf(i, 0), fieldOf(i, 1)]).flat(),
    ...PROPERTIES.map((name) => propertyUrn(name)),
    ...TESTS.map((id) => `urn:li:test:${id}`),
  ];
  return withClient(databaseUrl, async (c) =>
    (
      await c.query(
        `SELECT urn, aspect, version::int AS version, metadata, created_on, created_by FROM aspect
          WHERE version > 0 AND urn = ANY($1::text[]) ORDER BY urn, aspect, version`,
        [urns],
      )
    ).rows,
  );
}

/**
 * `after` without the test results `before` did not have: a version that evaluates
 * metadata tests continuously (from 0.2.0) evaluates, on its first start, the entities
 * an older one never evaluated, and stores their results. Results that existed must
 * read back as they were. Returns the number of results left out.
 */
export function withoutNewTestResults(before: unknown, after: unknown): { read: unknown; added: number } {
  let added = 0;
  const walk = (b: unknown, a: unknown): unknown => {
    if (Array.isArray(a)) return a.map((x, i) => walk(Array.isArray(b) ? b[i] : undefined, x));
    if (a === null || typeof a !== 'object') return a;
    const was = b !== null && typeof b === 'object' && !Array.isArray(b) ? (b as Record<string, unknown>) : {};
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(a)) {
      if (key === 'testResults' && !(key in was)) {
        added++;
        continue;
      }
      out[key] = walk(was[key], value);
    }
    return out;
  };
  return { read: walk(before, after), added };
}
