/**
 * The browser session (issue #41; docs/security.md, Browser sessions) over HTTP: an
 * access token traded at POST /auth/session for an HttpOnly, SameSite=Strict cookie
 * that authenticates every route; cookie-authenticated requests that may change
 * something only from this server's own pages (cross-site request forgery); signing out
 * revokes the session on the server, so every copy of the cookie is refused after it.
 */
import { http } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { withClient } from '../support/storedValues.js';

const ROOT = `pgt_browser_session_${Math.random().toString(36).slice(2)}`;
const SAME_ORIGIN = { 'sec-fetch-site': 'same-origin' };
const MUTATION = 'mutation c($input: CreateStructuredPropertyInput!) { createStructuredProperty(input: $input) { urn } }';

let server: TestServer;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** Opens a session with `token`: the cookie a browser would now send. */
async function openSession(token: string, headers: Record<string, string> = {}): Promise<{ cookie: string; setCookie: string; body: any }> {
  const res = await http(server.url, 'POST', '/auth/session', { headers: { ...bearer(token), ...headers } });
  expect(res.status).toBe(200);
  const setCookie = res.headers.getSetCookie().find((c) => c.startsWith('propgraph_session='))!;
  return { cookie: setCookie.split(';')[0]!, setCookie, body: res.body };
}

const propertyExists = async (qualifiedName: string) =>
  (await withClient(server.databaseUrl, (c) => c.query('SELECT 1 FROM aspect WHERE urn = $1 AND aspect = $2', [`urn:li:structuredProperty:${qualifiedName}`, 'propertyDefinition']))).rows.length > 0;

const create = (qualifiedName: string, headers: Record<string, string>) =>
  http(server.url, 'POST', '/api/graphql', {
    json: { query: MUTATION, variables: { input: { qualifiedName, valueType: 'urn:li:dataType:svc.string', entityTypes: ['urn:li:entityType:svc.dataset'] } } },
    headers,
  });

beforeAll(async () => {
  server = await startTestServer({ env: { AUTH_ENABLED: 'true', ROOT_TOKEN: ROOT, RATE_LIMIT_PER_MINUTE: '1000000' } });
}, 120_000);

afterAll(async () => {
  await server?.stop();
});

describe('signing in with an access token', () => {
  test('sets an HttpOnly, SameSite=Strict cookie for every path, gone with the browser; the answer says who, never the secret', async () => {
    const res = await http(server.url, 'POST', '/auth/session', { headers: bearer(ROOT) });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const [cookie] = res.headers.getSetCookie();
    expect(cookie).toMatch(/^propgraph_session=pgt_[\w-]{43}; Path=\/; HttpOnly; SameSite=Strict$/);
    expect(res.body).toEqual({ principal: 'urn:li:corpuser:__service_root', principalType: 'machine', scope: 'admin', sessionId: expect.any(String), expiresAt: expect.any(Number) });
    expect(res.text).not.toContain(cookie!.slice('propgraph_session='.length, cookie!.indexOf(';')));
    expect(res.body.expiresAt - Date.now()).toBeLessThanOrEqual(12 * 3_600_000);
  });

  test('the cookie is Secure when the browser came over TLS (a proxy says X-Forwarded-Proto: https)', async () => {
    const { setCookie } = await openSession(ROOT, { 'x-forwarded-proto': 'https' });
    expect(setCookie).toMatch(/; HttpOnly; SameSite=Strict; Secure$/);
  });

  test('a bad token opens nothing: 401 with the reason, and no cookie', async () => {
    const res = await http(server.url, 'POST', '/auth/session', { headers: bearer('pgt_not_a_token') });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'Unauthorized', message: 'Invalid access token' });
    expect(res.headers.getSetCookie()).toEqual([]);
  });

  test('another site’s page cannot sign the browser in as someone else', async () => {
    const elsewhere: Array<Record<string, string>> = [{ 'sec-fetch-site': 'cross-site' }, { 'sec-fetch-site': 'same-site' }, { origin: 'https://evil.example' }];
    for (const headers of elsewhere) {
      const res = await http(server.url, 'POST', '/auth/session', { headers: { ...bearer(ROOT), ...headers } });
      expect(res.status).toBe(403);
      expect(res.headers.getSetCookie()).toEqual([]);
    }
    expect((await http(server.url, 'POST', '/auth/session', { headers: { ...bearer(ROOT), ...SAME_ORIGIN } })).status).toBe(200);
  });

  test('the session cookie alone cannot open another session', async () => {
    const { cookie } = await openSession(ROOT);
    const res = await http(server.url, 'POST', '/auth/session', { headers: { cookie, ...SAME_ORIGIN } });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('send it as Authorization: Bearer <token>');
  });
});

