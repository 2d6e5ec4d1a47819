/**
 * People sign in (issue #30) against a real OpenID provider (oidc-provider, started by
 * the suite), over HTTP as a browser and a phone would: the console's authorization
 * code flow with PKCE through the provider's login and consent pages, the device flow
 * `propgraph login` uses, group-to-scope mapping, the audit stamp of what a person
 * writes, and personal tokens through REST and GraphQL. A server without OIDC settings
 * answers exactly as before.
 */
import { freePort } from '../../src/embedded/freePort.js';
import { ensureConsoleBuilt } from '../support/build.js';
import { graphql } from '../support/graphql.js';
import { http } from '../support/http.js';
import {
  approveDevice,
  browse,
  CookieJar,
  oidcEnv,
  PEOPLE,
  propgraphClient,
  signInAtProvider,
  signInErrorOf,
  signInThroughConsoleRoutes,
  startOpenIdProvider,
  submit,
  type ProviderPerson,
  type RunningProvider,
} from '../support/openIdProvider.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { withClient } from '../support/storedValues.js';

const ROOT_TOKEN = `pgt_signin_${Math.random().toString(36).slice(2)}`;
const DATASET = 'urn:li:dataset:(urn:li:dataPlatform:hive,signin.orders,PROD)';
const PROPERTY = 'urn:li:structuredProperty:io.signin.tier';
const enc = encodeURIComponent;

/** A public client (no secret: PKCE only), its callback behind a TLS proxy at another address. */
const PUBLIC_CALLBACK = 'https://catalog.example.com/auth/callback';
const PUBLIC_CLIENT = {
  client_id: 'propgraph-public',
  redirect_uris: [PUBLIC_CALLBACK],
  grant_types: ['authorization_code', 'urn:ietf:params:oauth:grant-type:device_code'],
  response_types: ['code'],
  token_endpoint_auth_method: 'none',
};

let provider: RunningProvider;
let server: TestServer;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const ME = '{ me { corpUser { urn } scope tokenType platformPrivileges { manageTokens managePersonalTokens } } }';

async function consoleToken(person: ProviderPerson): Promise<string> {
  const { token, landing } = await signInThroughConsoleRoutes(server.url, person);
  if (!token) throw new Error(`no session for ${person.login}: landed on ${landing.href}`);
  return token;
}

/** What GET /auth/sign-in-error answers a browser holding the cookie a refused callback set. */
async function signInError(callbackResponse: Response): Promise<unknown> {
  const jar = new CookieJar();
  jar.store(new URL('/auth/callback', server.url), callbackResponse);
  return readSignInError(jar);
}

const readSignInError = (jar: CookieJar) => signInErrorOf(server.url, jar);

async function deviceSignIn(person: ProviderPerson): Promise<{ status: number; body: any }> {
  const started = await http(server.url, 'POST', '/auth/device', { json: {} });
  expect(started.status).toBe(200);
  const approved = await approveDevice(started.body.verificationUriComplete, person);
  expect(approved.body).toContain('Sign-in Success');
  const done = await http(server.url, 'POST', '/auth/device/token', { json: { deviceCode: started.body.deviceCode, name: 'propgraph login on test' } });
  return { status: done.status, body: done.body };
}

beforeAll(async () => {
  // The page is read when the server starts; it must carry the provider's name.
  await ensureConsoleBuilt();
  const port = await freePort();
  provider = await startOpenIdProvider({ clients: [propgraphClient(`http://127.0.0.1:${port}/auth/callback`), PUBLIC_CLIENT] });
  server = await startTestServer({ env: { AUTH_ENABLED: 'true', ROOT_TOKEN, PORT: String(port), RATE_LIMIT_PER_MINUTE: '1000000', ...oidcEnv(provider.issuer) } });
  const root = bearer(ROOT_TOKEN);
  expect((await http(server.url, 'POST', '/openapi/v3/entity/dataset', { json: [{ urn: DATASET, status: { value: { removed: false } } }], headers: root })).status).toBe(200);
  const definition = { value: { qualifiedName: 'io.signin.tier', valueType: 'urn:li:dataType:svc.string', entityTypes: ['urn:li:entityType:svc.dataset'] } };
  expect((await http(server.url, 'POST', `/openapi/v3/entity/structuredProperty/${enc(PROPERTY)}/propertyDefinition`, { json: definition, headers: root })).status).toBe(200);
}, 180_000);

