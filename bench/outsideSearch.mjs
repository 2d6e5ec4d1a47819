// The search part of the outside-in benchmark: GraphQL scroll and aggregate (direct and
// through @apollo/gateway) and REST v3 search, each timed alternately with its raw
// baseline: the very requests the service sent to Meilisearch for it (asked of the
// service with `X-Propgraph-Explain`, as an admin), sent straight to the engine by the
// same client.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import http from 'node:http';
import { composeServices } from '@apollo/composition';
import { parse } from 'graphql';
import { percentile, rawRequest } from './support.mjs';

const WARMUP = 30;

const SCROLL = {
  query: `query scroll($input: ScrollAcrossEntitiesInput!) { scrollAcrossEntities(input: $input) { total count nextScrollId searchResults { entity { urn type } } } }`,
  variables: { input: { types: ['DATASET'], query: '*', count: 10, orFilters: [{ and: [{ field: 'structuredProperties.io.bench.retention', condition: 'GREATER_THAN', values: ['180.0'] }] }] } },
};
const AGGREGATE = {
  query: `query aggregate($input: AggregateAcrossEntitiesInput!) { aggregateAcrossEntities(input: $input) { facets { field aggregations { value count } } } }`,
  variables: { input: { types: ['DATASET'], query: '*', facets: ['structuredProperties.io.bench.tier', 'structuredProperties.io.bench.owner'], searchFlags: { maxAggValues: 20 } } },
};
/**
 * DataHub's web app's search page as Apollo Client posts it: the app's own document
 * (test/fixtures/datahub-webapp/operations.json, 3,571 fields with its fragments), with
 * the page's variables on the benchmark's catalogue.
 */
const WEB_APP_SEARCH = (() => {
  const operations = JSON.parse(readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), '../test/fixtures/datahub-webapp/operations.json'), 'utf8')).operations;
  const op = operations.find((o) => o.name === 'getSearchResultsForMultiple');
  return {
    operationName: op.name,
    query: op.document,
    variables: {
      input: {
        types: [], query: '*', start: 0, count: 10, filters: [], viewUrn: null, sortInput: null,
        orFilters: [{ and: [{ field: 'structuredProperties.io.bench.tier', values: ['gold'] }] }],
        searchFlags: { getSuggestions: true, includeStructuredPropertyFacets: true, skipHighlighting: false },
      },
    },
  };
})();
const REST_ASPECTS = ['datasetKey', 'structuredProperties'];
const REST_SEARCH = `/openapi/v3/entity/dataset?query=${encodeURIComponent('structuredProperties.io_bench_retention:>180')}&count=10${REST_ASPECTS.map((a) => `&aspects=${a}`).join('')}`;

/**
 * Times the calls in turn, 'iterations' of each after a warm-up; which goes first rotates,
 * so drift falls on all alike. When each call ran is kept too, on the monotonic clock
 * V8's CPU profiles use (microseconds): a profile of the server can then be cut to
 * exactly these requests.
 */
async function timeInTurn(fns, iterations) {
  for (let i = 0; i < WARMUP; i++) for (const f of fns) await f();
  const samples = fns.map(() => []);
  const intervals = fns.map(() => []);
  for (let i = 0; i < iterations; i++) {
    for (let j = 0; j < fns.length; j++) {
      const k = (i + j) % fns.length;
      const start = process.hrtime.bigint();
      const t = performance.now();
      await fns[k]();
      samples[k].push(performance.now() - t);
      intervals[k].push([Number(start / 1000n), Number(process.hrtime.bigint() / 1000n)]);
    }
  }
  return samples.map((xs, k) => {
    xs.sort((x, y) => x - y);
    return { p50: percentile(xs, 50), p99: percentile(xs, 99), intervals: intervals[k] };
  });
}

