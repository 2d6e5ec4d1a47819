/**
 * Issue #29, item 4: the rate limit counts per principal, not per spelling of the
 * Authorization header; failed authentications are throttled per client address (429
 * with Retry-After); and a token already found unknown is not looked up again for a
 * while, so a flood of bad tokens does not become a flood of database lookups.
 */
import pg from 'pg';
import { http } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { waitFor } from '../support/waitFor.js';

const ROOT = 'throttle-root-secret';

describe('the rate limit counts per principal', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { AUTH_ENABLED: 'true', ROOT_TOKEN: ROOT, RATE_LIMIT_PER_MINUTE: '6' } });
  });
  afterAll(async () => {
    await server?.stop();
  });

  test('`Bearer  T`, `bearer T` and a tab are one bucket: the seventh request of any spelling is 429', async () => {
    const created = await http(server.url, 'POST', '/openapi/v3/tokens', { json: { name: 'spelled', scope: 'read' }, headers: { authorization: `Bearer ${ROOT}` } });
    const t = created.body.accessToken as string;
    const spellings = [`Bearer  ${t}`, `bearer ${t}`, `Bearer\t${t}`, `BEARER ${t}`, `Bearer ${t} `, `Bearer ${t}`];
    for (const authorization of spellings) expect((await http(server.url, 'GET', '/openapi/v3/jobs', { headers: { authorization } })).status).toBe(200);
    for (const authorization of spellings) {
      const res = await http(server.url, 'GET', '/openapi/v3/jobs', { headers: { authorization } });
      expect(res.status).toBe(429);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    // GraphQL with that token is the same principal, so the same bucket.
    const gql = await http(server.url, 'POST', '/api/graphql', { json: { query: '{ __typename }' }, headers: { authorization: `bearer  ${t}` } });
    expect(gql.status).toBe(429);
  });
});

describe('failed authentications are throttled per client address', () => {
  let server: TestServer;
  let known: string;
  beforeAll(async () => {
    server = await startTestServer({ env: { AUTH_ENABLED: 'true', ROOT_TOKEN: ROOT, AUTH_FAILURES_PER_MINUTE: '5' } });
    const created = await http(server.url, 'POST', '/openapi/v3/tokens', { json: { name: 'known', scope: 'read' }, headers: { authorization: `Bearer ${ROOT}` } });
    known = created.body.accessToken as string;
  });
  afterAll(async () => {
    await server?.stop();
  });

  test('past the limit a bad token is 429 with Retry-After, on REST and GraphQL; a token verified before still works', async () => {
    for (let i = 0; i < 5; i++) expect((await http(server.url, 'GET', '/openapi/v3/jobs', { headers: { authorization: `Bearer bad-${i}` } })).status).toBe(401);
    const rest = await http(server.url, 'GET', '/openapi/v3/jobs', { headers: { authorization: 'Bearer bad-5' } });
    expect(rest.status).toBe(429);
    expect(Number(rest.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(rest.body).toEqual({ error: 'Too Many Requests', message: expect.stringMatching(/^Too many failed authentications from this address \(limit 5 per minute\); retry in \d+ s$/) });
    const gql = await http(server.url, 'POST', '/api/graphql', { json: { query: '{ __typename }' }, headers: { authorization: 'Bearer bad-6' } });
    expect(gql.status).toBe(429);
    expect(gql.body.errors[0].extensions.code).toBe('RATE_LIMITED');
    // Requests without a token count as failures too.
    expect((await http(server.url, 'GET', '/openapi/v3/jobs')).status).toBe(429);
    // A token this server has verified before still works from the throttled address; one it has never seen waits for the window, as a bad one does.
    expect((await http(server.url, 'GET', '/openapi/v3/jobs', { headers: { authorization: `Bearer ${ROOT}` } })).status).toBe(200);
    expect((await http(server.url, 'GET', '/openapi/v3/jobs', { headers: { authorization: `Bearer ${known}` } })).status).toBe(429);
    // Public paths are never throttled.
    expect((await http(server.url, 'GET', '/health')).status).toBe(200);
  });
});

describe('a token found unknown is not looked up again at once', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { AUTH_ENABLED: 'true', ROOT_TOKEN: ROOT, AUTH_FAILURES_PER_MINUTE: '1000000' } });
  });
  afterAll(async () => {
    await server?.stop();
  });

  test('a bad token presented again is refused while the token table is locked: the answer comes from the cache', async () => {
    expect((await http(server.url, 'GET', '/openapi/v3/jobs', { headers: { authorization: 'Bearer cached-bad' } })).status).toBe(401);
    const locker = new pg.Client({ connectionString: server.databaseUrl });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE access_token IN ACCESS EXCLUSIVE MODE');
      let again: number | undefined;
      void http(server.url, 'GET', '/openapi/v3/jobs', { headers: { authorization: 'Bearer cached-bad' } }).then((r) => {
        again = r.status;
      });
      expect(await waitFor('the refusal of the bad token, from the cache', 10_000, async () => again)).toBe(401);
      // A token never seen needs the table: its answer waits for the lock.
      let other: number | undefined;
      void http(server.url, 'GET', '/openapi/v3/jobs', { headers: { authorization: 'Bearer never-seen' } }).then((r) => {
        other = r.status;
      });
      await waitFor('a lookup blocked by the lock', 10_000, async () => ((await locker.query("SELECT count(*)::int AS n FROM pg_locks WHERE relation = 'access_token'::regclass AND NOT granted")).rows[0].n > 0 ? true : undefined));
      expect(other).toBeUndefined();
      await locker.query('ROLLBACK');
      await waitFor('the blocked lookup to finish', 10_000, async () => (other !== undefined ? true : undefined));
      expect(other).toBe(401);
    } finally {
      await locker.end();
    }
  });
});