afterAll(async () => {
  await server?.stop();
  await provider?.stop();
});

describe('the console’s sign-in (authorization code with PKCE)', () => {
  test('goes through the provider’s login and consent pages and back to the page asked for, signed in as the person', async () => {
    const { token, landing } = await signInThroughConsoleRoutes(server.url, PEOPLE.alice);
    expect(landing.pathname).toBe('/search');
    expect(landing.hash).toBe('');
    const me = await graphql(server.url, ME, undefined, '/api/graphql', bearer(token!));
    expect(me.data.me).toEqual({ corpUser: { urn: 'urn:li:corpuser:alice@example.com' }, scope: 'ADMIN', tokenType: 'SESSION', platformPrivileges: { manageTokens: true, managePersonalTokens: true } });
  });

  test('the authorization request carries PKCE (S256), state and nonce, and the client secret stays on the server', async () => {
    const response = await fetch(`${server.url}/auth/login?returnTo=/properties`, { redirect: 'manual' });
    expect(response.status).toBe(302);
    const location = new URL(response.headers.get('location')!);
    expect(location.origin).toBe(provider.issuer);
    expect(Object.fromEntries(location.searchParams)).toMatchObject({ client_id: 'propgraph', response_type: 'code', code_challenge_method: 'S256', redirect_uri: `${server.url}/auth/callback` });
    expect(location.searchParams.get('code_challenge')).toMatch(/^[\w-]{43}$/);
    expect(location.searchParams.get('state')).toBeTruthy();
    expect(location.searchParams.get('nonce')).toBeTruthy();
    expect(location.href).not.toContain('propgraph-test-secret');
    const cookie = response.headers.getSetCookie()[0]!;
    expect(cookie).toMatch(/^propgraph_sign_in=[\w-]+; Path=\/auth\/callback; Max-Age=600; HttpOnly; SameSite=Lax$/);
  });

  test('the session lands in the browser session cookie: HttpOnly, SameSite=Strict, every path, gone with the browser; never in the address', async () => {
    const jar = new CookieJar();
    const callback = (url: URL) => url.pathname === '/auth/callback';
    const start = await browse(jar, `${server.url}/auth/login`, {}, callback);
    const atCallback = await signInAtProvider(jar, start, PEOPLE.carol, callback);
    const response = await fetch(atCallback.url, { redirect: 'manual', headers: { cookie: jar.header(atCallback.url)! } });
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/properties');
    expect(response.headers.get('cache-control')).toBe('no-store');
    const session = response.headers.getSetCookie().find((c) => c.startsWith('propgraph_session='))!;
    expect(session).toMatch(/^propgraph_session=pgt_[\w-]+; Path=\/; HttpOnly; SameSite=Strict$/);
    const secret = /^propgraph_session=([^;]+)/.exec(session)![1]!;
    // The cookie alone is the caller, on GraphQL and REST, for pages of this origin (a browser says so in Sec-Fetch-Site).
    const me = await graphql(server.url, ME, undefined, '/api/graphql', { cookie: `propgraph_session=${secret}`, 'sec-fetch-site': 'same-origin' });
    expect(me.data.me).toMatchObject({ corpUser: { urn: 'urn:li:corpuser:carol@example.com' }, tokenType: 'SESSION' });
    expect((await http(server.url, 'GET', `/openapi/v3/entity/dataset/${enc(DATASET)}`, { headers: { cookie: `propgraph_session=${secret}` } })).status).toBe(200);
  });

  test('a wrong password keeps the person at the provider’s login page', async () => {
    const jar = new CookieJar();
    const start = await browse(jar, `${server.url}/auth/login`);
    const after = await submit(jar, start, '/login', { login: 'bob', password: 'guess' });
    expect(after.url.origin).toBe(provider.issuer);
    expect(after.body).toContain('Wrong username or password.');
  });

  test('a callback whose sign-in did not start in this browser is refused, and nobody is signed in', async () => {
    const response = await fetch(`${server.url}/auth/callback?code=stolen&state=whatever`, { redirect: 'manual' });
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/properties#sign-in-error=expired');
    expect(response.headers.getSetCookie().some((c) => c.startsWith('propgraph_session=') && !c.startsWith('propgraph_session=;'))).toBe(false);
    expect(await signInError(response)).toEqual({ code: 'expired', message: 'The sign-in expired or began in another browser. Sign in again.' });
  });

  test('a callback with another state than the one sent (a forged callback) is refused', async () => {
    const jar = new CookieJar();
    const callback = new URL('/auth/callback', server.url);
    const start = await browse(jar, `${server.url}/auth/login`, {}, (url) => url.pathname === '/auth/callback');
    const atCallback = await signInAtProvider(jar, start, PEOPLE.bob, (url) => url.pathname === '/auth/callback');
    expect(atCallback.url.pathname).toBe('/auth/callback');
    const forged = new URL(atCallback.url);
    forged.searchParams.set('state', 'forged-state');
    const response = await fetch(forged, { redirect: 'manual', headers: { cookie: jar.header(callback)! } });
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/properties#sign-in-error=refused');
    expect(await signInError(response)).toEqual({ code: 'refused', message: expect.stringMatching(/^The sign-in could not be verified: .*state/) });
  });

  test('a person declining at the provider comes back with the provider’s reason', async () => {
    const jar = new CookieJar();
    const home = (url: URL) => url.href.startsWith(server.url) && !url.pathname.startsWith('/auth/');
    const start = await browse(jar, `${server.url}/auth/login?returnTo=/tests`, {}, home);
    const consent = await submit(jar, start, '/login', { login: 'carol', password: 'carol-pw' }, home);
    const back = await submit(jar, consent, '/abort', {}, home);
    expect(back.url.pathname).toBe('/tests');
    expect(back.url.hash).toBe('#sign-in-error=refused');
    expect(await readSignInError(jar)).toEqual({ code: 'refused', message: 'The OpenID provider refused the sign-in: access_denied (The person declined)' });
  });

  test('returnTo is only ever a console page of this server', async () => {
    for (const returnTo of ['https://evil.example/', '//evil.example/x', '/openapi/v3/tokens', '/\\evil.example']) {
      const response = await fetch(`${server.url}/auth/login?returnTo=${enc(returnTo)}`, { redirect: 'manual' });
      const cookie = response.headers.getSetCookie()[0]!;
      const pending = JSON.parse(Buffer.from(/propgraph_sign_in=([\w-]+)/.exec(cookie)![1]!, 'base64url').toString('utf8')) as { returnTo: string };
      expect(pending.returnTo).toBe('/properties');
    }
  });
});

