/**
 * The input limits of docs/contract.md §12 over REST (issue 14, items 2, 3, 4 and 10): JSON nested deeper
 * than 64 levels, U+0000 and lone UTF-16 surrogates anywhere in a string or a key,
 * inputs that decode to such text, and errors in one bounded shape. Every refusal is
 * a 400 naming the path, and nothing is stored. GraphQL's side is in graphql.test.ts,
 * the CLI's in test/e2e/cliProperties.test.ts.
 */
import { enc, http } from '../support/http.js';
import { createDatasets, datasetUrnOf, defineProperty, V3 } from '../support/fixtures.js';
import { databaseChecksum } from '../support/dbChecksum.js';
import { startTestServer, type TestServer } from '../support/server.js';

let server: TestServer;
let url: string;
const D = datasetUrnOf('limits.orders');
const aspectPath = (aspect: string, urn = D, entity = 'dataset') => `${V3}/entity/${entity}/${enc(urn)}/${aspect}`;
const upsert = { createIfNotExists: 'false' };

function nestedArrays(levels: number): unknown {
  let v: unknown = 'tag';
  for (let i = 0; i < levels; i++) v = [v];
  return v;
}

beforeAll(async () => {
  // Refusals change nothing: checked on a database that no background test evaluation writes to.
  server = await startTestServer({ search: true, env: { TEST_EVALUATION: 'false' } });
  url = server.url;
  await defineProperty(url, 'io.limits.owner', { valueType: 'urn:li:dataType:svc.string' });
  await createDatasets(url, [D]);
});
afterAll(async () => {
  await server?.stop();
});

/** Runs a refused request and checks that the database did not change. */
async function refused(method: string, path: string, options: Parameters<typeof http>[3]) {
  const before = await databaseChecksum(server.database.sql);
  const res = await http(url, method, path, options);
  expect(res.status).toBe(400);
  expect(Object.keys(res.body).sort()).toEqual(['error', 'message']);
  expect(await databaseChecksum(server.database.sql)).toBe(before);
  return res;
}

describe('nesting depth (item 2)', () => {
  test('a globalTags aspect nested 2,250 levels deep is refused before it is stored, and reads keep working', async () => {
    const res = await refused('POST', aspectPath('globalTags'), { query: upsert, json: { value: { tags: nestedArrays(2250) } } });
    expect(res.body.message).toMatch(/^value\.tags(\[0\]){62} is nested deeper than the limit of 64 levels of arrays and objects; flatten the value$/);
    expect((await http(url, 'GET', aspectPath('globalTags'))).status).toBe(404);
    expect((await http(url, 'GET', `${V3}/entity/dataset/${enc(D)}`)).status).toBe(200);
    expect((await http(url, 'GET', `${V3}/entity/dataset`, { query: { aspects: 'globalTags' } })).status).toBe(200);
    expect((await http(url, 'GET', `${V3}/entity/dataset`, { query: { query: '*', aspects: ['globalTags', 'status'] } })).status).toBe(200);
  });

  test('5,000 and 100,000 levels are a 400, not a 500', async () => {
    for (const levels of [5000, 100_000]) {
      const body = `{"value": {"tags": ${'['.repeat(levels)}${']'.repeat(levels)}}}`;
      await refused('POST', aspectPath('globalTags'), { query: upsert, body, contentType: 'application/json' });
    }
  });

  test('64 levels in a body are accepted, 65 refused', async () => {
    const ok = await http(url, 'POST', aspectPath('globalTags'), { query: upsert, json: { value: { tags: nestedArrays(62) } } });
    expect(ok.status).toBe(200);
    await refused('POST', aspectPath('globalTags'), { query: upsert, json: { value: { tags: nestedArrays(63) } } });
  });

  test('in a batch, a patch and a token body alike', async () => {
    await refused('POST', `${V3}/entity/dataset`, { json: [{ urn: D, globalTags: { value: { tags: nestedArrays(100) } } }] });
    const patch = await refused('PATCH', aspectPath('globalTags'), { json: { patch: [{ op: 'add', path: '/tags', value: nestedArrays(100) }] } });
    expect(patch.body.message).toMatch(/^patch\[0\]\.value(\[0\]){61} is nested deeper/);
    await refused('POST', `${V3}/tokens`, { json: { name: 'deep', scope: 'read', description: nestedArrays(70) } });
  });

  test('a patch whose path and value together would nest the aspect too deep is refused', async () => {
    let value: unknown = 1;
    for (let i = 0; i < 40; i++) value = { a: value };
    const path = '/' + Array.from({ length: 30 }, () => 'a').join('/');
    const res = await refused('PATCH', aspectPath('globalTags'), { json: [{ op: 'add', path, value }] });
    expect(res.body.message).toBe('patch[0] would nest the aspect deeper than the limit of 64 levels of arrays and objects; flatten the value');
  });
});

