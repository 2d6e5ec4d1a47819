/**
 * Issue #42: the last three paths of DataHub's Python client that failed against propgraph
 * (test/fixtures/datahub-client/sdk-structured-property-paths.json): a patch setting a
 * structured property under the same attribution source twice, an SDK-mode emit of values
 * on an entity nothing has created (DataHub's batch create is an upsert), and a value of an
 * undefined property beside a defined one, dropped with a warning under
 * DROP_UNDEFINED_PROPERTY_VALUES=true (DataHub's dropMissingPropertyValuesWithWarning).
 * Replayed as the client sends it, at `/` and under `/gms`, on both kinds of database and
 * in both URN namespaces (each of the four once per CI run, half of them in `npm test`).
 */
import { loadClientFixture, replaySummary, type FlowOutcome } from '../support/datahubReplay.js';
import { replayFlows, startReplayServer, unexpectedOutcomes } from '../support/replayServer.js';
import { postgresAvailableForTests, type Backend } from '../support/server.js';
import { pairsForHalves, partOfMatrix } from '../support/testMatrix.js';

const FLOW = 'sdk-structured-property-paths';
const fixture = loadClientFixture(FLOW);
const BASES = [undefined, '/gms'];
const NAMESPACES = [
  { name: 'URN_NAMESPACE=datahub', env: { URN_NAMESPACE: 'datahub' } as Record<string, string> },
  { name: 'the default namespace', env: {} as Record<string, string> },
];
const BACKENDS: Backend[] = postgresAvailableForTests() ? ['embedded', 'external'] : ['embedded'];
const outcomes: FlowOutcome[] = [];

afterAll(() => {
  console.log(`${replaySummary(outcomes)}\n${outcomes.filter((o) => o.failures.length > 0).map((o) => `  ${o.name}: ${o.failures[0]}`).join('\n')}`);
});

/**
 * Each database with each namespace, half of them per run of the test matrix
 * (TEST_MATRIX, test/support/testMatrix.ts), each half with both databases and both
 * namespaces.
 */
const SETUPS = partOfMatrix(
  pairsForHalves(BACKENDS, NAMESPACES).map(([backend, namespace]) => ({ backend, namespace: namespace.name, env: namespace.env })),
  1,
);

test('the fixture runs the server as DataHub runs by default: values of undefined properties dropped', () => {
  expect(fixture.server.env).toMatchObject({ DROP_UNDEFINED_PROPERTY_VALUES: 'true' });
});

test.concurrent.each(SETUPS)('on the $backend PostgreSQL with $namespace: the three paths at / and under /gms', async ({ backend, namespace, env }) => {
  const server = await startReplayServer({ ...env, DROP_UNDEFINED_PROPERTY_VALUES: fixture.server.env.DROP_UNDEFINED_PROPERTY_VALUES! }, backend);
  try {
    const runs = BASES.map((prefix) => ({ flow: FLOW, prefix }));
    const setup = await replayFlows(server, runs, `${backend}, ${namespace}`);
    outcomes.push(...setup);
    expect(unexpectedOutcomes(setup, runs, {})).toEqual({ failed: [], passedWhilePending: [] });
  } finally {
    await server.stop();
  }
}, 600_000);
