/**
 * Issue #29, items 1, 3 and 6: what one request may ask the server for. A write trace
 * is bounded as a batch is (entities, and entity-aspect pairs within the results
 * budget); every interface reads the same results budget (GraphQL's summed `count`
 * arguments, REST's batch reads and writes, Rest.li's proposal batches); a client that
 * stops reading its answer is disconnected; a trace id past a signed 64-bit change id is
 * a 400. Refusals name the limit and change nothing.
 */
import { connect } from 'node:net';
import { findEntityType } from '../../src/domain/registry/entityTypes.js';
import { LIMITS } from '../../src/domain/limits.js';
import { databaseChecksum } from '../support/dbChecksum.js';
import { http } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';

const ROOT = 'budget-root-secret';
const auth = { authorization: `Bearer ${ROOT}` };
const TRACE_ID = '0123456789abcdef0000000000000001';
const datasetUrn = (i: number) => `urn:li:dataset:(urn:li:dataPlatform:hive,budget.t${i},PROD)`;
const DATASET_ASPECTS = findEntityType('dataset')!.aspects;

let server: TestServer;

/** A refused request: 400, a message naming `says`, and the database as it was. */
async function refused(send: () => Promise<{ status: number; body: { message?: string; errors?: Array<{ message: string }> } }>, says: RegExp): Promise<void> {
  const before = await databaseChecksum(server.database.sql);
  const res = await send();
  expect(res.status).toBe(400);
  expect(res.body.message ?? res.body.errors?.[0]?.message).toMatch(says);
  expect(await databaseChecksum(server.database.sql)).toBe(before);
}

const graphql = (query: string, variables?: Record<string, unknown>) => http(server.url, 'POST', '/api/graphql', { headers: auth, json: { query, ...(variables ? { variables } : {}) } });

beforeAll(async () => {
  server = await startTestServer({ env: { AUTH_ENABLED: 'true', ROOT_TOKEN: ROOT, RATE_LIMIT_PER_MINUTE: '1000000', RESPONSE_WRITE_TIMEOUT_MS: '1000' } });
}, 120_000);
afterAll(async () => {
  await server?.stop();
});

describe('item 1: the write trace is bounded as a batch is', () => {
  const trace = (prefix: string, body: unknown, query = '') => () => http(server.url, 'POST', `${prefix}/v1/trace/write/${TRACE_ID}${query}`, { headers: auth, json: body });

  test.each(['/openapi', '/gms/openapi'])('%s: more entities than a batch may hold is a 400 naming the limit', async (prefix) => {
    const body = Object.fromEntries(Array.from({ length: LIMITS.batchEntities + 1 }, (_, i) => [datasetUrn(i), ['status']]));
    await refused(trace(prefix, body), new RegExp(`more than the limit of ${LIMITS.batchEntities} entities in one batch`));
  });

  test.each(['/openapi', '/gms/openapi'])('%s: more entity-aspect pairs than the results budget is a 400 naming the limit', async (prefix) => {
    const aspects = DATASET_ASPECTS.slice(0, 11);
    const body = Object.fromEntries(Array.from({ length: LIMITS.batchEntities }, (_, i) => [datasetUrn(i), aspects]));
    await refused(trace(prefix, body), /11000 results, more than the limit of 10000/);
  });

  test('at the limits the trace is answered, with every pair asked about', async () => {
    const aspects = DATASET_ASPECTS.slice(0, 10);
    const body = Object.fromEntries(Array.from({ length: LIMITS.batchEntities }, (_, i) => [datasetUrn(i), aspects]));
    const res = await trace('/openapi', body, '?onlyIncludeErrors=false')();
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toHaveLength(LIMITS.batchEntities);
    expect(Object.keys(res.body[datasetUrn(0)])).toEqual(aspects);
  });
});

describe('item 6: trace ids', () => {
  test.each(['/openapi', '/gms/openapi'])('%s: a trace id whose last 16 hex digits exceed a signed 64-bit number is a 400 naming traceId', async (prefix) => {
    for (const id of ['0123456789abcdef8000000000000000', '0123456789abcdefffffffffffffffff']) {
      const res = await http(server.url, 'POST', `${prefix}/v1/trace/write/${id}`, { headers: auth, json: { [datasetUrn(0)]: ['status'] } });
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(/^traceId .* is not a trace id of this server/);
    }
  });
});