describe('lone surrogates and U+0000 (item 3)', () => {
  const SURROGATE = /contains a lone UTF-16 surrogate U\+D800 \(at character \d+\), which is not valid Unicode text/;

  test.each<[string, string, string, unknown, RegExp]>([
    ['a description', 'POST', aspectPath('datasetProperties'), { value: { description: 'x\ud800' } }, /^value\.description /],
    ['a property value', 'POST', aspectPath('structuredProperties'), { value: { properties: [{ propertyUrn: 'urn:li:structuredProperty:io.limits.owner', values: [{ string: 'x\ud800' }] }] } }, /^value\.properties\[0\]\.values\[0\]\.string /],
    [
      'a display name',
      'POST',
      aspectPath('propertyDefinition', 'urn:li:structuredProperty:io.limits.shown', 'structuredProperty'),
      { value: { qualifiedName: 'io.limits.shown', valueType: 'urn:li:dataType:svc.string', entityTypes: ['urn:li:entityType:svc.dataset'], displayName: 'x\ud800' } },
      /^value\.displayName /,
    ],
    ['a URN in a batch', 'POST', `${V3}/entity/dataset`, [{ urn: datasetUrnOf('x\ud800'), status: { value: { removed: false } } }], /^request body\[0\]\.urn /],
    [
      'testInfo',
      'POST',
      aspectPath('testInfo', 'urn:li:test:limits', 'test'),
      { value: { name: 'x\ud800', category: 'c', definition: { type: 'JSON', json: '{"on": {"types": ["dataset"]}, "rules": []}' } } },
      /^value\.name /,
    ],
    ['systemMetadata', 'POST', aspectPath('status'), { value: { removed: false }, systemMetadata: { runId: 'x\ud800' } }, /^systemMetadata\.runId /],
    ['a PATCH value', 'PATCH', aspectPath('datasetProperties'), { patch: [{ op: 'add', path: '/description', value: 'x\ud800' }] }, /^patch\[0\]\.value /],
    ['a token name', 'POST', `${V3}/tokens`, { name: 'x\ud800', scope: 'read' }, /^name /],
  ])('in %s: 400 naming the path', async (_name, method, path, body, at) => {
    const res = await refused(method, path, { query: upsert, json: body });
    expect(res.body.message).toMatch(at);
    expect(res.body.message).toMatch(SURROGATE);
  });

  test('in an object key: 400 naming the key', async () => {
    const res = await refused('POST', aspectPath('datasetProperties'), { query: upsert, json: { value: { customProperties: { 'k\udc00': 'v' } } } });
    expect(res.body.message).toMatch(/^value\.customProperties\["k\\udc00"\] has a key that contains a lone UTF-16 surrogate U\+DC00/);
  });

  test('U+0000 in a path parameter, a query parameter or a key is refused the same way', async () => {
    const inPath = await refused('GET', `${V3}/entity/dataset/${enc('urn:li:dataset:(urn:li:dataPlatform:hive,a\u0000,PROD)')}`, {});
    expect(inPath.body.message).toMatch(/^path parameter urn contains the character U\+0000/);
    const inQuery = await refused('GET', `${V3}/entity/dataset`, { query: { query: 'name:a\u0000' } });
    expect(inQuery.body.message).toMatch(/^query parameter query contains the character U\+0000/);
    const inKey = await refused('POST', aspectPath('datasetProperties'), { query: upsert, json: { value: { customProperties: { 'a\u0000': 'b' } } } });
    expect(inKey.body.message).toMatch(/^value\.customProperties\["a\\u0000"\] has a key that contains the character U\+0000/);
  });
});

describe('decoded inputs and bounds (item 4)', () => {
  test('a scrollId that decodes to text holding U+0000 is a 400', async () => {
    const res = await refused('GET', `${V3}/entity/test`, { query: { scrollId: 'dXJuOmxpOgA' } });
    expect(res.body.message).toBe('scrollId is not a valid cursor; pass the scrollId of the previous page unchanged');
  });

  test('a token expiresAt of 1e20 is a 400 naming it', async () => {
    const res = await refused('POST', `${V3}/tokens`, { body: '{"name": "far", "scope": "read", "expiresAt": 1e20}', contentType: 'application/json' });
    expect(res.body.message).toMatch(/^expiresAt is later than any date can be/);
  });
});

