/**
 * Issue #26: DataHub's clients as people run them. The flows DataHub's own docs and
 * examples teach beyond issue #13's: patch builders (attribution-keyed and plain-list
 * forms), `datahub ingest` with its default run report, the SDK's search filters and the
 * OpenAPI read helpers. Each fixture in test/fixtures/datahub-client is replayed as the
 * client sends it (test/support/datahubReplay.ts), at `/` and under `/gms`, on both kinds
 * of database, with `URN_NAMESPACE=datahub` and with the default namespace (each of the
 * four once per CI run, half of them in `npm test`): these fixtures check nothing that
 * depends on the namespace.
 */
import { replaySummary, type FlowOutcome } from '../support/datahubReplay.js';
import { replayFlows, startReplayServer, unexpectedOutcomes } from '../support/replayServer.js';
import { postgresAvailableForTests, type Backend } from '../support/server.js';
import { pairsForHalves, partOfMatrix } from '../support/testMatrix.js';

const FLOWS = ['sdk-patch-builders', 'sdk-patch-builders-legacy', 'cli-ingest-report', 'sdk-search-filters', 'sdk-openapi-reads'] as const;

/**
 * Flows that do not pass yet, with the first thing each still needs. Each must still
 * fail, so one that starts passing turns the suite red until it is taken off.
 */
const pendingFlows: Readonly<Partial<Record<(typeof FLOWS)[number], string>>> = {};

const BASES = [
  { name: 'at /', prefix: undefined },
  { name: 'under /gms', prefix: '/gms' },
];

/** The namespace DataHub's clients need for properties get/list, and propgraph's default. */
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
  0,
);

/** Every flow at each base, in order, on one server per database and namespace; the setups run side by side (they share nothing, and mostly wait for their writes to be indexed). */
test.concurrent.each(SETUPS)('on the $backend PostgreSQL with $namespace: every client flow at / and under /gms', async ({ backend, namespace, env }) => {
  const server = await startReplayServer(env, backend);
  try {
    const runs = BASES.flatMap(({ prefix }) => FLOWS.map((flow) => ({ flow, prefix })));
    const setup = await replayFlows(server, runs, `${backend}, ${namespace}`);
    outcomes.push(...setup);
    expect(unexpectedOutcomes(setup, runs, pendingFlows)).toEqual({ failed: [], passedWhilePending: [] });
  } finally {
    await server.stop();
  }
}, 600_000);