/** bareProxy.mjs in its own process, sending each route's engine requests. */
export async function startBareProxy(config, nodeArgs = []) {
  const child = spawn(process.execPath, [...nodeArgs, path.join(path.dirname(fileURLToPath(import.meta.url)), 'bareProxy.mjs')], { stdio: ['pipe', 'pipe', 'inherit'] });
  child.stdin.end(JSON.stringify(config));
  const url = await new Promise((resolve, reject) => {
    child.stdout.once('data', (line) => resolve(JSON.parse(line).url));
    child.once('exit', (code) => reject(new Error(`bare proxy exited (${code})`)));
  });
  return { url, stop: () => new Promise((r) => { child.once('exit', r); child.kill('SIGTERM'); }) };
}

/** One gateway (gatewayProcess.mjs) in its own process, in front of the subgraph. */
async function startGateway(kind, { supergraphSdl, subgraphUrl, token }, nodeArgs = []) {
  const child = spawn(process.execPath, [...nodeArgs, path.join(path.dirname(fileURLToPath(import.meta.url)), 'gatewayProcess.mjs')], { stdio: ['pipe', 'pipe', 'inherit'] });
  child.stdin.end(JSON.stringify({ kind, supergraphSdl, subgraphUrl, token }));
  const url = await new Promise((resolve, reject) => {
    child.stdout.once('data', (line) => resolve(JSON.parse(line).url));
    child.once('exit', (code) => reject(new Error(`${kind} gateway exited (${code})`)));
  });
  return { url, pid: child.pid, stop: () => new Promise((r) => { child.once('exit', r); child.kill('SIGTERM'); }) };
}

/** The supergraph of propgraph alone, composed from its SDL as a gateway would. */
async function composeSupergraph(subgraphUrl, token) {
  const res = await rawRequest(subgraphUrl, 'POST', { query: '{ _service { sdl } }' }, { authorization: `Bearer ${token}` });
  const result = composeServices([{ name: 'propgraph', url: subgraphUrl, typeDefs: parse(res.json.data._service.sdl) }]);
  if (result.errors) throw new Error(`composition failed: ${result.errors.map((e) => e.message).join('; ')}`);
  return result.supergraphSdl;
}

/** GraphQL requests the server answered (its own counter), for counting what one gateway request costs the subgraph. */
async function graphqlRequestsServed(serverUrl, token) {
  const text = await new Promise((resolve, reject) => {
    http.get(`${serverUrl}/metrics`, { headers: { authorization: `Bearer ${token}` } }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    }).on('error', reject);
  });
  return text.split('\n').filter((l) => l.startsWith('propgraph_http_requests_total{') && l.includes('route="/api/graphql"')).reduce((a, l) => a + Number(l.split(' ').at(-1)), 0);
}

const GATEWAYS = ['apollo', 'hive'];
const GATEWAY_NAMES = { apollo: '`@apollo/gateway`', hive: 'Hive Gateway' };
/** Issue 32's targets at 1,000,000 datasets: p50 within 1 ms of the raw request, p99 within 5 ms. */
const RAW_TARGET = { p50: 1, p99: 5 };

/**
 * The search rows. `profileArgs(name)` gives node flags for the bare proxy and each
 * gateway process (`bare`, `apollo`, `hive`), for CPU profiles of each.
 */
