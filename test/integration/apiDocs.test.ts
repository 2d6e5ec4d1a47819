/**
 * The API documentation (issue #8): the OpenAPI document validates, covers every
 * registered route (compared with the route table Fastify announces), documents the
 * docs/contract.md §4 errors, and its examples work against the server; the documentation pages are
 * public and load nothing from elsewhere; the GraphQL explorer can be switched off.
 * Browser behaviour is in test/e2e/apiDocsBrowser.test.ts.
 */
import { SESSION_PATH, SIGN_OUT_PATH } from '../../src/rest/sessionRoutes.js';
import { SIGN_IN_PATHS } from '../../src/rest/signInRoutes.js';
import { isDataHubAppPath } from '../../src/web/datahubApp.js';
import { isConsolePath } from '../../src/web/console.js';
import SwaggerParser from '@apidevtools/swagger-parser';
import { loadConfig } from '../../src/platform/config.js';
import { GRAPHQL_PATHS } from '../../src/graphql/server.js';
import { enc, http } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { nonEmpty } from '../support/nonEmpty.js';

const TOKEN = 'docs-test-root-token';
const auth = { authorization: `Bearer ${TOKEN}` };

type Operation = {
  operationId?: string;
  summary?: string;
  description?: string;
  security?: unknown[];
  servers?: Array<{ url: string }>;
  'x-undocumented'?: boolean;
  requestBody?: { content: Record<string, { examples?: Record<string, { value: unknown }> }> };
  responses: Record<string, { content?: Record<string, { schema?: { $ref?: string }; examples?: Record<string, { value: any }> }> }>;
};
type Document = { paths: Record<string, Record<string, Operation>>; servers: Array<{ url: string }> };

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

function operations(doc: Document): Array<{ path: string; method: string; op: Operation }> {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, op]) => ({ path, method, op })),
  );
}

let server: TestServer;
let doc: Document;

beforeAll(async () => {
  server = await startTestServer({ env: { AUTH_ENABLED: 'true', ROOT_TOKEN: TOKEN } });
  const res = await http(server.url, 'GET', '/openapi/v3/api-docs');
  expect(res.status).toBe(200);
  doc = res.body;
});
afterAll(async () => {
  await server.stop();
});

