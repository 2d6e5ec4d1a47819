/**
 * Concurrency (issue #9): 64 clients patch overlapping properties of the same 10
 * datasets at once. Each (dataset, property) pair belongs to one client, and pairs are
 * dealt so that every dataset is patched by 20 clients at the same time; every client
 * patches its pairs (JSON-patch `add` keyed by arrayPrimaryKeys) for several rounds. No
 * update is lost: every pair ends with its client's last value, nothing is missing or
 * doubled, and every patch is one version of the aspect.
 */
import { createDatasets, datasetUrnOf, defineProperty, getProperties, propertyUrn, V3 } from '../support/fixtures.js';
import { enc } from '../support/http.js';
import { attempt, runClients, statusCounts, type Outcome } from '../support/load.js';
import { postgresAvailableForTests, startTestServer, type TestServer } from '../support/server.js';
import { storageProblems, storedDatasets } from '../support/storedValues.js';
import { nonEmpty } from '../support/nonEmpty.js';

const CLIENTS = 64;
const DATASETS = 10;
const PROPERTIES = 20;
const ROUNDS = 5;
const report = (line: string) => console.log(`[concurrent patches] ${line}`);

const datasetOf = (pair: number) => datasetUrnOf(`cc.d${pair % DATASETS}`);
const propertyOf = (pair: number) => propertyUrn(`cc.p${Math.floor(pair / DATASETS)}`);
/** Pair p belongs to client p mod 64: a client's pairs lie on different datasets. */
const pairsOf = (client: number) => Array.from({ length: DATASETS * PROPERTIES }, (_, p) => p).filter((p) => p % CLIENTS === client);
const valueOf = (client: number, round: number) => `client${client}-round${round}`;

(postgresAvailableForTests() ? describe : describe.skip)('64 clients patching the same 10 datasets', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ backend: 'external', env: { RATE_LIMIT_PER_MINUTE: '10000000', DATABASE_POOL_SIZE: '20' } });
    for (let j = 0; j < PROPERTIES; j++) await defineProperty(server.url, `cc.p${j}`, { valueType: 'urn:li:dataType:svc.string', cardinality: 'SINGLE' });
    await createDatasets(server.url, Array.from({ length: DATASETS }, (_, d) => datasetUrnOf(`cc.d${d}`)));
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
  });

  test('no update is lost: every pair holds its client last value, every patch is one version', async () => {
    const outcomes: Outcome[] = [];
    let inFlight = 0;
    let mostInFlight = 0;
    const started = Date.now();
    await runClients(CLIENTS, async (client) => {
      for (let round = 0; round < ROUNDS; round++) {
        for (const pair of pairsOf(client)) {
          const property = propertyOf(pair);
          inFlight++;
          mostInFlight = Math.max(mostInFlight, inFlight);
          const o = await attempt(server.url, 'PATCH', `${V3}/entity/dataset/${enc(datasetOf(pair))}/structuredProperties`, {
            json: {
              patch: [{ op: 'add', path: `/properties/${property}`, value: { propertyUrn: property, values: [{ string: valueOf(client, round) }] } }],
              arrayPrimaryKeys: { properties: ['propertyUrn'] },
            },
          });
          inFlight--;
          outcomes.push(o);
        }
      }
    });
    report(`${outcomes.length} patches in ${Date.now() - started} ms, at most ${mostInFlight} in flight: ${JSON.stringify(statusCounts(outcomes))}`);
    expect(outcomes.filter((o) => o.status !== 200).map((o) => `${o.status} ${o.text.slice(0, 200)}`)).toEqual([]);
    expect(outcomes).toHaveLength(DATASETS * PROPERTIES * ROUNDS);

    // What readers see: each pair holds the last value its client wrote.
    const expected = new Map<string, Map<string, string>>();
    for (let pair = 0; pair < DATASETS * PROPERTIES; pair++) {
      const byProperty = expected.get(datasetOf(pair)) ?? new Map<string, string>();
      byProperty.set(propertyOf(pair), valueOf(pair % CLIENTS, ROUNDS - 1));
      expected.set(datasetOf(pair), byProperty);
    }
    for (const [urn, byProperty] of nonEmpty(expected)) {
      const res = await getProperties(server.url, urn);
      expect(res.status).toBe(200);
      const seen = new Map((res.body.structuredProperties.value.properties as Array<{ propertyUrn: string; values: Array<{ string: string }> }>).map((p) => [p.propertyUrn, p.values.map((v) => v.string)]));
      expect(seen).toEqual(new Map([...byProperty].map(([p, v]) => [p, [v]])));
    }

    // What is stored: the same, one entry and one agreeing row per pair, and one aspect version per patch.
    const stored = await storedDatasets(server.config.databaseUrl!, 'urn:li:dataset:(urn:li:dataPlatform:hive,cc.d%');
    expect(stored.size).toBe(DATASETS);
    for (const d of nonEmpty(stored.values())) {
      expect(storageProblems(d)).toEqual([]);
      expect(d.entries).toHaveLength(PROPERTIES);
      expect(new Map(d.entries!.map((e) => [e.propertyUrn, (e.values as Array<{ string: string }>).map((v) => v.string)]))).toEqual(
        new Map([...expected.get(d.urn)!].map(([p, v]) => [p, [v]])),
      );
      // 20 pairs x 5 rounds, each changing the value: the latest version plus 99 older ones.
      expect(d.history + 1).toBe(PROPERTIES * ROUNDS);
    }
  }, 180_000);
});
