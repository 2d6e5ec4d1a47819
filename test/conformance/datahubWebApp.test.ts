/**
 * Issue #42: DataHub's own web app on propgraph. The 30 GraphQL operations its shell, its
 * structured-properties page, its search page and a dataset's profile send
 * (test/fixtures/datahub-webapp/operations.json, extracted from the app's source with every
 * fragment, as Apollo Client posts them) must pass propgraph's document limits, validate
 * against schema.graphql, take the pages' variables (pages.json) and, run in the pages'
 * order at the app's endpoint on a real server, answer without errors the shape the UI
 * reads, on data written through DataHub's own client, in both URN namespaces.
 */
import { isObjectType } from 'graphql';
import { documentLimitError } from '../../src/graphql/documentGate.js';
import { checkProblem, select, sendRaw } from '../support/datahubReplay.js';
import { startReplayServer, type ReplayServer } from '../support/replayServer.js';
import { indexCaughtUp } from '../support/http.js';
import { apolloBody, documentProblems, loadWebAppOperations, loadWebAppPages, subgraphSchema, variableProblems, withValues } from '../support/webAppOperations.js';
import { nonEmpty } from '../support/nonEmpty.js';

const operations = loadWebAppOperations();
const pages = loadWebAppPages();
const schema = subgraphSchema();
const someUser = { user: 'urn:li:corpuser:someone', view: 'urn:li:dataHubView:some', globalView: 'urn:li:dataHubView:other' };
const operationNamed = (name: string) => operations.operations.find((o) => o.name === name)!;

const problemsLog: string[] = [];
afterAll(() => {
  if (problemsLog.length > 0) console.log(`DataHub web app against propgraph:\n${problemsLog.join('\n')}`);
});

describe("the web app's documents", () => {
  test("the four pages send 30 operations, and operations.json holds each of them (and those of the view builder and the shell's extras), from the app source it names", () => {
    const fourPages = new Set(['shell', 'structuredProperties', 'search', 'datasetProfile']);
    expect([...new Set(pages.sequence.filter((r) => fourPages.has(r.page)).map((r) => r.operation))]).toHaveLength(30);
    const sent = [...new Set(pages.sequence.map((r) => r.operation))].sort();
    expect(operations.operations.map((o) => o.name).sort()).toEqual(sent);
    expect(operations.source.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(new Set(pages.sequence.map((r) => r.page))).toEqual(new Set([...fourPages, 'views', 'alsoSent']));
  });

  for (const op of nonEmpty(operations.operations)) {
    test(`${op.name} is within propgraph's document limits as Apollo Client sends it`, () => {
      const problem = documentLimitError(op.document, undefined, (name) => isObjectType(schema.getType(name)))?.message;
      if (problem) problemsLog.push(`  ${op.name} limits: ${problem}`);
      expect(problem).toBeUndefined();
    });

    test(`${op.name} validates against schema.graphql`, () => {
      const problems = documentProblems(schema, op.document);
      if (problems.length > 0) problemsLog.push(`  ${op.name}: ${problems.join('; ')}`);
      expect(problems).toEqual([]);
    });
  }

  for (const request of nonEmpty(pages.sequence)) {
    test(`${request.page} ${request.id}: the page's variables fit the input types`, () => {
      const problems = variableProblems(schema, operationNamed(request.operation).document, withValues(request.variables, someUser));
      if (problems.length > 0) problemsLog.push(`  ${request.id} variables: ${problems.join('; ')}`);
      expect(problems).toEqual([]);
    });
  }
});

describe.each([
  { name: 'URN_NAMESPACE=datahub', env: { URN_NAMESPACE: 'datahub' } as Record<string, string> },
  { name: 'the default namespace', env: {} as Record<string, string> },
])('the pages on a real server, with $name', ({ name: namespace, env }) => {
  let server: ReplayServer;
  /** `${user}`, and what earlier answers gave (the urn of a view the page created). */
  const values: Record<string, string> = {};

  beforeAll(async () => {
    server = await startReplayServer(env);
    // The data the pages show, written as DataHub's Python SDK emits it.
    const res = await sendRaw(server.url, 'POST', '/aspects?action=ingestProposalBatch', restli(server), JSON.stringify({ proposals: pages.setup.proposals.map(restliProposal), async: 'false' }));
    if (res.status !== 200) throw new Error(`setting up: ${res.status} ${res.text}`);
    await indexCaughtUp(server.url, undefined, `Bearer ${server.token}`);
    const me = await sendRaw(server.url, 'POST', '/api/v2/graphql', json(server), JSON.stringify({ query: '{ me { corpUser { urn } } }' }));
    values.user = (JSON.parse(me.text) as { data: { me: { corpUser: { urn: string } } } }).data.me.corpUser.urn;
  }, 180_000);

  afterAll(async () => {
    for (const urn of [pages.setup.dataset, pages.setup.property]) {
      await sendRaw(server.url, 'DELETE', `/openapi/v3/entity/${urn.split(':')[2]}/${encodeURIComponent(urn)}`, json(server), null).catch(() => undefined);
    }
    await server?.stop();
  });

  for (const request of nonEmpty(pages.sequence)) {
    test(`${request.page} ${request.id}: ${request.operation} answers what the page reads`, async () => {
      const res = await sendRaw(server.url, 'POST', '/api/v2/graphql', json(server), apolloBody(operationNamed(request.operation), withValues(request.variables, values)));
      // A mutation answered before the index caught up says so (X-Index-Status: pending, docs/contract.md §12);
      // the page's next search would show it a moment later, so the next request waits for the index, not for time.
      if (res.headers['x-index-status'] === 'pending') await indexCaughtUp(server.url, undefined, `Bearer ${server.token}`);
      const body = (() => {
        try {
          return JSON.parse(res.text) as unknown;
        } catch {
          return undefined;
        }
      })();
      const problems = [
        ...(request.expect.status.includes(res.status) ? [] : [`status ${res.status}`]),
        ...withValues(request.expect.checks, values).map((c) => checkProblem(body, c)).filter((p): p is string => p !== undefined),
      ];
      if (request.capture) {
        const [captured] = select(body, request.capture.path);
        if (typeof captured === 'string') values[request.capture.name] = captured;
      }
      if (problems.length > 0) problemsLog.push(`  ${request.id} (${namespace}): ${problems.join('; ')}; answer ${res.text.slice(0, 600)}`);
      expect(problems).toEqual([]);
    }, 60_000);
  }
});

function json(server: ReplayServer): Record<string, string> {
  return { 'Content-Type': 'application/json', Accept: '*/*', Authorization: `Bearer ${server.token}` };
}

function restli(server: ReplayServer): Record<string, string> {
  return { ...json(server), 'X-RestLi-Protocol-Version': '2.0.0', 'X-DataHub-Client-Mode': 'SDK' };
}

/** A proposal as the SDK sends it: the aspect as JSON text. */
function restliProposal(p: (typeof pages.setup.proposals)[number]) {
  return { ...p, aspect: { value: JSON.stringify(p.aspect), contentType: 'application/json' } };
}