describe('item 3: one results budget for every interface', () => {
  const scroll = (alias: string, count: string) => `${alias}: scrollAcrossEntities(input: {query: "*", count: ${count}}) { total }`;

  test('GraphQL: eleven aliases asking for 1,000 hits each are a 400 naming the limit', async () => {
    const query = `{ ${Array.from({ length: 11 }, (_, i) => scroll(`a${i}`, '1000')).join(' ')} }`;
    await refused(() => graphql(query), /asks for 11000 results.*limit of 10000/);
  });

  test('GraphQL: counts given as variables, and inside an input variable, are summed too', async () => {
    const viaInt = `query q($n: Int) { ${Array.from({ length: 11 }, (_, i) => scroll(`a${i}`, '$n')).join(' ')} }`;
    await refused(() => graphql(viaInt, { n: 1000 }), /limit of 10000/);
    const viaInput = `query q($i: ScrollAcrossEntitiesInput!) { ${Array.from({ length: 6 }, (_, i) => `a${i}: scrollAcrossEntities(input: $i) { total }`).join(' ')} t: listTests(input: {count: 1000}) { total } u: listTests(input: {count: 1000}) { total } v: listTests(input: {count: 1000}) { total } w: listTests(input: {count: 1000}) { total } x: listTests(input: {count: 1000}) { total } }`;
    await refused(() => graphql(viaInput, { i: { query: '*', count: 1000 } }), /asks for 11000 results/);
  });

  test('GraphQL: a fragment spread twice counts twice', async () => {
    const query = `{ ...F ...G } fragment F on Query { ${Array.from({ length: 6 }, (_, i) => scroll(`f${i}`, '1000')).join(' ')} } fragment G on Query { ${Array.from({ length: 5 }, (_, i) => scroll(`g${i}`, '1000')).join(' ')} }`;
    await refused(() => graphql(query), /asks for 11000 results/);
  });

  test('GraphQL: ten aliases of 1,000 hits are within the budget', async () => {
    const res = await graphql(`{ ${Array.from({ length: 10 }, (_, i) => `a${i}: listTests(input: {count: 1000}) { total }`).join(' ')} }`);
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
  });

  test('REST batchGet: entities times the aspects asked for (all of them when none is named) over the budget is a 400', async () => {
    const named = Array.from({ length: 1000 }, (_, i) => ({ urn: datasetUrn(i), ...Object.fromEntries(DATASET_ASPECTS.slice(0, 11).map((a) => [a, {}])) }));
    await refused(() => http(server.url, 'POST', '/openapi/v3/entity/dataset/batchGet', { headers: auth, json: named }), /asks for 11000 results.*limit of 10000/);
    const all = Array.from({ length: 600 }, (_, i) => ({ urn: datasetUrn(i) }));
    await refused(() => http(server.url, 'POST', '/gms/openapi/v3/entity/dataset/batchGet', { headers: auth, json: all }), /limit of 10000/);
  });

  test.each(['v2', 'v3'])('REST %s batch write: entities times aspects over the budget is a 400', async (version) => {
    const aspects = ['status', 'subTypes', 'globalTags', 'glossaryTerms', 'ownership', 'domains', 'institutionalMemory', 'browsePathsV2', 'container', 'datasetProperties', 'editableDatasetProperties'];
    const item = (i: number) =>
      version === 'v3'
        ? { urn: datasetUrn(i), ...Object.fromEntries(aspects.map((a) => [a, { value: {} }])) }
        : { urn: datasetUrn(i), aspects: Object.fromEntries(aspects.map((a) => [a, { value: {} }])) };
    const body = Array.from({ length: 1000 }, (_, i) => item(i));
    await refused(() => http(server.url, 'POST', `/openapi/${version}/entity/dataset`, { headers: auth, json: body }), /asks for 11000 results.*limit of 10000/);
  });

  test('REST v3 batch patch: entities times aspects over the budget is a 400', async () => {
    const patch = { value: { patch: [{ op: 'add', path: '/removed', value: false }] } };
    const aspects = DATASET_ASPECTS.slice(0, 11);
    const body = Array.from({ length: 1000 }, (_, i) => ({ urn: datasetUrn(i), ...Object.fromEntries(aspects.map((a) => [a, patch])) }));
    await refused(() => http(server.url, 'PATCH', '/openapi/v3/entity/dataset', { headers: auth, json: body }), /limit of 10000/);
  });

  test('Rest.li: a proposal batch is held to the same budget (one result per proposal, at most a batch)', async () => {
    const proposal = (i: number) => ({ entityType: 'dataset', entityUrn: datasetUrn(i), changeType: 'UPSERT', aspectName: 'status', aspect: { value: '{"removed": false}', contentType: 'application/json' } });
    await refused(() => http(server.url, 'POST', '/aspects?action=ingestProposalBatch', { headers: auth, json: { proposals: Array.from({ length: LIMITS.batchEntities + 1 }, (_, i) => proposal(i)) } }), /proposals/);
    expect(LIMITS.batchEntities).toBeLessThanOrEqual(10_000);
  });
});

