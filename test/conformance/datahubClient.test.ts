/**
 * Issue #13: DataHub's own client (the `datahub` CLI and its SDK, acryl-datahub) works
 * against propgraph unmodified. Each fixture in test/fixtures/datahub-client is one flow
 * of the client written down request by request; the replay sends them as the client
 * does and checks every answer as the client parses it (test/support/datahubReplay.ts).
 * Every flow runs at the server's root and again under `/gms`, as a client configured
 * with `http://host:8080/gms` sends it, on both kinds of database (one per run of the
 * test matrix, TEST_MATRIX).
 */
import { loadClientFixture, replaySummary, type FlowOutcome } from '../support/datahubReplay.js';
import { replayFlows, startReplayServer, unexpectedOutcomes } from '../support/replayServer.js';
import { postgresAvailableForTests, type Backend } from '../support/server.js';
import { partOfMatrix } from '../support/testMatrix.js';

const FLOWS = [
  'sdk-connection',
  'cli-properties-upsert',
  'cli-properties-get',
  'cli-properties-list',
  'cli-dataset-upsert',
  'cli-dataset-get',
  'cli-get',
  'cli-put',
  'cli-delete-soft',
  'cli-delete-hard',
  'sdk-graph-restli',
  'sdk-graph-search',
  'sdk-openapi-emit',
  'sdk-async-wait',
  'sdk-client-entities',
] as const;

/**
 * Flows that do not pass yet, with what they still need. Each must still fail, so one
 * that starts passing turns the suite red until it is taken off this list.
 */
const pendingFlows: Readonly<Partial<Record<(typeof FLOWS)[number], string>>> = {};

/** `sdk-connection` already replays its handshake under both bases. */
const BASES = [
  { name: 'at /', prefix: undefined, flows: FLOWS },
  { name: 'under /gms', prefix: '/gms', flows: FLOWS.filter((f) => f !== 'sdk-connection') },
];

/**
 * The embedded PostgreSQL (npm's, as `npm start` runs it) and, where the machine has
 * one, an external PostgreSQL (Debian's, as a deployment's DATABASE_URL reaches it):
 * one in `npm test`, the other in CI's Node 24 run (test/support/testMatrix.ts).
 */
const BACKENDS: Backend[] = partOfMatrix(postgresAvailableForTests() ? ['embedded', 'external'] : ['embedded']);
const outcomes: FlowOutcome[] = [];

afterAll(() => {
  console.log(`${replaySummary(outcomes)}\n${outcomes.filter((o) => o.failures.length > 0).map((o) => `  ${o.name}: ${o.failures[0]}`).join('\n')}`);
});

/** Every flow at each base, in order, on one server per database; the two run side by side (they share nothing, and mostly wait for their writes to be indexed). */
test.concurrent.each(BACKENDS)('on the %s PostgreSQL: every client flow at / and under /gms', async (backend) => {
  const envs = new Set(FLOWS.map((f) => JSON.stringify(loadClientFixture(f).server.env)));
  // One server per database: every flow is written for the same setup.
  if (envs.size !== 1) throw new Error(`the fixtures ask for different server setups (${[...envs].join(' / ')}); start one server per setup`);
  const server = await startReplayServer(loadClientFixture(FLOWS[0]).server.env, backend);
  try {
    const runs = BASES.flatMap(({ prefix, flows }) => flows.map((flow) => ({ flow, prefix })));
    const setup = await replayFlows(server, runs, backend);
    outcomes.push(...setup);
    expect(unexpectedOutcomes(setup, runs, pendingFlows)).toEqual({ failed: [], passedWhilePending: [] });
  } finally {
    await server.stop();
  }
}, 600_000);