describe('the cookie authenticates', () => {
  test('reads on REST and GraphQL, as the token’s principal', async () => {
    const { cookie } = await openSession(ROOT);
    expect((await http(server.url, 'GET', '/openapi/v3/jobs', { headers: { cookie } })).status).toBe(200);
    const me = await http(server.url, 'POST', '/api/graphql', { json: { query: '{ me { corpUser { urn principalType } tokenType } }' }, headers: { cookie, ...SAME_ORIGIN } });
    expect(me.body.data.me).toEqual({ corpUser: { urn: 'urn:li:corpuser:__service_root', principalType: 'MACHINE' }, tokenType: 'SESSION' });
  });

  test('a change from a page of this origin (Sec-Fetch-Site: same-origin, or an Origin of this host)', async () => {
    const { cookie } = await openSession(ROOT);
    expect((await create('io.session.same', { cookie, ...SAME_ORIGIN })).body.errors).toBeUndefined();
    expect(await propertyExists('io.session.same')).toBe(true);
    const host = new URL(server.url).host;
    expect((await create('io.session.origin', { cookie, origin: `http://${host}` })).body.errors).toBeUndefined();
    expect(await propertyExists('io.session.origin')).toBe(true);
  });

  test.each([
    ['another site (Sec-Fetch-Site: cross-site)', { 'sec-fetch-site': 'cross-site' }, 'Cross-site request refused (Sec-Fetch-Site: cross-site)'],
    ['a sibling subdomain (Sec-Fetch-Site: same-site)', { 'sec-fetch-site': 'same-site' }, 'Cross-site request refused (Sec-Fetch-Site: same-site)'],
    ['another Origin, from a browser without Fetch Metadata', { origin: 'https://evil.example' }, 'Cross-site request refused (Origin: https://evil.example)'],
    ['nowhere it says', {}, 'neither Sec-Fetch-Site nor Origin says where it came from'],
  ])('no change from %s: 403, and nothing is written', async (_label, headers, message) => {
    const { cookie } = await openSession(ROOT);
    const name = `io.session.forged${Object.keys(headers).length}${Math.random().toString(36).slice(2, 6)}`;
    const graphql = await create(name, { cookie, ...headers });
    expect(graphql.status).toBe(403);
    expect(graphql.body).toEqual({ errors: [{ message: expect.stringContaining(message), extensions: { code: 'FORBIDDEN' } }] });
    const rest = await http(server.url, 'POST', `/openapi/v3/entity/structuredProperty/${encodeURIComponent(`urn:li:structuredProperty:${name}`)}/propertyDefinition`, {
      json: { value: { qualifiedName: name, valueType: 'urn:li:dataType:svc.string', entityTypes: ['urn:li:entityType:svc.dataset'] } },
      headers: { cookie, ...headers },
    });
    expect(rest.status).toBe(403);
    expect(rest.body).toEqual({ error: 'Forbidden', message: expect.stringContaining('other clients send Authorization: Bearer <token>') });
    expect(await propertyExists(name)).toBe(false);
  });

  test('an Authorization header wins over the cookie, and needs no Fetch Metadata', async () => {
    expect((await create('io.session.bearer', { cookie: 'propgraph_session=pgt_stale', ...bearer(ROOT) })).body.errors).toBeUndefined();
    expect(await propertyExists('io.session.bearer')).toBe(true);
  });

  test('a cookie that is no session is refused with 401, and the browser is told to forget it', async () => {
    const res = await http(server.url, 'GET', '/openapi/v3/jobs', { headers: { cookie: 'propgraph_session=pgt_never_issued' } });
    expect(res.status).toBe(401);
    expect(res.body.message).toBe('Your session has ended: Invalid access token. Sign in again.');
    expect(res.headers.getSetCookie()).toEqual(['propgraph_session=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict']);
  });
});

