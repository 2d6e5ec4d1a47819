/**
 * Crash (issue #9): 5,000 datasets, each written once with a known value by 32
 * concurrent REST clients; the server is SIGKILLed at a seeded random moment while
 * writes are in flight, restarted on the same database, and the writes it did not
 * acknowledge are retried until all 5,000 are. Then the database holds every value
 * exactly once (one entry, its property_value row agreeing, no second version) and,
 * once the indexer has caught up, search finds exactly those 5,000 with their values.
 * FAULT_SEED=<n> replays a run.
 */
import { buildOnce, startBuiltServer, type BuiltProcess } from '../support/builtServer.js';
import { datasetUrn, defineProperty, propertiesAspect, propertyUrn, V3 } from '../support/catalog.js';
import { holdersOf, indexedPairs, searchTotal } from '../support/indexedValues.js';
import { attempt, faultSeed, seededRandom, statusCounts, type Outcome } from '../support/load.js';
import { waitFor } from '../support/waitFor.js';
import { faultBackends, faultDeployment, type FaultDeployment } from '../support/faultServer.js';
import { pendingChanges, storageProblems, storedDatasets } from '../support/storedValues.js';
import { expectEvery } from '../support/nonEmpty.js';

const N = 5000;
const CLIENTS = 32;
const PROPERTY = 'crash.n';
const urnOf = (i: number) => datasetUrn(`crash.d${String(i).padStart(5, '0')}`);