describe('the OpenAPI document', () => {
  test('is a valid OpenAPI 3 document', async () => {
    const validated = (await SwaggerParser.validate(structuredClone(doc) as never)) as { openapi: string };
    expect(validated.openapi).toMatch(/^3\./);
  });

  test('is served at /openapi/v3/api-docs and /openapi/v2/api-docs without a token', async () => {
    const v2 = await http(server.url, 'GET', '/openapi/v2/api-docs');
    expect(v2.status).toBe(200);
    expect(v2.body).toEqual(doc);
  });

  test('covers every registered REST route, and documents nothing that is not served', () => {
    // A route without an entry in src/rest/schemas/ still appears, marked x-undocumented.
    const documentation = new Set(operations(doc).filter(({ op }) => !op['x-undocumented']).map(({ path, method }) => `${method.toUpperCase()} ${path}`));
    const registered = server.app.routeTable.filter(
      (r) =>
        // Fastify adds a HEAD route for every GET; the GET documents it.
        r.method !== 'HEAD' &&
        // CORS preflight, answered for any path.
        r.method !== 'OPTIONS' &&
        // GraphQL describes itself (introspection, schema.graphql, the explorer), not in OpenAPI.
        !GRAPHQL_PATHS.includes(r.url) &&
        // The documentation itself: the document, Swagger UI and the explorer with their files.
        !/^\/openapi\/v[23]\/api-docs$|^\/openapi\/swagger-ui(\/|$)|^\/api\/graphiql(\/|$)/.test(r.url) &&
        // The web console's pages and files: not part of the REST API.
        !isConsolePath(r.url) &&
        // Browser sign-in and sign-out: plumbing for the console and the CLI (docs/security.md), hidden from the document.
        ![SESSION_PATH, SIGN_OUT_PATH, ...SIGN_IN_PATHS].includes(r.url) &&
        // DataHub's web app, its files and the routes it calls (docs/datahub-compatibility.md): not part of the REST API.
        !isDataHubAppPath(r.url),
    );
    expect(registered.length).toBeGreaterThan(30);
    // Routes under /gms are the document's second server: documented once, at the root path.
    const keyOf = (r: { method: string; url: string }) => `${r.method} ${r.url.replace(/^\/gms(?=\/)/, '').replace(/:(\w+)/g, '{$1}')}`;
    const undocumented = [...new Set(registered.map(keyOf))].filter((key) => !documentation.has(key));
    expect(undocumented).toEqual([]);
    const served = new Set(registered.map(keyOf));
    expect(operations(doc).map(({ path, method }) => `${method.toUpperCase()} ${path}`).filter((key) => !served.has(key))).toEqual([]);
  });

  test('documents each route fully: id, summary, description, a success answer, the docs/contract.md §4 errors', () => {
    const ids = new Set<string>();
    for (const { path, method, op } of nonEmpty(operations(doc))) {
      const where = `${method.toUpperCase()} ${path}`;
      expect({ where, undocumented: op['x-undocumented'] ?? false }).toEqual({ where, undocumented: false });
      expect(op.operationId && op.summary && op.description).toBeTruthy();
      expect(ids.has(op.operationId!)).toBe(false);
      ids.add(op.operationId!);
      expect(Object.keys(op.responses).some((s) => s.startsWith('2'))).toBe(true);
      const isPublic = Array.isArray(op.security) && op.security.length === 0;
      if (!isPublic) expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['401', '429', '500']));
      if (op.requestBody) {
        expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['413', '415']));
        for (const media of Object.values(op.requestBody.content)) expect(Object.keys(media.examples ?? {}).length).toBeGreaterThan(0);
      }
      for (const [status, response] of Object.entries(op.responses)) {
        if (Number(status) < 400 || status === '503') continue;
        const media = response.content?.['application/json'];
        expect({ where, status, schema: media?.schema }).toEqual({ where, status, schema: { $ref: '#/components/schemas/ErrorResponse' } });
        const examples = Object.values(media?.examples ?? {});
        expect(examples.length).toBeGreaterThan(0);
        for (const example of examples) expect(typeof example.value.error).toBe('string');
      }
    }
  });

  test('every documented operation is also served under /gms, except those that say otherwise', () => {
    const served = new Set(server.app.routeTable.map((r) => `${r.method} ${r.url.replace(/:(\w+)/g, '{$1}')}`));
    expect(doc.servers.map((s) => s.url)).toEqual(['/', '/gms']);
    for (const { path, method, op } of nonEmpty(operations(doc))) {
      const expected = op.servers?.map((s) => s.url) ?? ['/', '/gms'];
      for (const base of ['/', '/gms']) {
        const key = `${method.toUpperCase()} ${base === '/' ? path : base + path}`;
        expect({ key, served: served.has(key) }).toEqual({ key, served: expected.includes(base) });
      }
    }
  });
});