describe('signing out', () => {
  test('revokes the session on the server: every copy of the cookie (every tab) is refused after it; the token it was opened with still works', async () => {
    const { cookie, body } = await openSession(ROOT);
    const out = await http(server.url, 'POST', '/auth/sign-out', { headers: { cookie, ...SAME_ORIGIN } });
    expect(out.status).toBe(204);
    expect(out.headers.getSetCookie()).toEqual(['propgraph_session=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict']);
    const after = await http(server.url, 'GET', '/openapi/v3/jobs', { headers: { cookie } });
    expect(after.status).toBe(401);
    expect(after.body.message).toBe('Your session has ended: Access token has been revoked. Sign in again.');
    const stored = await withClient(server.databaseUrl, (c) => c.query('SELECT revoked_on IS NOT NULL AS revoked, kind FROM access_token WHERE id = $1', [body.sessionId]));
    expect(stored.rows).toEqual([{ revoked: true, kind: 'session' }]);
    expect((await http(server.url, 'GET', '/openapi/v3/jobs', { headers: bearer(ROOT) })).status).toBe(200);
  });

  test('another site cannot sign a browser out', async () => {
    const { cookie } = await openSession(ROOT);
    const out = await http(server.url, 'POST', '/auth/sign-out', { headers: { cookie, 'sec-fetch-site': 'cross-site' } });
    expect(out.status).toBe(403);
    expect((await http(server.url, 'GET', '/openapi/v3/jobs', { headers: { cookie } })).status).toBe(200);
  });

  test('a browser whose session ended already, or never had one, is answered 204 and told to forget the cookie', async () => {
    expect((await http(server.url, 'POST', '/auth/sign-out', { headers: SAME_ORIGIN })).status).toBe(204);
    const stale = await http(server.url, 'POST', '/auth/sign-out', { headers: { cookie: 'propgraph_session=pgt_gone', ...SAME_ORIGIN } });
    expect(stale.status).toBe(204);
    expect(stale.headers.getSetCookie()).toEqual(['propgraph_session=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict']);
  });

  test('revoking the token the session was opened with signs the browser out too', async () => {
    const created = await http(server.url, 'POST', '/openapi/v3/tokens', { json: { name: 'session-parent', scope: 'read' }, headers: bearer(ROOT) });
    const { cookie } = await openSession(created.body.accessToken);
    expect((await http(server.url, 'GET', '/openapi/v3/jobs', { headers: { cookie } })).status).toBe(200);
    expect((await http(server.url, 'DELETE', `/openapi/v3/tokens/${created.body.metadata.id}`, { headers: bearer(ROOT) })).status).toBe(200);
    const after = await http(server.url, 'GET', '/openapi/v3/jobs', { headers: { cookie } });
    expect(after.status).toBe(401);
    expect(after.body.message).toBe('Your session has ended: The access token this session was opened with has been revoked. Sign in again.');
  });
});

describe('with authentication off', () => {
  let open: TestServer;
  beforeAll(async () => {
    open = await startTestServer({ env: { AUTH_ENABLED: 'false' } });
  }, 120_000);
  afterAll(async () => {
    await open?.stop();
  });

  test('there is nothing to sign in to, and signing out changes nothing', async () => {
    const res = await http(open.url, 'POST', '/auth/session', { headers: bearer('anything') });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('Authentication is off (AUTH_ENABLED=false)');
    expect((await http(open.url, 'POST', '/auth/sign-out')).status).toBe(204);
  });
});