describe('nesting is bounded before anything parses it (issue #29, item 7)', () => {
  test('a 16 MB body of nested arrays is refused before it is parsed: a 400 naming the path', async () => {
    const levels = 8_000_000;
    // Not JSON at all past the limit: parsed first, it would be refused as malformed, so
    // the nesting message says the scan came first (and the time it saves is the
    // benchmark's to measure, not a test's on a shared machine).
    const res = await refused('POST', `${V3}/entity/dataset`, { body: `${'['.repeat(levels)}${']'.repeat(levels - 1)}x`, contentType: 'application/json' });
    expect(res.body.message).toMatch(/^request body(\[0\]){64} is nested deeper than the limit of 64 levels of arrays and objects; flatten the value$/);
  });

  test('the text scan names the same path as the walk: keys and indexes', async () => {
    const res = await refused('POST', aspectPath('globalTags'), { query: upsert, json: { value: { tags: [{ tag: 'urn:li:tag:a' }, { tag: nestedArrays(100) }] } } });
    expect(res.body.message).toMatch(/^value\.tags\[1\]\.tag(\[0\]){60} is nested deeper than the limit of 64 levels/);
  });

  test('a GraphQL document of 2,000 nested selection sets, under the token limit, is a 400 naming the limit, not a 500', async () => {
    const query = `{ ${'entity(urn: "u") { ... on Dataset { '.repeat(2000)}urn${' } }'.repeat(2000)} }`;
    const res = await http(url, 'POST', '/api/graphql', { json: { query } });
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatchObject({ message: expect.stringMatching(/deeper than the limit of 128 levels \(line 1, column \d+\)$/), extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } });
  });

  test('a GraphQL literal nested 3,000 levels is a 400, and brackets inside strings and comments do not count', async () => {
    const literal = await http(url, 'POST', '/api/graphql', { json: { query: `{ entity(urn: ${'['.repeat(3000)}"u"${']'.repeat(3000)}) { urn } }` } });
    expect(literal.status).toBe(400);
    const block = '"""';
    const query = `# ${'{'.repeat(500)}\n{ entity(urn: "${'{['.repeat(500)}") { urn } e: entity(urn: ${block}${'(\\"""'.repeat(200)}${block}) { urn } }`;
    const quoted = await http(url, 'POST', '/api/graphql', { json: { query } });
    // Past the gate: the resolvers answer (that these are not urns).
    expect(quoted.status).toBe(200);
    expect(quoted.body.errors.map((e: { extensions: { code: string } }) => e.extensions.code)).toEqual(['BAD_USER_INPUT', 'BAD_USER_INPUT']);
  });

  test('GraphQL variables sent in a GET query string are held to the same limit before they are parsed', async () => {
    const variables = `{"urn": ${'['.repeat(1000)}${']'.repeat(1000)}}`;
    const res = await http(url, 'GET', '/api/graphql', { query: { query: 'query q($urn: String!) { entity(urn: $urn) { urn } }', variables }, headers: { 'apollo-require-preflight': 'true' } });
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatchObject({ message: expect.stringMatching(/^variable \$urn(\[0\]){63} is nested deeper than the limit of 64 levels/), extensions: { code: 'BAD_USER_INPUT' } });
  });

  test("a metadata test definition's JSON text is held to the same limit before it is parsed", async () => {
    const json = `{"on": {"types": ["dataset"]}, "rules": ${'['.repeat(40_000)}${']'.repeat(40_000)}}`;
    const res = await refused('POST', `${V3}/entity/test/${enc('urn:li:test:deep')}/testInfo`, { query: upsert, json: { value: { name: 'n', category: 'c', definition: { type: 'JSON', json } } } });
    expect(res.body.message).toMatch(/^Invalid test definition: rules(\[0\]){63}: is nested deeper than the limit of 64 levels/);
  });
});

describe('errors in one bounded shape (item 10)', () => {
  test('a path that is not validly percent-encoded is {error, message}', async () => {
    const res = await fetch(`${url}${V3}/entity/dataset/%E0%A4%A`);
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body).toEqual({ error: 'Validation Error', message: expect.stringMatching(/is not validly percent-encoded/) });
  });

  test('a path segment over the length limit is 414 {error, message}, without echoing the segment', async () => {
    const res = await fetch(`${url}${V3}/entity/dataset/${'a'.repeat(5000)}`);
    expect(res.status).toBe(414);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({ error: 'URI Too Long', message: expect.any(String) });
    expect(text.length).toBeLessThan(500);
  });

  test('a 500 body has a message too, and an unknown route says where the routes are listed', async () => {
    const res = await http(url, 'DELETE', '/nowhere');
    expect(res.body).toEqual({ error: 'No endpoint DELETE /nowhere.', message: expect.stringContaining('/openapi/v3/api-docs') });
  });

  test('a small invalid write against a property with many long allowed values answers a small body', async () => {
    // As many values of 10,000 characters as the aspect size limit (512 KiB) lets one definition hold.
    const allowedValues = Array.from({ length: 50 }, (_, i) => ({ value: { string: `${i}`.padEnd(10_000, 'v') } }));
    await defineProperty(url, 'io.limits.wide', { valueType: 'urn:li:dataType:svc.string', allowedValues });
    const res = await http(url, 'POST', aspectPath('structuredProperties'), {
      query: upsert,
      json: { value: { properties: [{ propertyUrn: 'urn:li:structuredProperty:io.limits.wide', values: [{ string: 'no' }] }] } },
    });
    expect(res.status).toBe(400);
    expect(res.text.length).toBeLessThan(5000);
    expect(res.body.message).toMatch(/should be one of \[\{string=0v+… \(9800 more characters\)\}, .*, … \(40 more\)\]$/);
  });
});
