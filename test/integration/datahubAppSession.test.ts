/**
 * What DataHub's web app calls besides GraphQL (src/rest/datahubAppSession.ts) and the
 * serving of its built files (src/web/datahubApp.ts), on a real server with authentication
 * on: sign-in with an access token as the password opening propgraph's browser session and
 * setting DataHub's `actor` cookie, the app's GraphQL endpoint answering the session's
 * principal and 401 without one, the forgery checks, /authenticate, sign-out ending the
 * session, the refused password routes, tracking,
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
const logIn = (username: string, password: string, headers: Record<string, string> = {}) =>
  raw('/datahub/logIn', { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ username, password }) });
const cookiesOf = (res: Response) => res.headers.getSetCookie();
/** The app's GraphQL request as its pages send it: from this origin (the browser says so), with the browser's cookie. */
const gql = (cookie?: string, site = 'same-origin') =>
  raw('/datahub/api/v2/graphql', { method: 'POST', headers: { 'content-type': 'application/json', 'sec-fetch-site': site, ...(cookie ? { cookie } : {}) }, body: JSON.stringify({ query: '{ me { corpUser { urn } } }' }) });

describe("the app's files", () => {
  test('index.html answers every page, without a token, with <base href="@basePath"> filled in as /datahub/', async () => {
    for (const page of ['/datahub/', '/datahub/search', '/datahub/dataset/urn%3Ali%3Adataset%3A(x)/Properties']) {
      const res = await http(server.url, 'GET', page);
      expect(res.status).toBe(200);
      expect(res.text).toContain('<base href="/datahub/" />');
      // Only the app's own scripts run on its pages.
      expect(res.headers.get('content-security-policy')).toMatch(/script-src 'self'(;|$)/);
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
  const sessionOf = async (res: Response) => cookiesOf(res).find((c) => c.startsWith('propgraph_session='))!.split(';')[0]!;

  test("an access token as the password opens propgraph's browser session (HttpOnly, SameSite=Strict) and sets the actor cookie the app reads", async () => {
    const res = await logIn('root', ROOT_TOKEN);
    expect(res.status).toBe(200);
    const cookies = cookiesOf(res);
    expect(cookies).toEqual(
      expect.arrayContaining([expect.stringMatching(/^propgraph_session=pgt_.*; Path=\/; .*HttpOnly; SameSite=Strict/), expect.stringMatching(/^actor=urn%3Ali%3Acorpuser%3A__service_root; Path=\/datahub; /)]),
    );
    // The browser holds a session opened with the token, never the token itself.
    expect(cookies.join('\n')).not.toContain(ROOT_TOKEN);
    expect(cookies.find((c) => c.startsWith('actor='))).not.toContain('HttpOnly');
  });

  test("a wrong token is 401 with a message the app shows; a username that is not the token's principal too; no password is 400; another site's page cannot sign the browser in", async () => {
    const bad = await logIn('root', 'not-a-token');
    expect(bad.status).toBe(401);
    expect(((await bad.json()) as { message: string }).message).toMatch(/not a valid access token/);
    const other = await logIn('alice', ROOT_TOKEN);
    expect(other.status).toBe(401);
    expect(((await other.json()) as { message: string }).message).toBe('This token belongs to urn:li:corpuser:__service_root: sign in as root');
    expect((await logIn('root', '')).status).toBe(400);
    const forged = await logIn('root', ROOT_TOKEN, { 'sec-fetch-site': 'cross-site' });
    expect(forged.status).toBe(403);
    expect(cookiesOf(forged)).toEqual([]);
  });

  test("the app's GraphQL endpoint answers the session's principal from the app's own pages; another site's request is refused; without a session it answers 401 as the app expects", async () => {
    const session = await sessionOf(await logIn('root', ROOT_TOKEN));
    const signedIn = await gql(session);
    expect(signedIn.status).toBe(200);
    expect(await signedIn.json()).toEqual({ data: { me: { corpUser: { urn: 'urn:li:corpuser:__service_root' } } } });
    expect((await gql(session, 'cross-site')).status).toBe(403);
    const anonymous = await gql();
    expect(anonymous.status).toBe(401);
    expect(((await anonymous.json()) as { errors: Array<{ extensions: { code: string } }> }).errors[0]!.extensions.code).toBe('UNAUTHENTICATED');
  });

  test('/authenticate sends a signed-in browser on to its page (the console\'s session counts) and another to sign in, never off the app', async () => {
    const session = await sessionOf(await logIn('root', ROOT_TOKEN));
    const on = await raw('/datahub/authenticate?redirect_uri=%2Fsearch%3Fquery%3D*', { headers: { cookie: session } });
    expect([on.status, on.headers.get('location')]).toEqual([302, '/datahub/search?query=*']);
    expect(cookiesOf(on)).toEqual([expect.stringMatching(/^actor=urn%3Ali%3Acorpuser%3A__service_root; /)]);
    const console = await sessionOf(await raw('/auth/session', { method: 'POST', headers: { authorization: `Bearer ${ROOT_TOKEN}` } }));
    expect((await raw('/datahub/authenticate?redirect_uri=%2Fsearch', { headers: { cookie: console } })).headers.get('location')).toBe('/datahub/search');
    const off = await raw('/datahub/authenticate?redirect_uri=%2Fsearch');
    expect([off.status, off.headers.get('location')]).toEqual([302, '/datahub/login?redirect_uri=%2Fdatahub%2Fsearch']);
    const away = await raw('/datahub/authenticate?redirect_uri=%2F%2Fevil.example', { headers: { cookie: session } });
    expect(away.headers.get('location')).toBe('/datahub/');
  });

  test("signing out ends the session on the server and clears both cookies; a link on another site's page signs no one out", async () => {
    const session = await sessionOf(await logIn('root', ROOT_TOKEN));
    const forged = await raw('/datahub/logOut', { headers: { cookie: session, 'sec-fetch-site': 'cross-site' } });
    expect(cookiesOf(forged)).toEqual([]);
    expect((await gql(session)).status).toBe(200);
    const out = await raw('/datahub/logOut', { headers: { cookie: session, 'sec-fetch-site': 'same-origin' } });
    expect(out.headers.get('location')).toBe('/datahub/login');
    expect(cookiesOf(out)).toEqual(expect.arrayContaining([expect.stringMatching(/^propgraph_session=; .*Max-Age=0/), expect.stringMatching(/^actor=; .*Max-Age=0/)]));
    expect((await gql(session)).status).toBe(401);
  });

  test('the password routes are refused saying how to sign in; single sign-on says it is not configured', async () => {
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
