/**
 * Generated hostile input against sign-in and browser sessions (issues #41, #46; the
 * pattern of fuzz.test.ts): cookie headers of any shape, forged cross-site requests
 * with a live session, sign-outs from other sites, `/auth/sign-in-error` cookies and
 * tokens traded for sessions that are not tokens. Every one is refused with a 4xx,
 * never a 5xx; nothing forged is written, and the live session survives them all.
 */
import fc from 'fast-check';
import { freePort } from '../../src/embedded/freePort.js';
import { principalKindOf } from '../../src/domain/principal.js';
import { databaseChecksum } from '../support/dbChecksum.js';
import { startTestServer, type TestServer } from '../support/server.js';

const ROOT = 'identity-fuzz-root';
const RUNS = { numRuns: 80 };

let server: TestServer;
/** A live session's cookie, which no forged request may use or end. */
let session: string;
let baseline: string;
const counts: Record<string, number> = {};
const serverErrors: string[] = [];

async function send(category: string, method: string, path: string, headers: Record<string, string>, body?: string): Promise<Response> {
  counts[category] = (counts[category] ?? 0) + 1;
  const res = await fetch(server.url + path, { method, headers, ...(body !== undefined ? { body } : {}) });
  if (res.status >= 500) serverErrors.push(`${category}: ${method} ${path} ${JSON.stringify(headers).slice(0, 300)} -> ${res.status} ${(await res.clone().text()).slice(0, 200)}`);
  return res;
}

/** Header values fetch will send: printable ASCII (the rest is refused by the client, not the server). */
const headerText = (max: number) => fc.string({ maxLength: max }).map((s) => s.replace(/[^\t\x20-\x7e]/g, '').trim());
const cookieHeader = fc.oneof(
  headerText(200),
  headerText(80).map((v) => `propgraph_session=${v}`),
  headerText(80).map((v) => `a=b; propgraph_session=${v}; propgraph_session=pgt_second`),
  fc.constantFrom('propgraph_session=', 'propgraph_session', '=;=;', `propgraph_session=${'x'.repeat(5000)}`, 'propgraph_session=pgt_%00', 'propgraph_session="pgt_quoted"'),
);
/** What a browser on another site, or no browser, would say about where a request came from. */
const notSameOrigin = fc.oneof(
  // Header values are sent trimmed, so ' same-origin ' would be the real thing: left out.
  fc.record({ 'sec-fetch-site': fc.oneof(fc.constantFrom('cross-site', 'same-site', 'none', 'SAME-ORIGIN', 'same-origin, cross-site', ''), headerText(20)).filter((v) => v.trim() !== 'same-origin') }),
  fc.record({ origin: fc.oneof(fc.constantFrom('null', 'https://evil.example', 'http://127.0.0.1.evil.example', 'file://'), headerText(60)).filter((o) => !o.includes('127.0.0.1:') || !o.endsWith(new URL(server.url).host)) }),
  fc.constant({}),
);
const mutation = fc.string({ maxLength: 20 }).map((n) => ({ query: 'mutation c($input: CreateStructuredPropertyInput!) { createStructuredProperty(input: $input) { urn } }', variables: { input: { qualifiedName: `io.forged.p${n.replace(/\W/g, '')}`, valueType: 'urn:li:dataType:svc.string', entityTypes: ['urn:li:entityType:svc.dataset'] } } }));

beforeAll(async () => {
  // An issuer nobody answers at: the sign-in routes exist (the provider is asked only on first use).
  const issuer = `http://127.0.0.1:${await freePort()}/realms/none`;
  server = await startTestServer({ env: { AUTH_ENABLED: 'true', ROOT_TOKEN: ROOT, RATE_LIMIT_PER_MINUTE: '1000000', AUTH_FAILURES_PER_MINUTE: '1000000', TEST_EVALUATION: 'false', OIDC_ISSUER: issuer, OIDC_CLIENT_ID: 'propgraph' } });
  const opened = await fetch(`${server.url}/auth/session`, { method: 'POST', headers: { authorization: `Bearer ${ROOT}` } });
  session = opened.headers.getSetCookie()[0]!.split(';')[0]!;
  baseline = await databaseChecksum(server.database.sql);
}, 180_000);

