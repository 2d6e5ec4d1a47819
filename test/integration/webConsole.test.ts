/**
 * How the server serves the web console (issue 16): its files are public at / and on
 * every client-side route, under the pages' strict Content-Security-Policy, naming the
 * GraphQL endpoint it may call (CONSOLE_GRAPHQL_URL); the API behind it stays protected.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Fastify from 'fastify';
import { ConfigError, loadConfig } from '../../src/platform/config.js';
import { consoleRoutes } from '../../src/web/console.js';
import { ensureConsoleBuilt } from '../support/build.js';
import { http } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';

let server: TestServer;

beforeAll(async () => {
  await ensureConsoleBuilt();
  server = await startTestServer({ env: { AUTH_ENABLED: 'true', ROOT_TOKEN: `pgt_web_${Date.now()}` } });
}, 180_000);
afterAll(async () => {
  await server.stop();
});

const page = (pathname: string) => http(server.url, 'GET', pathname, { headers: { accept: 'text/html' } });

test.each(['/', '/properties', '/properties/urn%3Ali%3AstructuredProperty%3Aio.a.b/edit', '/search?q=orders&v%3Aio.a.tier=gold', '/entity/urn%3Ali%3Adataset%3A(urn%3Ali%3AdataPlatform%3Ahive%2Cdb.t%2CPROD)', '/tests', '/tests/urn%3Ali%3Atest%3Ax', '/csv?q=platform%3Akafka'])(
  'GET %s answers the console page without a token, under the strict policy',
  async (pathname) => {
    const res = await page(pathname);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toMatch(/unsafe-eval|https?:/);
    expect(res.text).toContain('<meta name="propgraph-graphql-url" content="/api/graphql">');
    expect(res.text).toMatch(/<script type="module" crossorigin src="\/assets\/[\w-]+\.js"><\/script>/);
    expect(res.text).not.toMatch(/<script>|<script type="module">/);
  },
);

test('the console files are public and cached for good; an unknown one is 404', async () => {
  const index = await page('/');
  const script = /src="(\/assets\/[\w-]+\.js)"/.exec(index.text)![1]!;
  const res = await http(server.url, 'GET', script);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('application/javascript; charset=utf-8');
  expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
  expect((await http(server.url, 'GET', '/assets/nothing-here.js')).status).toBe(404);
});

test('the API behind the console still needs a token', async () => {
  const graphql = await http(server.url, 'POST', '/api/graphql', { json: { query: '{ me { scope } }' } });
  expect(graphql.status).toBe(401);
  expect((await http(server.url, 'GET', '/openapi/v3/jobs')).status).toBe(401);
  expect((await http(server.url, 'GET', '/properties-not-a-console-page')).status).toBe(401);
});

test('CONSOLE_GRAPHQL_URL points the console at a gateway, which the policy then lets it call', async () => {
  const gateway = await startTestServer({ env: { AUTH_ENABLED: 'true', CONSOLE_GRAPHQL_URL: 'https://gateway.example.test:4000/graphql' } });
  try {
    const res = await http(gateway.url, 'GET', '/');
    expect(res.text).toContain('<meta name="propgraph-graphql-url" content="https://gateway.example.test:4000/graphql">');
    expect(res.headers.get('content-security-policy')).toContain("connect-src 'self' https://gateway.example.test:4000");
  } finally {
    await gateway.stop();
  }
});

test('CONSOLE_GRAPHQL_URL must be a path or an http(s) URL; CONSOLE_ENABLED=false keeps / behind authentication', async () => {
  expect(() => loadConfig({ CONSOLE_GRAPHQL_URL: 'javascript:alert(1)' })).toThrow(ConfigError);
  expect(() => loadConfig({ CONSOLE_GRAPHQL_URL: '//elsewhere/graphql' })).toThrow('CONSOLE_GRAPHQL_URL must be a path such as /api/graphql or an http(s) URL');
  const off = await startTestServer({ env: { AUTH_ENABLED: 'true', CONSOLE_ENABLED: 'false' } });
  try {
    expect((await http(off.url, 'GET', '/')).status).toBe(401);
  } finally {
    await off.stop();
  }
});

test('a server whose console was not built says how to build it', async () => {
  const empty = mkdtempSync(path.join(tmpdir(), 'propgraph-noconsole-'));
  const app = Fastify();
  await app.register(consoleRoutes, { graphqlUrl: '/api/graphql', dir: empty });
  try {
    const address = await app.listen({ port: 0, host: '127.0.0.1' });
    const res = await http(address, 'GET', '/search');
    expect(res.status).toBe(503);
    expect(res.text).toContain('Run <code>npm install</code> (or <code>npm run build:console</code>)');
  } finally {
    await app.close();
    rmSync(empty, { recursive: true, force: true });
  }
});
