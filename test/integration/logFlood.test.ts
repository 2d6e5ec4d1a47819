/**
 * Issue #29, item 2: no client input produces more than a bounded number of log lines.
 * `_entities` naming a type that is not an entity (`Query`, `_Service`, `Nope`) is a
 * user error, answered BAD_USER_INPUT and not logged; whatever unexpected errors a
 * GraphQL request ends in are logged in one line; metadata tests failing their bounds
 * on a whole batch of entities are logged in one line. The lines are counted as the
 * server's logger writes them, beside each request's one access line.
 */
import { http } from '../support/http.js';
import { keptLines, linesDuring, type LogLine } from '../support/logLines.js';
import { startTestServer, type TestServer } from '../support/server.js';

const ROOT = 'log-root-secret';
const auth = { authorization: `Bearer ${ROOT}` };
const D = 'urn:li:dataset:(urn:li:dataPlatform:hive,logs.orders,PROD)';
const kept = keptLines();
/** What a request logged besides its access line. */
const beyondAccess = (lines: readonly LogLine[]) => lines.filter((l) => l.access === undefined);
let server: TestServer;

const entities = (representations: unknown[]) =>
  http(server.url, 'POST', '/api/graphql', { headers: auth, json: { query: 'query q($r: [_Any!]!) { _entities(representations: $r) { ... on Dataset { urn } } }', variables: { r: representations } } });

beforeAll(async () => {
  // Without continuous evaluation: only the request's own lines are counted, and the tests
  // below that exceed their bounds on every entity would keep the evaluator and its job busy
  // (and the server's stop waiting for them) for most of a minute.
  server = await startTestServer({ logDestination: kept.destination, env: { AUTH_ENABLED: 'true', ROOT_TOKEN: ROOT, LOG_LEVEL: 'info', LOG_FORMAT: 'json', TEST_EVALUATION: 'false' } });
  expect((await http(server.url, 'POST', '/openapi/v3/entity/dataset', { headers: auth, json: [{ urn: D, datasetProperties: { value: { description: `${'a'.repeat(40)}!` } } }] })).status).toBe(200);
}, 120_000);
afterAll(async () => {
  await server?.stop();
});

describe('_entities naming a type that is not an entity', () => {
  test.each(['Query', '_Service', 'Nope', 'Entity', 'Mutation'])('%s, 1,000 times: a 400 BAD_USER_INPUT naming it and the entity types, and no log line but its access line', async (typename) => {
    let res: Awaited<ReturnType<typeof entities>> | undefined;
    const lines = await linesDuring(kept.lines, async () => {
      res = await entities(Array.from({ length: 1000 }, () => ({ __typename: typename, urn: D })));
    });
    expect(res!.status).toBe(400);
    expect(res!.body.errors).toHaveLength(1);
    expect(res!.body.errors[0]).toMatchObject({
      message: expect.stringMatching(new RegExp(`^representations\\[0\\]\\.__typename ${JSON.stringify(typename)} is not an entity type of this subgraph \\(1000 of the 1000 representations cannot be resolved\\); entity types: Dataset, StructuredPropertyEntity, Test$`)),
      extensions: { code: 'BAD_USER_INPUT' },
    });
    expect(beyondAccess(lines)).toEqual([]);
  });

  test('an entity among them does not make it pass; representations written inline are checked too', async () => {
    const mixed = await entities([{ __typename: 'Dataset', urn: D }, { __typename: 'Query' }]);
    expect(mixed.status).toBe(400);
    expect(mixed.body.errors[0].message).toMatch(/^representations\[1\]\.__typename "Query" is not an entity type/);
    const inline = await http(server.url, 'POST', '/api/graphql', { headers: auth, json: { query: `{ _entities(representations: [{__typename: "Dataset", urn: "${D.replace(/"/g, '\\"')}"}, {__typename: "_Service"}]) { __typename } }` } });
    expect(inline.status).toBe(400);
    expect(inline.body.errors[0].message).toMatch(/^representations\[1\]\.__typename "_Service" is not an entity type/);
  });

  test('representations of entities are still resolved', async () => {
    const res = await entities([{ __typename: 'Dataset', urn: D }]);
    expect(res.body).toEqual({ data: { _entities: [{ urn: D }] } });
  });
});

describe('one line at most per request', () => {
  test('representations of any shape, 1,000 of them: never more than one log line for the request', async () => {
    for (const representation of [{ __typename: 'Dataset' }, { __typename: 'Dataset', urn: 5 }, { __typename: 'Dataset', urn: 'not a urn' }, { __typename: 5 }, {}, 'x', null, [1]]) {
      let status = 0;
      const lines: LogLine[] = await linesDuring(kept.lines, async () => {
        status = (await entities(Array.from({ length: 1000 }, () => representation))).status;
      });
      expect(beyondAccess(lines).length).toBeLessThanOrEqual(1);
      expect(status).toBeLessThan(500);
    }
  });

  test('metadata tests failing their bounds on every entity of a batch evaluation: one log line for the request', async () => {
    const test = (name: string) => ({ urn: `urn:li:test:logs-${name}`, testInfo: { value: { name, category: 'c', definition: { type: 'JSON', json: JSON.stringify({ on: { types: ['dataset'] }, rules: [{ property: 'datasetProperties.description', operator: 'regex_match', values: ['^(a+)+$'] }] }) } } } });
    expect((await http(server.url, 'POST', '/openapi/v3/entity/test', { headers: auth, json: [test('redos-1'), test('redos-2'), test('redos-3')] })).status).toBe(200);
    const urns = Array.from({ length: 20 }, (_, i) => `urn:li:dataset:(urn:li:dataPlatform:hive,logs.t${i},PROD)`);
    expect((await http(server.url, 'POST', '/openapi/v3/entity/dataset', { headers: auth, json: urns.map((urn) => ({ urn, datasetProperties: { value: { description: `${'a'.repeat(40)}!` } } })) })).status).toBe(200);
    let res: Awaited<ReturnType<typeof http>> | undefined;
    const lines = await linesDuring(kept.lines, async () => {
      res = await http(server.url, 'POST', '/gms/test', { headers: auth, query: { action: 'batchEvaluate' }, json: { urns } });
    });
    expect(res!.status).toBe(200);
    expect(beyondAccess(lines)).toHaveLength(1);
    expect(beyondAccess(lines)[0]).toMatchObject({ level: 40, msg: 'metadata tests failed: they exceeded their bounds', exceeded: 60 });
  });
});