afterAll(async () => {
  await server?.stop();
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  console.log(`identity fuzz: ${total} generated hostile requests (${JSON.stringify(counts)}), ${serverErrors.length} server errors`);
});

test('a cookie header of any shape, without a live session in it, is a 401 on every kind of route', async () => {
  await fc.assert(
    fc.asyncProperty(cookieHeader, fc.constantFrom('GET /openapi/v3/jobs', 'POST /api/graphql', 'GET /aspects/x', 'POST /auth/session'), async (cookie, route) => {
      const [method, path] = route.split(' ') as [string, string];
      const res = await send('cookies', method, path, { cookie, 'sec-fetch-site': 'same-origin', 'content-type': 'application/json' }, method === 'POST' ? '{"query":"{ __typename }"}' : undefined);
      expect(res.status).toBe(401);
    }),
    RUNS,
  );
});

test('with a live session, a change from anywhere but this origin is a 403 on GraphQL and REST, and writes nothing', async () => {
  await fc.assert(
    fc.asyncProperty(notSameOrigin, mutation, async (where, body) => {
      const headers = { cookie: session, 'content-type': 'application/json', ...where };
      const graphql = await send('forged-graphql', 'POST', '/api/graphql', headers, JSON.stringify(body));
      expect(graphql.status).toBe(403);
      const urn = `urn:li:structuredProperty:${body.variables.input.qualifiedName}`;
      const rest = await send('forged-rest', 'POST', `/openapi/v3/entity/structuredProperty/${encodeURIComponent(urn)}/propertyDefinition`, headers, JSON.stringify({ value: body.variables.input }));
      expect(rest.status).toBe(403);
      const token = await send('forged-token', 'POST', '/openapi/v3/tokens', headers, JSON.stringify({ name: 'forged', scope: 'admin' }));
      expect(token.status).toBe(403);
    }),
    RUNS,
  );
  expect(await databaseChecksum(server.database.sql)).toBe(baseline);
});

test('no other site can sign the browser out: the session survives every forged sign-out', async () => {
  await fc.assert(
    fc.asyncProperty(notSameOrigin, async (where) => {
      const res = await send('forged-sign-out', 'POST', '/auth/sign-out', { cookie: session, ...where });
      expect(res.status).toBe(403);
    }),
    RUNS,
  );
  const still = await fetch(`${server.url}/openapi/v3/jobs`, { headers: { cookie: session } });
  expect(still.status).toBe(200);
});

test('GET /auth/sign-in-error reads only what the callback wrote: any other cookie is a 404 or a known code', async () => {
  const encoded = fc.oneof(headerText(100), fc.jsonValue({ maxDepth: 2 }).map((v) => Buffer.from(JSON.stringify(v)).toString('base64url')), fc.record({ code: fc.string({ maxLength: 12 }), message: fc.string({ maxLength: 40 }) }).map((v) => Buffer.from(JSON.stringify(v)).toString('base64url')));
  await fc.assert(
    fc.asyncProperty(encoded, async (value) => {
      const res = await send('sign-in-error', 'GET', '/auth/sign-in-error', { cookie: `propgraph_sign_in_error=${value}` });
      if (res.status === 200) expect(['expired', 'refused', 'not-let-in', 'unavailable', 'failed']).toContain(((await res.json()) as { code: string }).code);
      else expect(res.status).toBe(404);
    }),
    RUNS,
  );
});

test('machine token names of any shape: refused with 400 naming name, or a principal in the machine namespace', async () => {
  await fc.assert(
    fc.asyncProperty(fc.oneof(fc.string({ maxLength: 40 }), fc.emailAddress(), fc.constantFrom('root', 'Root', '__service_x', 'a,urn:li:corpuser:root')), async (name) => {
      const res = await send('token-names', 'POST', '/openapi/v3/tokens', { authorization: `Bearer ${ROOT}`, 'content-type': 'application/json' }, JSON.stringify({ name, scope: 'read', type: 'machine' }));
      const body = (await res.json()) as { message?: string; metadata?: { principal: string } };
      if (res.status === 200) expect(principalKindOf(body.metadata!.principal)).toBe('machine');
      else {
        expect(res.status).toBe(400);
        expect(body.message).toMatch(/^name /);
      }
    }),
    RUNS,
  );
});

test('afterwards: no request got a 5xx', () => {
  expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(400);
  expect(serverErrors).toEqual([]);
});