describe('groups become scopes', () => {
  test('a person whose groups give read may read and gets 403 on a write', async () => {
    const token = await consoleToken(PEOPLE.carol);
    expect((await graphql(server.url, ME, undefined, '/api/graphql', bearer(token))).data.me).toMatchObject({ scope: 'READ', platformPrivileges: { manageTokens: false, managePersonalTokens: true } });
    expect((await http(server.url, 'GET', `/openapi/v3/entity/dataset/${enc(DATASET)}`, { headers: bearer(token) })).status).toBe(200);
    const write = await http(server.url, 'POST', `/openapi/v3/entity/dataset/${enc(DATASET)}/structuredProperties`, {
      query: { createIfNotExists: 'false' },
      json: { value: { properties: [{ propertyUrn: PROPERTY, values: [{ string: 'gold' }] }] } },
      headers: bearer(token),
    });
    expect(write.status).toBe(403);
    expect(write.body).toEqual({ error: 'Forbidden', message: expect.stringContaining('needs a token with write scope; this token has read scope') });
  });

  test('a person in no mapped group is not let in, and is told why', async () => {
    const { token, landing, jar } = await signInThroughConsoleRoutes(server.url, PEOPLE.mallory);
    expect(token).toBeUndefined();
    expect(landing.hash).toBe('#sign-in-error=not-let-in');
    expect(await readSignInError(jar)).toEqual({
      code: 'not-let-in',
      message:
        'Signed in at the provider, but not let in: urn:li:corpuser:mallory@example.com has groups contractors, and none is given a scope (OIDC_GROUP_SCOPES); ask an administrator to add you to a group that is',
    });
    // Read once.
    expect(await readSignInError(jar)).toBeUndefined();
  });
});