describe('the documented examples work against the server', () => {
  const op = (method: string, path: string) => doc.paths[path]![method]!;
  const bodyExample = (method: string, path: string, name: string, type = 'application/json') => op(method, path).requestBody!.content[type]!.examples![name]!.value;
  const responseExample = (method: string, path: string, status: number, name: string) => op(method, path).responses[String(status)]!.content!['application/json']!.examples![name]!.value;

  test.each(['v3', 'v2'])('%s: define the property, create the datasets, set, patch and read values, soft delete and restore', async (version) => {
    const base = `/openapi/${version}/entity/{entityName}`;
    const aspectPath = `${base}/{urn}/{aspect}`;
    const P = 'urn:li:structuredProperty:io.acryl.privacy.retentionTime';
    const D = 'urn:li:dataset:(urn:li:dataPlatform:hive,db.orders,PROD)';
    const route = (entity: string, urn: string, aspect: string) => `/openapi/${version}/entity/${entity}/${enc(urn)}/${aspect}`;
    const upsert = { createIfNotExists: 'false' };

    const defined = await http(server.url, 'POST', route('structuredProperty', P, 'propertyDefinition'), { json: bodyExample('post', aspectPath, 'propertyDefinition'), query: upsert, headers: auth });
    expect(defined.status).toBe(200);
    expect(defined.body).toEqual(responseExample('post', aspectPath, 200, 'propertyDefinition'));

    const created = await http(server.url, 'POST', `/openapi/${version}/entity/dataset`, { json: bodyExample('post', base, 'createDatasets'), headers: auth });
    expect(created.status).toBe(200);

    const set = await http(server.url, 'POST', route('dataset', D, 'structuredProperties'), { json: bodyExample('post', aspectPath, 'structuredProperties'), query: upsert, headers: auth });
    expect(set.status).toBe(200);
    expect(set.body).toEqual(responseExample('post', aspectPath, 200, 'structuredProperties'));
    expect(set.text).toContain('{"double":60.0}');

    const patched = await http(server.url, 'PATCH', route('dataset', D, 'structuredProperties'), {
      json: bodyExample('patch', aspectPath, 'setOne', 'application/json-patch+json'),
      contentType: 'application/json-patch+json',
      headers: auth,
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toEqual(responseExample('patch', aspectPath, 200, 'patched'));

    const read = await http(server.url, 'GET', route('dataset', D, 'structuredProperties'), { headers: auth });
    expect(read.status).toBe(200);
    expect(JSON.stringify(read.body)).toContain('{"double":30}');

    for (const example of ['softDelete', 'restore']) {
      const res = await http(server.url, 'POST', route('structuredProperty', P, 'status'), { json: bodyExample('post', aspectPath, example), query: upsert, headers: auth });
      expect(res.status).toBe(200);
    }
    const removed = await http(server.url, 'PATCH', route('dataset', D, 'structuredProperties'), { json: bodyExample('patch', aspectPath, 'removeOne'), headers: auth });
    expect(removed.status).toBe(200);
  });

  test('metadata test, evaluation and tokens', async () => {
    const aspectPath = '/openapi/v3/entity/{entityName}/{urn}/{aspect}';
    const testInfo = await http(server.url, 'POST', `/openapi/v3/entity/test/${enc('urn:li:test:retention-is-set')}/testInfo`, {
      json: bodyExample('post', aspectPath, 'testInfo'),
      query: { createIfNotExists: 'false' },
      headers: auth,
    });
    expect(testInfo.status).toBe(200);
    const evaluated = await http(server.url, 'POST', '/gms/test', { json: bodyExample('post', '/test', 'evaluate'), query: { action: 'evaluate' }, headers: auth });
    expect(evaluated.status).toBe(200);
    expect(Object.keys(evaluated.body.value).sort()).toEqual(Object.keys(responseExample('post', '/test', 200, 'evaluate').value).sort());
    const batch = await http(server.url, 'POST', '/test', { json: bodyExample('post', '/test', 'batchEvaluate'), query: { action: 'batchEvaluate' }, headers: auth });
    expect(batch.status).toBe(200);
    expect(Object.keys(batch.body.value).sort()).toEqual(Object.keys(responseExample('post', '/test', 200, 'batchEvaluate').value).sort());

    const token = await http(server.url, 'POST', '/openapi/v3/tokens', { json: bodyExample('post', '/openapi/v3/tokens', 'loader'), headers: auth });
    expect(token.status).toBe(200);
    const documented = responseExample('post', '/openapi/v3/tokens', 200, 'created');
    expect(Object.keys(token.body.metadata).sort()).toEqual(Object.keys(documented.metadata).sort());
  });

  test('documented error examples match what the server says', async () => {
    const DATASET = 'urn:li:dataset:(urn:li:dataPlatform:hive,db.orders,PROD)';
    const aspectPath = '/openapi/v3/entity/{entityName}/{urn}/{aspect}';
    const noToken = await http(server.url, 'GET', '/openapi/v3/jobs');
    expect(noToken.body).toEqual(responseExample('get', '/openapi/v3/jobs', 401, 'error'));
    const badUrn = await http(server.url, 'GET', '/openapi/v3/entity/dataset/urn:li:x/status', { headers: auth });
    expect(badUrn.body).toEqual(responseExample('get', aspectPath, 400, 'urn'));
    const noJob = await http(server.url, 'GET', '/openapi/v3/jobs/99', { headers: auth });
    expect(noJob.body).toEqual(responseExample('get', '/openapi/v3/jobs/{id}', 404, 'job'));
    const badTrace = await http(server.url, 'POST', '/openapi/v1/trace/write/xyz', { json: { [DATASET]: ['status'] }, headers: auth });
    expect(badTrace.body).toEqual(responseExample('post', '/openapi/v1/trace/write/{traceId}', 400, 'traceId'));
    const badOp = await http(server.url, 'PATCH', '/openapi/v3/entity/dataset', { json: [{ urn: DATASET, datasetProperties: { value: { patch: [{ op: 'move', path: '/x' }] } } }], headers: auth });
    expect(badOp.body).toEqual(responseExample('patch', '/openapi/v3/entity/{entityName}', 400, 'badOp'));
  });
});

describe('the documentation pages', () => {
  const pages = ['/openapi/swagger-ui/index.html', '/api/graphiql'];

  test('are public, with their files, while the API still needs a token', async () => {
    for (const path of [...pages, '/openapi/swagger-ui/swagger-ui-bundle.js', '/openapi/swagger-ui/swagger-ui.css', '/api/graphiql/graphiql.min.js', '/api/graphiql/react.production.min.js']) {
      const res = await fetch(server.url + path);
      // Read to the end: an unread body keeps the connection busy and the server from closing.
      await res.arrayBuffer();
      expect({ path, status: res.status }).toEqual({ path, status: 200 });
    }
    expect((await http(server.url, 'GET', '/openapi/v3/entity/dataset')).status).toBe(401);
    const redirect = await fetch(`${server.url}/openapi/swagger-ui`, { redirect: 'manual' });
    await redirect.arrayBuffer();
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get('location')).toBe('/openapi/swagger-ui/index.html');
  });

  test('reference only files of this server and allow nothing else in their CSP', async () => {
    for (const path of pages) {
      const res = await fetch(server.url + path);
      const html = await res.text();
      expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
      const csp = res.headers.get('content-security-policy')!;
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain('https:');
      expect(csp).not.toContain('upgrade-insecure-requests');
    }
    // The API keeps helmet's default policy.
    const health = await fetch(`${server.url}/health`);
    await health.arrayBuffer();
    expect(health.headers.get('content-security-policy')).toContain('upgrade-insecure-requests');
  });

  test('the explorer is off in production unless GRAPHIQL_ENABLED=true, and then answers 404', async () => {
    expect(loadConfig({ NODE_ENV: 'production' }).graphiqlEnabled).toBe(false);
    expect(loadConfig({ NODE_ENV: 'production', GRAPHIQL_ENABLED: 'true' }).graphiqlEnabled).toBe(true);
    expect(loadConfig({}).graphiqlEnabled).toBe(true);
    const off = await startTestServer({ env: { AUTH_ENABLED: 'true', ROOT_TOKEN: TOKEN, GRAPHIQL_ENABLED: 'false' } });
    try {
      for (const path of ['/api/graphiql', '/api/graphiql/graphiql.min.js']) {
        const res = await http(off.url, 'GET', path);
        expect(res.status).toBe(404);
        expect(res.body).toEqual({ error: `No endpoint GET ${path}.`, message: expect.stringContaining('/openapi/v3/api-docs') });
      }
      expect((await http(off.url, 'GET', '/openapi/swagger-ui/index.html')).status).toBe(200);
    } finally {
      await off.stop();
    }
  });
});

describe('documentation does not change behaviour', () => {
  test('input is still parsed by the routes (docs/contract.md §4 messages) and doubles still have a decimal part', async () => {
    const notAList = await http(server.url, 'POST', '/openapi/v3/entity/dataset', { json: { urn: 'x' }, headers: auth });
    expect(notAList.status).toBe(400);
    expect(notAList.body).toEqual({
      error: 'Validation Error',
      message: 'request body must be a JSON list of entities, e.g. [{"urn": "<urn>", "status": {"value": {"removed": false}}}]',
    });
    const badCount = await http(server.url, 'GET', '/openapi/v3/entity/dataset', { query: { count: 'abc' }, headers: auth });
    expect(badCount.body).toEqual({ error: 'Validation Error', message: 'Query parameter count must be an integer, got "abc"' });
    const docText = (await http(server.url, 'GET', '/openapi/v3/api-docs')).text;
    expect(docText).toContain('{"double":60.0}');
  });
});
