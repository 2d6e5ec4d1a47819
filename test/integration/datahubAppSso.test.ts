/**
 * DataHub's web app signing a person in through single sign-on (src/rest/datahubAppSession.ts,
 * /datahub/sso and its callback) against a real OpenID provider, as its "Sign in with SSO"
 * button does: the person lands back on the app's page they asked for with DataHub's `actor`
 * cookie naming them, and the app's GraphQL endpoint answers as them. The server has no
 * DATAHUB_APP_DIR: the app's pages say how to build it (README, DATAHUB_APP_DIR).
 */
import { freePort } from '../../src/embedded/freePort.js';
import { browse, CookieJar, oidcEnv, PEOPLE, propgraphClient, signInAtProvider, startOpenIdProvider, type RunningProvider } from '../support/openIdProvider.js';
import { startTestServer, type TestServer } from '../support/server.js';

const ROOT_TOKEN = `pgt_appsso_${Math.random().toString(36).slice(2)}`;
let provider: RunningProvider;
let server: TestServer;

beforeAll(async () => {
  const port = await freePort();
  provider = await startOpenIdProvider({ clients: [propgraphClient(`http://127.0.0.1:${port}/datahub/sso/callback`)] });
  server = await startTestServer({ env: { AUTH_ENABLED: 'true', ROOT_TOKEN, PORT: String(port), ...oidcEnv(provider.issuer) } });
}, 180_000);

afterAll(async () => {
  await server?.stop();
  await provider?.stop();
});

test("the app's single sign-on lands the person on the page they asked for, signed in as themselves", async () => {
  const jar = new CookieJar();
  const here = new URL(server.url);
  const backAtApp = (url: URL) => url.host === here.host && url.pathname === '/datahub/search';
  const start = await browse(jar, `${server.url}/datahub/sso?redirect_uri=${encodeURIComponent('/search?query=orders')}`, {}, backAtApp);
  expect(new URL(provider.issuer).host).not.toBe(here.host);
  const landing = await signInAtProvider(jar, start, PEOPLE.bob, backAtApp);
  expect(landing.url.pathname + landing.url.search).toBe('/datahub/search?query=orders');

  const actor = decodeURIComponent(jar.value(here, 'actor') ?? '');
  expect(actor).toMatch(/^urn:li:corpuser:[^_]/);
  const cookie = jar.header(new URL('/datahub/api/v2/graphql', server.url))!;
  expect(cookie).toContain('propgraph_session=');
  const me = await fetch(`${server.url}/datahub/api/v2/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'sec-fetch-site': 'same-origin', cookie },
    body: JSON.stringify({ query: '{ me { corpUser { urn } } }' }),
  });
  expect(me.status).toBe(200);
  expect(await me.json()).toEqual({ data: { me: { corpUser: { urn: actor } } } });
}, 120_000);

test('a callback without the sign-in it belongs to goes back to the sign-in page, signing no one in', async () => {
  const res = await fetch(`${server.url}/datahub/sso/callback?code=forged&state=forged`, { redirect: 'manual' });
  expect([res.status, res.headers.get('location')]).toEqual([302, '/datahub/login']);
  expect(res.headers.getSetCookie().filter((c) => c.startsWith('actor=') || c.startsWith('propgraph_session='))).toEqual([]);
});

test('without DATAHUB_APP_DIR the app is not served: its pages say how to build it and where to point the setting', async () => {
  const page = await fetch(`${server.url}/datahub/search`);
  expect(page.status).toBe(503);
  const text = await page.text();
  expect(text).toContain('DATAHUB_APP_DIR');
  expect(text).toContain('docs/datahub-compatibility.md');
});

test("behind a proxy the app's sign-in sends the provider back to OIDC_REDIRECT_URL's origin, not to the address the request came to", async () => {
  const behind = await startTestServer({ env: { AUTH_ENABLED: 'true', ROOT_TOKEN, ...oidcEnv(provider.issuer), OIDC_REDIRECT_URL: 'https://catalog.example.com/auth/callback' } });
  try {
    const res = await fetch(`${behind.url}/datahub/sso?redirect_uri=${encodeURIComponent('/search')}`, { redirect: 'manual' });
    expect(res.status).toBe(302);
    const authorize = new URL(res.headers.get('location')!);
    expect(authorize.origin).toBe(new URL(provider.issuer).origin);
    expect(authorize.searchParams.get('redirect_uri')).toBe('https://catalog.example.com/datahub/sso/callback');
    // The sign-in's own cookie goes back over that https address only.
    expect(res.headers.getSetCookie().some((c) => /; Secure/i.test(c))).toBe(true);
  } finally {
    await behind.stop();
  }
}, 120_000);
