/**
 * Security settings around the API (issue #5, docs/contract.md §10): the bootstrap root token,
 * rate limiting per token with Retry-After, security headers, CORS closed by default
 * and open only to configured origins, and errors without internals.
 */
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { http } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { expectEvery } from '../support/nonEmpty.js';

describe('bootstrap root token', () => {
  test('without ROOT_TOKEN a root admin token is generated into DATA_DIR/root-token (0600) and not logged', async () => {
    const server = await startTestServer({ env: { AUTH_ENABLED: 'true' } });
    try {
      const file = path.join(server.dataDir, 'root-token');
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const secret = readFileSync(file, 'utf8').trim();
      expect(secret).toMatch(/^pgt_/);
      const res = await http(server.url, 'GET', '/openapi/v3/tokens', { headers: { authorization: `Bearer ${secret}` } });
      expect(res.status).toBe(200);
      expect(res.body.tokens).toEqual([expect.objectContaining({ id: 'root', name: 'root', scope: 'admin', revoked: false })]);
      expect(JSON.stringify(res.body)).not.toContain(secret);
    } finally {
      await server.stop();
    }
  });

  test('ROOT_TOKEN becomes the admin token and no file is written', async () => {
    const server = await startTestServer({ env: { AUTH_ENABLED: 'true', ROOT_TOKEN: 'configured-root' } });
    try {
      expect(() => statSync(path.join(server.dataDir, 'root-token'))).toThrow();
      expect((await http(server.url, 'GET', '/openapi/v3/tokens', { headers: { authorization: 'Bearer configured-root' } })).status).toBe(200);
      expect((await http(server.url, 'GET', '/openapi/v3/tokens', { headers: { authorization: 'Bearer other' } })).status).toBe(401);
    } finally {
      await server.stop();
    }
  });
});

describe('limits and headers', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { AUTH_ENABLED: 'true', ROOT_TOKEN: 'root', RATE_LIMIT_PER_MINUTE: '20', CORS_ORIGINS: 'https://catalog.example.com' } });
  });
  afterAll(async () => {
    await server.stop();
  });

  test('a token over its rate limit gets 429 with Retry-After; another token is unaffected', async () => {
    const created = await http(server.url, 'POST', '/openapi/v3/tokens', { json: { name: 'busy', scope: 'read' }, headers: { authorization: 'Bearer root' } });
    const busy = { authorization: `Bearer ${created.body.accessToken}` };
    const statuses: number[] = [];
    let limited: Awaited<ReturnType<typeof http>> | undefined;
    for (let i = 0; i < 25; i++) {
      const res = await http(server.url, 'GET', '/openapi/v3/jobs', { headers: busy });
      statuses.push(res.status);
      if (res.status === 429) limited ??= res;
    }
    expectEvery(statuses.slice(0, 20), (s) => s === 200);
    expect(limited).toBeDefined();
    expect(Number(limited!.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited!.body).toMatchObject({ error: 'Too Many Requests' });
    expect((await http(server.url, 'GET', '/openapi/v3/jobs', { headers: { authorization: 'Bearer root' } })).status).toBe(200);
  });

  test('responses carry security headers', async () => {
    const res = await http(server.url, 'GET', '/health');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    expect(res.headers.get('strict-transport-security')).toMatch(/max-age=/);
    expect(res.headers.get('content-security-policy')).toMatch(/default-src 'self'/);
    expect(res.headers.get('x-powered-by')).toBeNull();
  });

  test('CORS answers only configured origins', async () => {
    const allowed = await fetch(`${server.url}/health`, { headers: { origin: 'https://catalog.example.com' } });
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://catalog.example.com');
    const other = await fetch(`${server.url}/health`, { headers: { origin: 'https://evil.example.com' } });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('with the default settings', () => {
  let server: TestServer;
  const root = { authorization: 'Bearer root' };
  beforeAll(async () => {
    server = await startTestServer({ env: { AUTH_ENABLED: 'true', ROOT_TOKEN: 'root' } });
  });
  afterAll(async () => {
    await server?.stop();
  });

  test('CORS is closed by default', async () => {
    const res = await fetch(`${server.url}/health`, { headers: { origin: 'https://anywhere.example.com' } });
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });

  test('a token name with control characters or a description with U+0000 is a 400 naming the field, and no token is made', async () => {
    const badName = await http(server.url, 'POST', '/openapi/v3/tokens', { json: { name: 'a\u0001b', scope: 'read' }, headers: root });
    expect(badName.status).toBe(400);
    expect(badName.body.message).toBe('name must not contain control characters');
    const nulName = await http(server.url, 'POST', '/openapi/v3/tokens', { json: { name: 'a\u0000b', scope: 'read' }, headers: root });
    expect(nulName.body.message).toBe('name contains the character U+0000 (at character 2), which cannot be stored; remove it');
    const badDescription = await http(server.url, 'POST', '/openapi/v3/tokens', { json: { name: 'ok', scope: 'read', description: 'x\u0000' }, headers: root });
    expect(badDescription.status).toBe(400);
    expect(badDescription.body.message).toBe('description contains the character U+0000 (at character 2), which cannot be stored; remove it');
    const listed = await http(server.url, 'GET', '/openapi/v3/tokens', { headers: root });
    expect(listed.body.tokens.map((t: { name: string }) => t.name)).toEqual(['root']);
  });
});

describe('issue #29, item 11: /health tells anonymous callers only its status', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { AUTH_ENABLED: 'true', ROOT_TOKEN: 'health-root' } });
  });
  afterAll(async () => {
    await server.stop();
  });

  test('without a token, or with a bad one: {status} alone, never a 401', async () => {
    for (const headers of [{}, { authorization: 'Bearer not-a-token' }, { authorization: 'Basic eDp5' }] as Array<Record<string, string>>) {
      const res = await http(server.url, 'GET', '/health', { headers });
      expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { status: 'ok' } });
    }
  });

  test('with a valid token (any scope): the components, job counts and change log as before', async () => {
    const created = await http(server.url, 'POST', '/openapi/v3/tokens', { json: { name: 'prober', scope: 'read' }, headers: { authorization: 'Bearer health-root' } });
    const res = await http(server.url, 'GET', '/health', { headers: { authorization: `Bearer ${created.body.accessToken}` } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'ok', database: { ok: true }, search: { ok: true, enabled: false }, jobs: { ok: true, pending: expect.any(Number) }, changeLog: { ok: true, pending: expect.any(Number) } });
  });
});
