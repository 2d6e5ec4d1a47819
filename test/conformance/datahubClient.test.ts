/**
 * Issue #13: DataHub's own client (the `datahub` CLI and its SDK, acryl-datahub) works
 * against propgraph unmodified. Each fixture in test/fixtures/datahub-client is one flow
 * of the client written down request by request; the replay sends them as the client
 * does and checks every answer as the client parses it (test/support/datahubReplay.ts).
 * Every flow runs at the server's root and again under `/gms`, as a client configured
 * with `http://host:8080/gms` sends it, on both kinds of database.
 */
import { loadClientFixture, replayFlow, replaySummary, urnsOfFlow, type FlowOutcome } from '../support/datahubReplay.js';
import { deleteUrns, startReplayServer, type ReplayServer } from '../support/replayServer.js';
import { postgresAvailableForTests, type Backend } from '../support/server.js';

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
 * Flows that do not pass yet, with what they still need. They run as `test.failing`,
 * so one that starts passing turns the suite red until it is taken off this list.
 */
const pendingFlows: Readonly<Partial<Record<(typeof FLOWS)[number], string>>> = {};

/** `sdk-connection` already replays its handshake under both bases. */
const BASES = [
  { name: 'at /', prefix: undefined, flows: FLOWS },
  { name: 'under /gms', prefix: '/gms', flows: FLOWS.filter((f) => f !== 'sdk-connection') },
];

/**
 * The embedded PostgreSQL (npm's, as `npm start` runs it) and, where the machine has
 * one, an external PostgreSQL (Debian's, as a deployment's DATABASE_URL reaches it).
 */
const BACKENDS: Backend[] = postgresAvailableForTests() ? ['embedded', 'external'] : ['embedded'];
const outcomes: FlowOutcome[] = [];

afterAll(() => {
  console.log(`${replaySummary(outcomes)}\n${outcomes.filter((o) => o.failures.length > 0).map((o) => `  ${o.name}: ${o.failures[0]}`).join('\n')}`);
});

describe.each(BACKENDS)('on the %s PostgreSQL', (backend) => {
  let server: ReplayServer;

  beforeAll(async () => {
    const envs = new Set(FLOWS.map((f) => JSON.stringify(loadClientFixture(f).server.env)));
    // One server per database: every flow is written for the same setup.
    if (envs.size !== 1) throw new Error(`the fixtures ask for different server setups (${[...envs].join(' / ')}); start one server per setup`);
    server = await startReplayServer(loadClientFixture(FLOWS[0]).server.env, backend);
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
  });

  describe.each(BASES)('DataHub client flows $name', ({ prefix, flows }) => {
    for (const name of flows) {
      const pending = pendingFlows[name];
      const run = pending ? test.failing : test;
      run(`${name}${pending ? ` (pending: ${pending})` : ''}`, async () => {
        const fixture = loadClientFixture(name);
        const outcome = await replayFlow(server.url, fixture, { token: server.token, ...(prefix ? { prefix } : {}) });
        outcomes.push({ ...outcome, name: `${name}${prefix ?? ''} (${backend})` });
        // A flow stopped midway leaves its entities; the next flow uses the same urns.
        if (outcome.failures.length > 0) await deleteUrns(server, urnsOfFlow(fixture));
        if (outcome.optionalFailures.length > 0) console.log(`${name}: optional steps failed (ignored as the client ignores them):\n  ${outcome.optionalFailures.join('\n  ')}`);
        expect(outcome.failures).toEqual([]);
      }, 300_000);
    }
  });
});
