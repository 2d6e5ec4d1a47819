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

/**
 * `--only attack46` (issue #46 items 2, 3, 6 and 7): four clients, each in a closed loop:
 * 2. a read token's ten aliases of valueHistory(propertyUrn, count: 1000) selecting values;
 * 3. a read token's `GET /openapi/v3/jobs?count=10`, after ten bulk edits as large as a
 *    job may keep (values of 512 KiB, URNs up to 2 MiB) were queued;
 * 6. a write token's `POST /openapi/v3/tests/run {}` (the same run, joined while it waits)
 *    and a run over a new query each time (capped by the quota: 429);
 * 7. a backup read for 64 KB and then closed.
 * The caller times an admin's hard delete until its cleanup is done meanwhile.
 */
/** The names `--clients` picks issue #46's clients by (the admin's hard delete is `delete`, in outside.mjs). */
export const ATTACK46_CLIENTS = ['history', 'jobs', 'tests', 'backup'];

export function attacks46(serverUrl, tokens, propertyUrn) {
  const history = { query: `{ ${Array.from({ length: 10 }, (_, i) => `h${i}: valueHistory(input: {propertyUrn: "${propertyUrn}", count: 1000}) { nextScrollId entries { urn version changes { before { ... on StringValue { stringValue } ... on NumberValue { numberValue } } after { ... on StringValue { stringValue } ... on NumberValue { numberValue } } } } }`).join(' ')} }` };
  let runs = 0;
  return [
    { key: 'history', name: 'ten aliases of valueHistory(count: 1000), a read token', send: () => send(`${serverUrl}/api/graphql`, 'POST', history, { authorization: `Bearer ${tokens.read}` }) },
    { key: 'jobs', name: 'GET /openapi/v3/jobs?count=10 after ten bulk edits as large as a job may keep, a read token', send: () => send(`${serverUrl}/openapi/v3/jobs?count=10`, 'GET', undefined, { authorization: `Bearer ${tokens.read}` }) },
    {
      key: 'tests',
      name: 'POST /openapi/v3/tests/run, the same run and a new query in turn, a write token',
      send: () => send(`${serverUrl}/openapi/v3/tests/run`, 'POST', runs++ % 2 === 0 ? {} : { query: `name:attack${runs}` }, { authorization: `Bearer ${tokens.write}` }),
    },
    { key: 'backup', name: 'a backup read for 64 KB, then closed', send: () => abortedBackup(`${serverUrl}/openapi/v3/system/backup`, tokens.admin) },
  ];
}

/** Asks for a backup, reads about 64 KB, closes the connection (a new one each time). */
function abortedBackup(url, token) {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'GET', headers: { authorization: `Bearer ${token}` } }, (res) => {
      let bytes = 0;
      res.on('data', (c) => {
        bytes += c.length;
        if (bytes >= 64 * 1024) {
          req.destroy();
          resolve({ status: res.statusCode, bytes });
        }
      });
      res.on('end', () => resolve({ status: res.statusCode, bytes }));
    });
    req.on('error', (err) => (req.destroyed ? undefined : reject(err)));
    req.end();
  });
}

/** Ten bulk edits as large as a job may keep: 52 values of about 9,990 characters, 9,000 URNs named. */
export async function queueLargeBulkEdits(serverUrl, token, property, datasetUrn) {
  const values = Array.from({ length: 52 }, (_, i) => `${i}-${'v'.repeat(9_980)}`);
  const urns = Array.from({ length: 9_000 }, (_, i) => datasetUrn(i));
  const answers = [];
  for (let i = 0; i < 10; i++) answers.push((await send(`${serverUrl}/openapi/v3/values/bulk`, 'POST', { urns, property, operation: 'set', values }, { authorization: `Bearer ${token}` })).status);
  return answers;
}

/** The highest resident set size of process `pid` seen while `work` runs, sampled every 200 ms, in MB. */
export async function peakRss(pid, work) {
  let peak = 0;
  let done = false;
  const sampling = (async () => {
    while (!done) {
      try {
        const status = (await import('node:fs')).readFileSync(`/proc/${pid}/status`, 'utf8');
        const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
        peak = Math.max(peak, kb / 1024);
      } catch {
        // The process is gone: the run's own error says why.
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  })();
  try {
    return { result: await work(), peakMb: peak };
  } finally {
    done = true;
    await sampling;
  }
}