describe('what a signed-in person writes names them', () => {
  test('the aspect’s createdBy and the definition’s audit stamp are the person', async () => {
    const token = await consoleToken(PEOPLE.bob);
    const write = await http(server.url, 'POST', `/openapi/v3/entity/dataset/${enc(DATASET)}/structuredProperties`, {
      query: { createIfNotExists: 'false' },
      json: { value: { properties: [{ propertyUrn: PROPERTY, values: [{ string: 'silver' }] }] } },
      headers: bearer(token),
    });
    expect(write.status).toBe(200);
    const created = await graphql(
      server.url,
      'mutation c($input: CreateStructuredPropertyInput!) { createStructuredProperty(input: $input) { definition { created { actor { urn } } lastModified { actor { urn } } } } }',
      { input: { qualifiedName: 'io.signin.owner', valueType: 'urn:li:dataType:svc.string', entityTypes: ['urn:li:entityType:svc.dataset'] } },
      '/api/graphql',
      bearer(token),
    );
    expect(created.errors).toBeUndefined();
    expect(created.data.createStructuredProperty.definition.created.actor.urn).toBe('urn:li:corpuser:bob@example.com');
    const rows = await withClient(server.databaseUrl, (c) =>
      c.query<{ aspect: string; created_by: string }>(`SELECT aspect, created_by FROM aspect WHERE version = 0 AND ((urn = $1 AND aspect = 'structuredProperties') OR (urn = 'urn:li:structuredProperty:io.signin.owner' AND aspect = 'propertyDefinition')) ORDER BY aspect`, [DATASET]),
    );
    expect(rows.rows).toEqual([
      { aspect: 'propertyDefinition', created_by: 'urn:li:corpuser:bob@example.com' },
      { aspect: 'structuredProperties', created_by: 'urn:li:corpuser:bob@example.com' },
    ]);
  });
});

describe('the CLI’s sign-in (device authorization grant)', () => {
  test('before the person approves, a poll says authorization_pending', async () => {
    const started = await http(server.url, 'POST', '/auth/device', { json: {} });
    expect(started.status).toBe(200);
    expect(started.body).toMatchObject({ userCode: expect.any(String), verificationUri: `${provider.issuer}/device`, interval: expect.any(Number), expiresIn: expect.any(Number) });
    const poll = await http(server.url, 'POST', '/auth/device/token', { json: { deviceCode: started.body.deviceCode } });
    expect(poll.status).toBe(400);
    expect(poll.body).toEqual({ error: 'authorization_pending', message: 'Waiting for the sign-in to be approved at the provider' });
  });

  test('once approved on the provider’s pages, the poll returns a session token acting as the person', async () => {
    const done = await deviceSignIn(PEOPLE.bob);
    expect(done.status).toBe(200);
    expect(done.body.person).toEqual({ urn: 'urn:li:corpuser:bob@example.com', scope: 'write', name: 'Bob Steward' });
    expect(done.body.metadata).toMatchObject({ type: 'session', owner: 'urn:li:corpuser:bob@example.com', name: 'propgraph login on test', scope: 'write' });
    expect(done.body.metadata.expiresAt - Date.now()).toBeGreaterThan(29 * 24 * 3_600_000);
    const me = await graphql(server.url, ME, undefined, '/api/graphql', bearer(done.body.accessToken));
    expect(me.data.me).toMatchObject({ corpUser: { urn: 'urn:li:corpuser:bob@example.com' }, scope: 'WRITE' });
  });

  test('a device code that is not one is refused by the provider', async () => {
    const poll = await http(server.url, 'POST', '/auth/device/token', { json: { deviceCode: 'not-a-device-code' } });
    expect(poll.status).toBe(401);
    expect(poll.body.message).toMatch(/^The OpenID provider refused the sign-in: invalid_grant/);
    expect((await http(server.url, 'POST', '/auth/device/token', { json: {} })).status).toBe(400);
  });
});