describe.each(faultBackends())('SIGKILL under a load of 5,000 acknowledged writes, %s PostgreSQL', (backend) => {
  const seed = faultSeed();
  const report = (line: string) => console.log(`[crash, ${backend}] ${line}`);
  let deployment: FaultDeployment;
  let env: Record<string, string>;
  let databaseUrl: string;
  let server: (BuiltProcess & { url: string }) | undefined;

  beforeAll(async () => {
    await buildOnce();
    deployment = await faultDeployment(backend, `fcrash-${backend}`);
    ({ env, databaseUrl } = deployment);
  }, 180_000);

  afterAll(async () => {
    await deployment?.cleanup([server]);
  });

  test('every acknowledged write is stored exactly once and found by search after the indexer catches up', async () => {
    report(`seed ${seed} (FAULT_SEED=${seed} replays this run)`);
    const random = seededRandom(seed);
    // Somewhere between 10 % and 80 % of the load, never at its very start or end.
    const killAfter = Math.floor(N * (0.1 + 0.7 * random()));
    const killDelayMs = Math.floor(random() * 50);

    server = await startBuiltServer(env);
    await defineProperty(server.url, PROPERTY, { valueType: 'number', cardinality: 'SINGLE' });

    const unacknowledged = new Set(Array.from({ length: N }, (_, i) => i));
    const outcomes: Outcome[] = [];
    const write = (base: string, i: number) =>
      attempt(base, 'POST', `${V3}/entity/dataset`, {
        query: { async: 'true' },
        json: [{ urn: urnOf(i), status: { value: { removed: false } }, structuredProperties: { value: propertiesAspect({ [PROPERTY]: [i] }) } }],
      });

    // Phase 1: 32 clients until the queue is empty or the server is gone; the kill comes from the
    // client whose acknowledgement reaches `killAfter`.
    const inFlight = new Set<number>();
    let inFlightAtKill: number[] = [];
    let acknowledged = 0;
    let killed = false;
    const first = server;
    const queue = [...unacknowledged];
    const killAt = async () => {
      await new Promise((r) => setTimeout(r, killDelayMs));
      inFlightAtKill = [...inFlight];
      killed = true;
      first.child.kill('SIGKILL');
      await first.exited;
    };
    let killing: Promise<void> | undefined;
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        while (!killed) {
          const i = queue.shift();
          if (i === undefined) return;
          inFlight.add(i);
          const outcome = await write(first.url, i);
          inFlight.delete(i);
          outcomes.push(outcome);
          if (outcome.status === 200) {
            unacknowledged.delete(i);
            if (++acknowledged === killAfter) killing = killAt();
          }
        }
      }),
    );
    await killing;
    expect(killed).toBe(true);
    expect(inFlightAtKill.length).toBeGreaterThan(0);
    const phase1 = statusCounts(outcomes);
    // Before the kill every answer was a success; after it, no answer at all.
    expectEvery(outcomes, (o) => o.status === 200 || o.status === 0);
    report(`killed after ${killAfter} acknowledged writes (+${killDelayMs} ms) with ${inFlightAtKill.length} in flight; phase 1 outcomes ${JSON.stringify(phase1)}`);

    // Restart on the same database; some unacknowledged writes may have committed before the kill.
    const restartedAt = Date.now();
    server = await startBuiltServer(env);
    report(`restarted in ${Date.now() - restartedAt} ms`);
    const storedAtRestart = await storedDatasets(databaseUrl, 'urn:li:dataset:(urn:li:dataPlatform:hive,crash.%');
    const committedUnanswered = inFlightAtKill.filter((i) => unacknowledged.has(i) && storedAtRestart.has(urnOf(i))).length;
    report(`${unacknowledged.size} writes unacknowledged after the kill; of the ${inFlightAtKill.length} in flight, ${committedUnanswered} had committed without an answer`);

    // Phase 2: retry until every write is acknowledged.
    const retryStarted = Date.now();
    const retries: Outcome[] = [];
    for (let round = 0; unacknowledged.size > 0; round++) {
      expect(round).toBeLessThan(5);
      const pending = [...unacknowledged];
      await Promise.all(
        Array.from({ length: CLIENTS }, async () => {
          for (let i = pending.shift(); i !== undefined; i = pending.shift()) {
            const outcome = await write(server!.url, i);
            retries.push(outcome);
            if (outcome.status === 200) unacknowledged.delete(i);
          }
        }),
      );
    }
    report(`retries ${JSON.stringify(statusCounts(retries))} in ${Date.now() - retryStarted} ms`);
    expectEvery(retries, (o) => o.status === 200);

    // The database: every dataset exactly once with its value, row and aspect agreeing, no second version.
    const stored = await storedDatasets(databaseUrl, 'urn:li:dataset:(urn:li:dataPlatform:hive,crash.%');
    expect(stored.size).toBe(N);
    const wrong: string[] = [];
    for (let i = 0; i < N; i++) {
      const d = stored.get(urnOf(i));
      if (!d) {
        wrong.push(`${urnOf(i)} missing`);
        continue;
      }
      wrong.push(...storageProblems(d));
      const expected = [{ propertyUrn: propertyUrn(PROPERTY), values: [{ double: i }] }];
      if (JSON.stringify(d.entries) !== JSON.stringify(expected)) wrong.push(`${d.urn}: ${JSON.stringify(d.entries)}`);
      if (d.history !== 0) wrong.push(`${d.urn}: ${d.history} older versions`);
      if (!d.hasStatus) wrong.push(`${d.urn}: no status aspect (half-applied batch)`);
    }
    expect(wrong).toEqual([]);

    // Search: within a bounded wait, exactly those 5,000, each with its own value.
    const catchUpStarted = Date.now();
    await waitFor('the indexer to drain the change log', 120_000, async () => ((await pendingChanges(databaseUrl)) === 0 ? true : undefined), 500);
    const field = `structuredProperties.${PROPERTY}`;
    expect(await holdersOf(server.url, field)).toBe(N);
    report(`index caught up ${Date.now() - catchUpStarted} ms after the retries ended`);
    expect(await indexedPairs(server.url, field, Array.from({ length: N }, (_, i) => ({ urn: urnOf(i), value: String(i) })))).toBe(N);
    // Nothing else in the index: the suite's own indexes hold only these datasets.
    expect(await searchTotal(server.url)).toBe(N);
  }, 420_000);
});