describe('item 1: a client that does not read its answer', () => {
  test('is disconnected once its answer has made no progress for RESPONSE_WRITE_TIMEOUT_MS, and the server goes on', async () => {
    // About 20 MB of answer: far more than the kernel's socket buffers hold for a reader that reads nothing.
    const big = 'x'.repeat(500_000);
    for (let batch = 0; batch < 2; batch++) {
      const items = Array.from({ length: 20 }, (_, i) => ({ urn: datasetUrn(10_000 + batch * 20 + i), datasetProperties: { value: { customProperties: { filler: big } } } }));
      expect((await http(server.url, 'POST', '/openapi/v3/entity/dataset', { headers: auth, json: items })).status).toBe(200);
    }
    const { hostname, port } = new URL(server.url);
    const answer = await new Promise<Buffer>((resolve, reject) => {
      const socket = connect({ host: hostname, port: Number(port) });
      const chunks: Buffer[] = [];
      const limit = setTimeout(() => {
        socket.destroy();
        reject(new Error('the connection was still open a minute later'));
      }, 60_000);
      socket.on('connect', () => {
        socket.write(`GET /openapi/v3/entity/dataset?count=100&aspects=datasetProperties HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${ROOT}\r\n\r\n`);
      });
      // The first bytes, then nothing for five write timeouts; then whatever is left, until the connection ends.
      socket.once('data', (chunk: Buffer) => {
        chunks.push(chunk);
        socket.pause();
        setTimeout(() => {
          socket.on('data', (more: Buffer) => chunks.push(more));
          socket.resume();
        }, 5000);
      });
      socket.on('error', () => undefined);
      socket.on('close', () => {
        clearTimeout(limit);
        resolve(Buffer.concat(chunks));
      });
    });
    const headEnd = answer.indexOf('\r\n\r\n');
    const head = answer.subarray(0, headEnd).toString('latin1');
    expect(head).toMatch(/^HTTP\/1\.1 200/);
    const declared = Number(/content-length: (\d+)/i.exec(head)?.[1]);
    expect(declared).toBeGreaterThan(19_000_000);
    // The server gave up: the client got what the kernel buffers held, not the answer.
    expect(answer.length - headEnd - 4).toBeLessThan(declared);
    expect((await http(server.url, 'GET', '/openapi/v3/entity/dataset?count=1', { headers: auth })).status).toBe(200);
  }, 120_000);

  test('a client that reads slowly, a little at a time, keeps its connection and gets the whole answer', async () => {
    const { hostname, port } = new URL(server.url);
    const answer = await new Promise<Buffer>((resolve, reject) => {
      const socket = connect({ host: hostname, port: Number(port) });
      const chunks: Buffer[] = [];
      let declared = Number.POSITIVE_INFINITY;
      let received = 0;
      const limit = setTimeout(() => {
        socket.destroy();
        reject(new Error(`the whole answer did not arrive: ${received} of ${declared} bytes`));
      }, 90_000);
      // Reads for 20 ms, then nothing for 400 ms, again and again: slower than the kernel's buffers fill, but never idle for the write timeout (1 s).
      const pace = setInterval(() => {
        socket.resume();
        setTimeout(() => socket.pause(), 20);
      }, 420);
      socket.on('connect', () => {
        socket.write(`GET /openapi/v3/entity/dataset?count=100&aspects=datasetProperties HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${ROOT}\r\nConnection: close\r\n\r\n`);
      });
      socket.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        received += chunk.length;
        if (declared === Number.POSITIVE_INFINITY) {
          const head = Buffer.concat(chunks).toString('latin1');
          const length = /content-length: (\d+)/i.exec(head)?.[1];
          if (length) declared = Number(length) + head.indexOf('\r\n\r\n') + 4;
        }
      });
      socket.on('error', () => undefined);
      socket.on('close', () => {
        clearTimeout(limit);
        clearInterval(pace);
        resolve(Buffer.concat(chunks));
      });
    });
    const headEnd = answer.indexOf('\r\n\r\n');
    const declared = Number(/content-length: (\d+)/i.exec(answer.subarray(0, headEnd).toString('latin1'))?.[1]);
    expect(declared).toBeGreaterThan(19_000_000);
    expect(answer.length - headEnd - 4).toBe(declared);
  }, 120_000);
});
