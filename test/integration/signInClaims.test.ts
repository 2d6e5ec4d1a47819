/**
 * What a provider's claims may make of a person (issue #46, items 5, 10 and 13), against
 * real oidc-provider processes that send what a careless or hostile provider sends: an
 * email that is not verified (`email_verified: "false"` as text, or no such claim at
 * all), an email claim `root` or `x@example.com,urn:li:corpuser:root`, and ID tokens
 * stamped an hour ahead by a provider whose clock is wrong. Each was let in before.
 */
import { freePort } from '../../src/embedded/freePort.js';
import { graphql } from '../support/graphql.js';
import { http } from '../support/http.js';
import { oidcEnv, PEOPLE, propgraphClient, signInErrorOf, signInThroughConsoleRoutes, startOpenIdProvider, type ProviderPerson, type RunningProvider } from '../support/openIdProvider.js';
import { startTestServer, type TestServer } from '../support/server.js';

const ROOT_TOKEN = `pgt_claims_${Math.random().toString(36).slice(2)}`;
const ME = '{ me { corpUser { urn principalType } scope tokenId tokenType } }';

/** People whose provider says more, or less, than it should. */
const HOSTILE = {
  // Mallory registered alice@example.com at the provider, which did not verify it.
  textFalse: { login: 'mallory1', password: 'pw1', email: PEOPLE.alice.email, name: 'Mallory One', groups: ['staff'], claims: { email_verified: 'false' } },
  absent: { login: 'mallory2', password: 'pw2', email: PEOPLE.alice.email, name: 'Mallory Two', groups: ['staff'], omitClaims: ['email_verified'] },
  rootEmail: { login: 'mallory3', password: 'pw3', email: 'root', name: 'Mallory Three', groups: ['staff'] },
  listEmail: { login: 'mallory4', password: 'pw4', email: 'x@example.com,urn:li:corpuser:root', name: 'Mallory Four', groups: ['staff'] },
  // Someone whose provider names them root: a person like any other, never the root token.
  rootSub: { login: 'root', password: 'pw5', email: 'unverified-root@example.com', name: 'Root Person', groups: ['staff'], emailVerified: false },
} satisfies Record<string, ProviderPerson>;

let provider: RunningProvider;
let server: TestServer;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const me = async (token: string) => (await graphql(server.url, ME, undefined, '/api/graphql', bearer(token))).data.me;

async function session(person: ProviderPerson): Promise<string> {
  const { token, landing } = await signInThroughConsoleRoutes(server.url, person);
  if (!token) throw new Error(`${person.login} was not let in: ${landing.href}`);
  return token;
}

beforeAll(async () => {
  const port = await freePort();
  provider = await startOpenIdProvider({ clients: [propgraphClient(`http://127.0.0.1:${port}/auth/callback`)], people: [PEOPLE.alice, ...Object.values(HOSTILE)] });
  server = await startTestServer({ env: { AUTH_ENABLED: 'true', ROOT_TOKEN, PORT: String(port), RATE_LIMIT_PER_MINUTE: '1000000', ...oidcEnv(provider.issuer) } });
}, 180_000);

afterAll(async () => {
  await server?.stop();
  await provider?.stop();
});

describe('an email the provider does not vouch for does not name the person (item 5)', () => {
  test.each([
    ['email_verified: "false" (text)', HOSTILE.textFalse],
    ['no email_verified claim', HOSTILE.absent],
  ])('with %s, the person is their subject, and Alice’s tokens and scope are out of their reach', async (_label, mallory) => {
    const alice = await session(PEOPLE.alice);
    expect(await me(alice)).toMatchObject({ corpUser: { urn: 'urn:li:corpuser:alice@example.com', principalType: 'PERSON' }, scope: 'ADMIN' });
    const aliceSessionId = (await me(alice)).tokenId as string;

    const token = await session(mallory);
    expect(await me(token)).toMatchObject({ corpUser: { urn: `urn:li:corpuser:${mallory.login}`, principalType: 'PERSON' }, scope: 'READ' });
    const listed = await http(server.url, 'GET', '/openapi/v3/tokens', { headers: bearer(token) });
    expect(listed.status).toBe(200);
    expect(listed.body.tokens.map((t: { owner: string }) => t.owner)).toEqual([`urn:li:corpuser:${mallory.login}`]);
    expect((await http(server.url, 'DELETE', `/openapi/v3/tokens/${aliceSessionId}`, { headers: bearer(token) })).status).toBe(403);
    // Their read-scope sign-in lowered nothing of Alice's.
    expect(await me(alice)).toMatchObject({ scope: 'ADMIN' });
  });
});

describe('an id that is not a plain identifier is refused (item 10)', () => {
  test.each([
    ['root', HOSTILE.rootEmail],
    ['x@example.com,urn:li:corpuser:root', HOSTILE.listEmail],
  ])('a verified email claim %j: not let in, and told why', async (email, person) => {
    const { token, landing, jar } = await signInThroughConsoleRoutes(server.url, person);
    expect(token).toBeUndefined();
    expect(landing.hash).toBe('#sign-in-error=not-let-in');
    expect(await signInErrorOf(server.url, jar)).toEqual({
      code: 'not-let-in',
      message: `Signed in at the provider, but not let in: the provider's email claim ${JSON.stringify(email)} is not an email address (local@domain.tld, without spaces, commas or colons), so it cannot name a person`,
    });
  });

  test('a person the provider names root is urn:li:corpuser:root, a person: never the root token’s principal', async () => {
    const person = await session(HOSTILE.rootSub);
    expect(await me(person)).toMatchObject({ corpUser: { urn: 'urn:li:corpuser:root', principalType: 'PERSON' }, scope: 'READ', tokenType: 'SESSION' });
    expect(await me(ROOT_TOKEN)).toMatchObject({ corpUser: { urn: 'urn:li:corpuser:__service_root', principalType: 'MACHINE' }, scope: 'ADMIN', tokenType: 'MACHINE' });
    // The root token's own (id root) is not theirs to see or revoke.
    expect((await http(server.url, 'GET', '/openapi/v3/tokens', { headers: bearer(person) })).body.tokens.some((t: { id: string }) => t.id === 'root')).toBe(false);
    expect((await http(server.url, 'DELETE', '/openapi/v3/tokens/root', { headers: bearer(person) })).status).toBe(403);
  });
});

describe('an ID token issued in the future is refused (item 13)', () => {
  let ahead: RunningProvider;
  let skewed: TestServer;
  beforeAll(async () => {
    const port = await freePort();
    ahead = await startOpenIdProvider({ clients: [propgraphClient(`http://127.0.0.1:${port}/auth/callback`)], clockOffsetSeconds: 3600 });
    skewed = await startTestServer({ env: { AUTH_ENABLED: 'true', ROOT_TOKEN, PORT: String(port), ...oidcEnv(ahead.issuer) } });
  }, 180_000);
  afterAll(async () => {
    await skewed?.stop();
    await ahead?.stop();
  });

  test('an admin’s sign-in with iat an hour ahead is not let in, and says why', async () => {
    const { token, landing, jar } = await signInThroughConsoleRoutes(skewed.url, PEOPLE.alice);
    expect(token).toBeUndefined();
    expect(landing.hash).toBe('#sign-in-error=refused');
    const failure = await signInErrorOf(skewed.url, jar);
    expect(failure).toEqual({ code: 'refused', message: expect.stringMatching(/^The sign-in could not be verified: the ID token says it was issued 3\d{3} s in the future \(more than the 30 s of clock skew allowed\)/) });
  });
});
