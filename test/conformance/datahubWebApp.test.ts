/**
 * Issue #26: DataHub's web app works against propgraph. The nine GraphQL operations its
 * structured-property pages send (test/fixtures/datahub-webapp/operations.json, as Apollo
 * Client sends them) must validate against schema.graphql, the UI's variables must fit
 * the input types, and the operations must run on a real server in the order the UI
 * uses them.
 */
import { checkProblem, sendRaw } from '../support/datahubReplay.js';
import { startReplayServer, type ReplayServer } from '../support/replayServer.js';
import { indexCaughtUp } from '../support/http.js';
import {
  apolloBody,
  documentProblems,
  loadWebAppFixture,
  missingFields,
  missingUses,
  subgraphSchema,
  variableProblems,
} from '../support/webAppOperations.js';
import { nonEmpty } from '../support/nonEmpty.js';

const fixture = loadWebAppFixture();
const schema = subgraphSchema();

/**
 * What does not hold yet, with the first thing each still needs; run as `test.failing`
 * so that one that starts to hold turns the suite red until it is taken off.
 */
const pending: Readonly<Record<string, string>> = {};

const problemsLog: string[] = [];
afterAll(() => {
  if (problemsLog.length > 0) console.log(`DataHub web app against schema.graphql:\n${problemsLog.join('\n')}`);
});

/** `test`, or `test.failing` with the reason in its title while the behaviour is pending. */
const run = (name: string) => {
  const reason = pending[name];
  return reason === undefined ? test : (title: string, fn: () => unknown, timeout?: number) => test.failing(`${title} (pending: ${reason})`, fn as never, timeout);
};

describe('the web app documents against schema.graphql', () => {
  for (const op of nonEmpty(fixture.operations)) {
    run(`${op.name} validates`)(`${op.name} validates`, () => {
      const problems = documentProblems(schema, op.document);
      if (problems.length > 0) problemsLog.push(`  ${op.name}: ${problems.join('; ')}`);
      expect(problems).toEqual([]);
    });
  }

  for (const request of nonEmpty(fixture.sequence)) {
    const name = `${request.id}: the UI's variables fit the input types`;
    run(name)(name, () => {
      const op = fixture.operations.find((o) => o.name === request.operation)!;
      const problems = variableProblems(schema, op.document, request.variables);
      if (problems.length > 0) problemsLog.push(`  ${request.id} variables: ${problems.join('; ')}`);
      expect(problems).toEqual([]);
    });
  }

  run('every type, field, argument, input field and enum value the operations use is in the schema')(
    'every type, field, argument, input field and enum value the operations use is in the schema',
    () => {
      const missing = missingUses(schema, fixture.schemaUses);
      if (missing.length > 0) problemsLog.push(`  missing from schema.graphql: ${missing.join(', ')}`);
      expect(missing).toEqual([]);
    },
  );

  run('the fields issue #26 names beyond the documents are in the schema')('the fields issue #26 names beyond the documents are in the schema', () => {
    const missing = missingFields(schema, fixture.issueListedFields.map((f) => f.field));
    if (missing.length > 0) problemsLog.push(`  issue-listed fields missing: ${missing.join(', ')}`);
    expect(missing).toEqual([]);
  });
});

describe.each([
  { name: 'URN_NAMESPACE=datahub', env: { URN_NAMESPACE: 'datahub' } as Record<string, string> },
  { name: 'the default namespace', env: {} as Record<string, string> },
])('the web app operations on a real server, with $name', ({ name: namespace, env }) => {
  let server: ReplayServer;
  const dataset = fixture.setup.dataset;

  beforeAll(async () => {
    server = await startReplayServer(env);
    // The asset the UI puts values on exists before the page is opened.
    const res = await sendRaw(server.url, 'POST', '/openapi/v3/entity/dataset?async=false', json(server), JSON.stringify([{ urn: dataset, status: { value: { removed: false } } }]));
    if (res.status !== 200) throw new Error(`setting up ${dataset}: ${res.status} ${res.text}`);
  }, 120_000);

  afterAll(async () => {
    for (const urn of [dataset, 'urn:li:structuredProperty:io.acryl.webapp.tier']) {
      await sendRaw(server.url, 'DELETE', `/openapi/v3/entity/${urn.split(':')[2]}/${encodeURIComponent(urn)}`, json(server), null).catch(() => undefined);
    }
    await server?.stop();
  });

  for (const request of nonEmpty(fixture.sequence)) {
    const name = `${request.id} runs with the UI's variables`;
    run(name)(name, async () => {
      const op = fixture.operations.find((o) => o.name === request.operation)!;
      const res = await sendRaw(server.url, 'POST', '/api/graphql', json(server), apolloBody(op, request.variables));
      // A mutation answered before the index caught up says so (X-Index-Status: pending, docs/contract.md §12);
      // the UI's next search would show it a moment later, so the next step waits for the index, not for time.
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
        ...request.expect.checks.map((c) => checkProblem(body, c)).filter((p): p is string => p !== undefined),
      ];
      if (problems.length > 0) problemsLog.push(`  ${request.id} (${namespace}): ${problems.join('; ')}; answer ${res.text.slice(0, 400)}`);
      expect(problems).toEqual([]);
    }, 60_000);
  }
});

function json(server: ReplayServer): Record<string, string> {
  return { 'Content-Type': 'application/json', Accept: '*/*', Authorization: `Bearer ${server.token}` };
}