export async function searchFigures({ server, dataDir, databaseUrl, iterations, token, profileArgs = () => [], gateways: kinds = GATEWAYS }) {
  const bareNodeArgs = profileArgs('bare');
  const gatewayNodeArgs = (kind) => profileArgs(kind);
  const meiliUrl = server.meiliUrl;
  const masterKey = readFileSync(path.join(dataDir, 'meili', 'master-key'), 'utf8').trim();
  const graphqlUrl = `${server.url}/api/graphql`;
  const explained = async (method, url, body) => {
    const res = await rawRequest(url, method, body, { authorization: `Bearer ${token}`, 'x-propgraph-explain': 'true' });
    const header = res.headers['x-propgraph-engine-requests'];
    if (!header) throw new Error(`no engine requests explained for ${method} ${url}`);
    return JSON.parse(Buffer.from(header, 'base64url').toString('utf8'));
  };
  const raw = (requests) => async () => {
    for (const r of requests) await rawRequest(`${meiliUrl}${r.path}`, 'POST', r.body, { authorization: `Bearer ${masterKey}` });
  };
  const service = (method, url, body) => async () => {
    const res = await rawRequest(url, method, body, { authorization: `Bearer ${token}` });
    if (res.json?.errors) throw new Error(JSON.stringify(res.json.errors));
  };
  const supergraphSdl = kinds.length > 0 ? await composeSupergraph(graphqlUrl, token) : undefined;
  const gateways = {};
  for (const kind of kinds) gateways[kind] = await startGateway(kind, { supergraphSdl, subgraphUrl: graphqlUrl, token }, gatewayNodeArgs(kind));
  const direct = (body) => service('POST', graphqlUrl, body);
  const queries = [
    { label: 'GraphQL `scrollAcrossEntities`, range filter', method: 'POST', url: graphqlUrl, body: SCROLL, floorTarget: 0.2, rawTarget: RAW_TARGET },
    { label: 'GraphQL `aggregateAcrossEntities`, 2 facets', method: 'POST', url: graphqlUrl, body: AGGREGATE, floorTarget: 0.2, rawTarget: RAW_TARGET },
    { label: "DataHub's web app's search page (`getSearchResultsForMultiple`, its document as the app sends it)", method: 'POST', url: graphqlUrl, body: WEB_APP_SEARCH },
    ...kinds.flatMap((kind) => [
      { label: `the scroll through ${GATEWAY_NAMES[kind]}`, method: 'POST', url: gateways[kind].url, body: SCROLL, explainAt: graphqlUrl, gateway: kind },
      { label: `the aggregate through ${GATEWAY_NAMES[kind]}`, method: 'POST', url: gateways[kind].url, body: AGGREGATE, explainAt: graphqlUrl, gateway: kind },
    ]),
    { label: 'REST v3 `GET /entity/dataset?query=…` (aspects read included)', method: 'GET', url: `${server.url}${REST_SEARCH}`, body: undefined, floorTarget: 0.3, rawTarget: RAW_TARGET, page: REST_ASPECTS },
  ];
  const rows = [];
  const routes = [];
  for (const q of queries) routes.push({ requests: await explained(q.method, q.explainAt ?? q.url, q.body), page: q.page });
  const bare = await startBareProxy({ meiliUrl, masterKey, token, routes, databaseUrl }, bareNodeArgs);
  try {
    for (const [i, q] of queries.entries()) {
      const requests = routes[i].requests;
      const floor = () => rawRequest(`${bare.url}/?route=${i}`, q.method === 'GET' ? 'POST' : q.method, q.body ?? {}, { authorization: `Bearer ${token}` });
      const calls = [service(q.method, q.url, q.body), raw(requests), floor];
      // A gateway row is timed beside the direct call of the same query, in the same turns.
      if (q.gateway) calls.push(direct(q.body));
      const [s, r, b, d] = await timeInTurn(calls, iterations);
      let subgraphRequests;
      if (q.gateway) {
        const before = await graphqlRequestsServed(server.url, token);
        for (let k = 0; k < 10; k++) await service(q.method, q.url, q.body)();
        subgraphRequests = ((await graphqlRequestsServed(server.url, token)) - before) / 10;
      }
      console.log(`${q.label}: p50 ${s.p50.toFixed(2)} ms vs raw ${r.p50.toFixed(2)} ms (+${(s.p50 - r.p50).toFixed(2)} ms), bare proxy ${b.p50.toFixed(2)} ms (+${(b.p50 - r.p50).toFixed(2)}); p99 ${s.p99.toFixed(2)} vs ${r.p99.toFixed(2)} (${requests.length} engine request${requests.length === 1 ? '' : 's'})${d ? `; direct ${d.p50.toFixed(2)} ms, ${subgraphRequests} subgraph requests per gateway request` : ''}`);
      rows.push({ label: q.label, floorTarget: q.floorTarget, rawTarget: q.rawTarget, gateway: q.gateway, service: s, raw: r, bare: b, direct: d, subgraphRequests, engineRequests: requests.length, floorReadsPage: q.page !== undefined });
    }
  } finally {
    await bare.stop();
    for (const g of Object.values(gateways)) await g.stop();
  }
  return { rows };
}