describe('personal tokens', () => {
  test('a person issues, lists and revokes their own; never above their scope; they act as the person', async () => {
    const session = await consoleToken(PEOPLE.bob);
    const create = (input: Record<string, unknown>) =>
      graphql(server.url, 'mutation t($input: CreateAccessTokenInput!) { createAccessToken(input: $input) { accessToken metadata { id type ownerUrn createdBy scope } } }', { input }, '/api/graphql', bearer(session));
    const pat = await create({ name: 'bob notebook', scope: 'WRITE', duration: 'ONE_MONTH' });
    expect(pat.errors).toBeUndefined();
    expect(pat.data.createAccessToken.metadata).toMatchObject({ type: 'PERSONAL', ownerUrn: 'urn:li:corpuser:bob@example.com', createdBy: 'urn:li:corpuser:bob@example.com', scope: 'WRITE' });
    const patSecret: string = pat.data.createAccessToken.accessToken;
    expect((await graphql(server.url, ME, undefined, '/api/graphql', bearer(patSecret))).data.me).toMatchObject({ corpUser: { urn: 'urn:li:corpuser:bob@example.com' }, tokenType: 'PERSONAL' });

    const tooMuch = await create({ name: 'bob admin', scope: 'ADMIN' });
    expect(tooMuch.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    const machine = await create({ name: 'svc', scope: 'READ', type: 'MACHINE' });
    expect(machine.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');

    const listed = await http(server.url, 'GET', '/openapi/v3/tokens', { headers: bearer(patSecret) });
    expect(listed.status).toBe(200);
    expect(new Set(listed.body.tokens.map((t: { owner: string }) => t.owner))).toEqual(new Set(['urn:li:corpuser:bob@example.com']));
    expect(listed.body.tokens.some((t: { id: string }) => t.id === pat.data.createAccessToken.metadata.id)).toBe(true);

    const alicesSession = await consoleToken(PEOPLE.alice);
    const alices = await http(server.url, 'POST', '/openapi/v3/tokens', { json: { name: 'alice script', scope: 'read' }, headers: bearer(alicesSession) });
    expect(alices.status).toBe(200);
    expect(alices.body.metadata).toMatchObject({ type: 'personal', owner: 'urn:li:corpuser:alice@example.com' });
    expect((await http(server.url, 'DELETE', `/openapi/v3/tokens/${alices.body.metadata.id}`, { headers: bearer(session) })).status).toBe(403);

    const everyToken = await http(server.url, 'GET', '/openapi/v3/tokens', { headers: bearer(alicesSession) });
    expect(everyToken.body.tokens.some((t: { owner: string | null }) => t.owner === 'urn:li:corpuser:bob@example.com')).toBe(true);
    expect(everyToken.body.tokens.some((t: { id: string }) => t.id === 'root')).toBe(true);

    expect((await http(server.url, 'DELETE', `/openapi/v3/tokens/${pat.data.createAccessToken.metadata.id}`, { headers: bearer(session) })).status).toBe(200);
    expect((await http(server.url, 'GET', `/openapi/v3/entity/dataset/${enc(DATASET)}`, { headers: bearer(patSecret) })).status).toBe(401);
  });

  test('a machine token an admin person issues names them as creator and acts as its name', async () => {
    const alice = await consoleToken(PEOPLE.alice);
    const created = await http(server.url, 'POST', '/openapi/v3/tokens', { json: { name: 'nightly-loader', scope: 'write', type: 'machine' }, headers: bearer(alice) });
    expect(created.status).toBe(200);
    expect(created.body.metadata).toMatchObject({ type: 'machine', owner: null, createdBy: 'urn:li:corpuser:alice@example.com' });
    const me = await graphql(server.url, ME, undefined, '/api/graphql', bearer(created.body.accessToken));
    expect(me.data.me).toMatchObject({ corpUser: { urn: 'urn:li:corpuser:__service_nightly-loader' }, tokenType: 'MACHINE' });
  });
});

describe('machine tokens and the routes', () => {
  test('the root token acts in the machine namespace, and sign-in routes need no token', async () => {
    const me = await graphql(server.url, ME, undefined, '/api/graphql', bearer(ROOT_TOKEN));
    expect(me.data.me).toMatchObject({ corpUser: { urn: 'urn:li:corpuser:__service_root' }, scope: 'ADMIN', tokenType: 'MACHINE' });
    expect((await http(server.url, 'GET', '/auth/sign-in-error')).status).toBe(404);
    expect((await http(server.url, 'POST', '/auth/device/token', { json: {} })).status).toBe(400);
  });

  test('the console names the provider, so it can offer “Sign in with …”', async () => {
    const page = await fetch(`${server.url}/properties`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<meta name="propgraph-sign-in" content="Test IdP">');
  });
});

describe('a public client (no OIDC_CLIENT_SECRET) with OIDC_REDIRECT_URL', () => {
  let publicServer: TestServer;
  beforeAll(async () => {
    const env = { ...oidcEnv(provider.issuer), OIDC_CLIENT_ID: 'propgraph-public', OIDC_REDIRECT_URL: PUBLIC_CALLBACK };
    delete (env as Record<string, string>).OIDC_CLIENT_SECRET;
    publicServer = await startTestServer({ env: { AUTH_ENABLED: 'true', ROOT_TOKEN, ...env } });
  }, 120_000);
  afterAll(async () => {
    await publicServer?.stop();
  });

  test('the provider is sent the configured callback, and the cookies are Secure on https', async () => {
    const response = await fetch(`${publicServer.url}/auth/login`, { redirect: 'manual' });
    const location = new URL(response.headers.get('location')!);
    expect(location.searchParams.get('client_id')).toBe('propgraph-public');
    expect(location.searchParams.get('redirect_uri')).toBe(PUBLIC_CALLBACK);
    expect(location.searchParams.get('code_challenge_method')).toBe('S256');
    expect(response.headers.getSetCookie()[0]).toMatch(/; HttpOnly; SameSite=Lax; Secure$/);
  });

  test('the device flow works without a client secret', async () => {
    const started = await http(publicServer.url, 'POST', '/auth/device', { json: {} });
    expect(started.status).toBe(200);
    await approveDevice(started.body.verificationUriComplete, PEOPLE.carol);
    const done = await http(publicServer.url, 'POST', '/auth/device/token', { json: { deviceCode: started.body.deviceCode } });
    expect(done.status).toBe(200);
    expect(done.body.person).toMatchObject({ urn: 'urn:li:corpuser:carol@example.com', scope: 'read' });
    expect(done.body.metadata.name).toBe('propgraph login');
  });
});

describe('a provider that does not answer', () => {
  test('sign-in answers 503 naming it, and the rest of the server works', async () => {
    const issuer = `http://127.0.0.1:${await freePort()}/realms/gone`;
    const lonely = await startTestServer({ env: { AUTH_ENABLED: 'true', ROOT_TOKEN, OIDC_ISSUER: issuer, OIDC_CLIENT_ID: 'propgraph' } });
    try {
      const started = await http(lonely.url, 'POST', '/auth/device', { json: {} });
      expect(started.status).toBe(503);
      expect(started.body).toEqual({ error: 'Service Unavailable', message: expect.stringContaining(`The OpenID provider at ${issuer} could not be reached`) });
      expect((await http(lonely.url, 'GET', '/auth/login')).status).toBe(503);
      expect((await graphql(lonely.url, ME, undefined, '/api/graphql', bearer(ROOT_TOKEN))).data.me.corpUser.urn).toBe('urn:li:corpuser:__service_root');
    } finally {
      await lonely.stop();
    }
  }, 120_000);
});

describe('without OIDC settings', () => {
  let plain: TestServer;
  beforeAll(async () => {
    plain = await startTestServer({ env: { AUTH_ENABLED: 'true', ROOT_TOKEN } });
  }, 120_000);
  afterAll(async () => {
    await plain?.stop();
  });

  test('there are no sign-in routes and the console offers no provider', async () => {
    expect((await http(plain.url, 'GET', '/auth/login')).status).toBe(401);
    expect((await http(plain.url, 'POST', '/auth/device', { json: {}, headers: bearer(ROOT_TOKEN) })).status).toBe(404);
    const page = await fetch(`${plain.url}/properties`);
    expect(await page.text()).not.toContain('propgraph-sign-in');
  });

  test('tokens behave as before: machine tokens, admin only', async () => {
    const created = await http(plain.url, 'POST', '/openapi/v3/tokens', { json: { name: 'reader', scope: 'read' }, headers: bearer(ROOT_TOKEN) });
    expect(created.body.metadata).toMatchObject({ type: 'machine', owner: null, createdBy: 'urn:li:corpuser:__service_root', principal: 'urn:li:corpuser:__service_reader' });
    expect((await http(plain.url, 'GET', '/openapi/v3/tokens', { headers: bearer(created.body.accessToken) })).status).toBe(403);
    const personal = await http(plain.url, 'POST', '/openapi/v3/tokens', { json: { name: 'x', scope: 'read', type: 'personal' }, headers: bearer(ROOT_TOKEN) });
    expect(personal.status).toBe(400);
  });
});
