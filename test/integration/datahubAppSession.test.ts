/**
 * What DataHub's web app calls besides GraphQL (src/rest/datahubAppSession.ts) and the
 * serving of its built files (src/web/datahubApp.ts), on a real server with authentication
 * on: sign-in with an access token as the password setting DataHub's `actor` cookie and an
 * HttpOnly token cookie, the app's GraphQL endpoint taking the token from that cookie and
 * answering 401 without it, /authenticate, sign-out, the refused password routes, tracking,
 * /mfe/config, and index.html with its base path filled in (a stand-in dist/ here; the real
 * app is walked in test/e2e/datahubAppBrowser.test.ts).
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { http } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { tempDir } from '../support/tempDir.js';

const ROOT_TOKEN = `pgt_appsession_${Math.random().toString(36).slice(2)}`;
const dist = tempDir('propgraph-datahub-app-');
let server: TestServer;

beforeAll(async () => {
  mkdirSync(path.join(dist, 'assets'), { recursive: true });
  writeFileSync(path.join(dist, 'index.html'), '<!DOCTYPE html><html><head><base href="@basePath" /><script type="module" src="assets/index-Abcdef12.js"></script></head><body></body></html>');
  writeFileSync(path.join(dist, 'assets', 'index-Abcdef12.js'), 'console.log(1)');
  writeFileSync(path.join(path.dirname(dist), 'outside.txt'), 'secret');
  server = await startTestServer({ env: { AUTH_ENABLED: 'true', ROOT_TOKEN, DATAHUB_APP_DIR: dist } });
}, 120_000);

afterAll(async () => {
  await server?.stop();
  rmSync(dist, { recursive: true, force: true });
});

const raw = (p: string, init: RequestInit = {}) => fetch(`${server.url}${p}`, { redirect: 'manual', ...init });
const logIn = (username: string, password: string) =>
  raw('/datahub/logIn', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username, password }) });
const cookiesOf = (res: Response) => res.headers.getSetCookie();
const gql = (cookie?: string) =>
  raw('/datahub/api/v2/graphql', { method: 'POST', headers: { 'content-type': 'application/json', ...(cookie ? { cookie } : {}) }, body: JSON.stringify({ query: '{ me { corpUser { urn } } }' }) });

describe("the app's files", () => {
  test('index.html answers every page, without a token, with <base href="@basePath"> filled in as /datahub/', async () => {
    for (const page of ['/datahub/', '/datahub/search', '/datahub/dataset/urn%3Ali%3Adataset%3A(x)/Properties']) {
      const res = await http(server.url, 'GET', page);
      expect(res.status).toBe(200);
      expect(res.text).toContain('<base href="/datahub/" />');
    }
    expect((await raw('/datahub')).headers.get('location')).toBe('/datahub/');
  });

  test('built files are served with long caching; a missing file is 404, and nothing outside the folder is reachable', async () => {
    const script = await raw('/datahub/assets/index-Abcdef12.js');
    expect(script.status).toBe(200);
    expect(script.headers.get('cache-control')).toContain('immutable');
    expect((await raw('/datahub/assets/nope.js')).status).toBe(404);
    expect((await raw('/datahub/..%2Foutside.txt')).status).toBe(404);
  });
});

describe('signing in as the app does', () => {
  test('an access token as the password signs in: the actor cookie holds the principal, the token is HttpOnly', async () => {
    const res = await logIn('root', ROOT_TOKEN);
    expect(res.status).toBe(200);
    const cookies = cookiesOf(res);
    expect(cookies).toEqual(
      expect.arrayContaining([expect.stringMatching(/^propgraph_datahub_app=.*; Path=\/datahub; .*HttpOnly; SameSite=Lax/), expect.stringMatching(/^actor=urn%3Ali%3Acorpuser%3A__service_root; Path=\/datahub; /)]),
    );
    expect(cookies.find((c) => c.startsWith('actor='))).not.toContain('HttpOnly');
  });

  test('a wrong token is 401 with a message the app shows; a username that is not the token\'s principal too; no password is 400', async () => {
    const bad = await logIn('root', 'not-a-token');
    expect(bad.status).toBe(401);
    expect(((await bad.json()) as { message: string }).message).toMatch(/not a valid access token/);
    const other = await logIn('alice', ROOT_TOKEN);
    expect(other.status).toBe(401);
    expect(((await other.json()) as { message: string }).message).toBe('This token belongs to urn:li:corpuser:__service_root: sign in as root');
    expect((await logIn('root', '')).status).toBe(400);
  });

  test("the app's GraphQL endpoint authenticates with the cookie; without it, it answers 401 as the app expects", async () => {
    const token = cookiesOf(await logIn('root', ROOT_TOKEN)).find((c) => c.startsWith('propgraph_datahub_app='))!.split(';')[0]!;
    const signedIn = await gql(token);
    expect(signedIn.status).toBe(200);
    expect(await signedIn.json()).toEqual({ data: { me: { corpUser: { urn: 'urn:li:corpuser:__service_root' } } } });
    const anonymous = await gql();
    expect(anonymous.status).toBe(401);
    expect(((await anonymous.json()) as { errors: Array<{ extensions: { code: string } }> }).errors[0]!.extensions.code).toBe('UNAUTHENTICATED');
    // The cookie counts only there: the rest of the API still needs a bearer token.
    expect((await raw('/api/graphql', { method: 'POST', headers: { 'content-type': 'application/json', cookie: token }, body: '{"query":"{ me { corpUser { urn } } }"}' })).status).toBe(401);
  });

  test('/authenticate sends a signed-in browser on to its page and another to sign in, never off the app', async () => {
    const token = cookiesOf(await logIn('root', ROOT_TOKEN)).find((c) => c.startsWith('propgraph_datahub_app='))!.split(';')[0]!;
    const on = await raw('/datahub/authenticate?redirect_uri=%2Fsearch%3Fquery%3D*', { headers: { cookie: token } });
    expect([on.status, on.headers.get('location')]).toEqual([302, '/datahub/search?query=*']);
    const off = await raw('/datahub/authenticate?redirect_uri=%2Fsearch');
    expect([off.status, off.headers.get('location')]).toEqual([302, '/datahub/login?redirect_uri=%2Fdatahub%2Fsearch']);
    const away = await raw('/datahub/authenticate?redirect_uri=%2F%2Fevil.example', { headers: { cookie: token } });
    expect(away.headers.get('location')).toBe('/datahub/');
  });

  test('signing out clears both cookies; the password routes are refused saying how to sign in; single sign-on says it is not configured', async () => {
    const out = await raw('/datahub/logOut');
    expect(out.headers.get('location')).toBe('/datahub/login');
    expect(cookiesOf(out)).toEqual(expect.arrayContaining([expect.stringMatching(/^propgraph_datahub_app=; .*Max-Age=0/), expect.stringMatching(/^actor=; .*Max-Age=0/)]));
    for (const route of ['/datahub/signUp', '/datahub/resetNativeUserCredentials']) {
      const res = await raw(route, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { message: string }).message).toMatch(/access token as the password/);
    }
    expect((await raw('/datahub/sso')).status).toBe(404);
  });
});

test("the app's tracking events are accepted and not kept; its micro-frontends config is an empty YAML list", async () => {
  expect((await raw('/datahub/openapi/v1/tracking/track', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"type":"PageViewEvent"}' })).status).toBe(200);
  const mfe = await raw('/datahub/mfe/config');
  expect(mfe.headers.get('content-type')).toMatch(/yaml/);
  expect(await mfe.text()).toBe('microFrontends: []\n');
});
