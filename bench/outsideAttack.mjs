// `--only attack` of the outside-in benchmark (issue #29): four clients, each sending
// in a closed loop the worst request of one finding at the limits, while /health is
// sampled beside a bare Node server asked at the same moment:
// 1. a write trace of 1,000 entities x 10 aspects (the batch and results bounds), every
//    status asked for (onlyIncludeErrors=false), the answer read whole;
// 2. `_entities` with 1,000 representations naming a type that is no entity;
// 3. GraphQL at the results budget: ten aliases of scrollAcrossEntities(count: 1000);
// 4. a new bad token on every request, from one address (the failed-authentication
//    throttle, the cache of unknown tokens).
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { datasetUrn, PROPS } from './outsideData.mjs';

const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });

/** One request; resolves its status and how many bytes came back, whatever the status. */
function send(url, method, body, headers) {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, agent, headers: { ...headers, ...(payload === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }) } }, (res) => {
      let bytes = 0;
      res.on('data', (c) => (bytes += c.length));
      res.on('end', () => resolve({ status: res.statusCode, bytes }));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/** The four attacks, as functions sending one request each. */
export function attacks(serverUrl, token, n) {
  const auth = { authorization: `Bearer ${token}` };
  const aspects = ['status', 'structuredProperties', 'datasetProperties', 'globalTags', 'ownership', 'schemaMetadata', 'subTypes', 'domains', 'glossaryTerms', 'container'];
  const trace = Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [datasetUrn(i % n), aspects]));
  // Distinct urns: an entity named twice is one key of the body.
  for (let i = Object.keys(trace).length; i < 1000; i++) trace[datasetUrn(n + i)] = aspects;
  const entities = { query: 'query q($r: [_Any!]!) { _entities(representations: $r) { __typename } }', variables: { r: Array.from({ length: 1000 }, () => ({ __typename: 'Query', urn: datasetUrn(0) })) } };
  const scroll = { query: `{ ${Array.from({ length: 10 }, (_, i) => `a${i}: scrollAcrossEntities(input: {types: [DATASET], query: "*", count: 1000, orFilters: [{and: [{field: "structuredProperties.${PROPS[1][0]}", values: ["gold", "silver", "bronze"]}]}]}) { total searchResults { entity { urn } } }`).join(' ')} }` };
  return [
    { name: 'trace of 1,000 entities x 10 aspects', send: () => send(`${serverUrl}/openapi/v1/trace/write/0123456789abcdef7fffffffffffffff?onlyIncludeErrors=false`, 'POST', trace, auth) },
    { name: '_entities of 1,000 non-entity representations', send: () => send(`${serverUrl}/api/graphql`, 'POST', entities, auth) },
    { name: 'ten aliases of scrollAcrossEntities(count: 1000)', send: () => send(`${serverUrl}/api/graphql`, 'POST', scroll, auth) },
    { name: 'a new bad token per request', send: () => send(`${serverUrl}/openapi/v3/jobs`, 'GET', undefined, { authorization: `Bearer pgt_${randomBytes(32).toString('base64url')}` }) },
  ];
}

/** Runs every attack in its own closed loop for `seconds`; per attack, requests by status and the bytes answered. */
export async function runAttacks(list, seconds) {
  const until = performance.now() + seconds * 1000;
  return Promise.all(
    list.map(async (attack) => {
      const statuses = {};
      let bytes = 0;
      let requests = 0;
      while (performance.now() < until) {
        const { status, bytes: b } = await attack.send();
        statuses[status] = (statuses[status] ?? 0) + 1;
        bytes += b;
        requests++;
      }
      return { name: attack.name, requests, statuses, bytes };
    }),
  );
}
