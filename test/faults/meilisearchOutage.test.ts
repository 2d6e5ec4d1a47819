/**
 * Meilisearch down for 30 s under write load (issue #9): clients keep writing (each
 * write waiting for the index, the default) before, during and after the outage. Every
 * write either succeeds or fails with a clear JSON error, none hangs past a bound, /health
 * says search is down during the outage and ok after, and once Meilisearch is back every
 * acknowledged write is searchable (with its latest value) within a bound.
 * Two setups, run side by side: an external Meilisearch stopped and started again, and the server's own
 * (embedded default) killed again and again for the whole outage, each time the server
 * restarts it, as a crash loop would.
 */
import { datasetUrn, defineProperty, propertiesAspect, searchRest, V3 } from '../support/catalog.js';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { startMeilisearch, type MeilisearchServer } from '../support/globalSetup.js';
import { holdersOf, indexedPairs } from '../support/indexedValues.js';
import { attempt, runClients, statusCounts, type Outcome } from '../support/load.js';
import { sleep, waitFor } from '../support/waitFor.js';
import { eachSideBySide, faultBackends, type FaultBackend } from '../support/faultServer.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { pendingChanges } from '../support/storedValues.js';

const CLIENTS = 8;
const DATASETS_PER_CLIENT = 25;
const OUTAGE_MS = 30_000;
/** No request may take longer: INDEX_WAIT_MS (5 s) plus a margin for a loaded machine. */
const REQUEST_BOUND_MS = 15_000;
/** Every acknowledged write is searchable this long after Meilisearch is back. */
const CONVERGENCE_BOUND_MS = 60_000;
const PROPERTY = 'mo.n';
/** Each client's pause after an acknowledged write. */
const WRITE_PAUSE_MS = 20;

/** Takes Meilisearch away (`begin`) and brings it back (`end`, resolving once it serves). */
interface Outage {
  begin(): Promise<void>;
  end(): Promise<void>;
}

/** Starts the setup's server and says how to take its Meilisearch away and back. */
async function deploy(setup: FaultBackend): Promise<{ server: TestServer; outage: Outage; stop(): Promise<void> }> {
  let meili: MeilisearchServer | undefined;
  let server: TestServer;
  let outage: Outage;
  if (setup === 'external') {
    let external = (meili = await startMeilisearch());
    server = await startTestServer({ backend: 'external', search: { url: external.url, key: external.masterKey }, env: { RATE_LIMIT_PER_MINUTE: '10000000' } });
    outage = {
      begin: () => external.stop(),
      end: async () => {
        external = meili = await startMeilisearch({ dataDir: external.dataDir, port: external.port, masterKey: external.masterKey });
      },
    };
  } else {
    server = await startTestServer({ backend: 'embedded', env: { MEILI_EMBEDDED: 'true', RATE_LIMIT_PER_MINUTE: '10000000' } });
    const pidFile = path.join(server.dataDir, 'meili', 'meilisearch.pid');
    const pid = () => Number(readFileSync(pidFile, 'utf8').trim());
    let crashing = false;
    let loop: Promise<void> | undefined;
    const running = server;
    outage = {
      // Killed whenever the server has started it again, for the whole outage.
      begin: async () => {
        crashing = true;
        loop = (async () => {
          while (crashing) {
            // An empty or half-written pid file reads as 0, and kill(0) would hit this very process group.
            const target = pid();
            if (Number.isInteger(target) && target > 0) {
              try {
                process.kill(target, 'SIGKILL');
              } catch {
                // between a death and its restart
              }
            }
            await sleep(20);
          }
        })();
      },
      end: async () => {
        crashing = false;
        await loop;
        await waitFor('the server to restart its Meilisearch', 60_000, async () => {
          const health = await attempt(running.url, 'GET', '/health');
          return health.status === 200 && health.body.search?.reachable === true ? true : undefined;
        }, 50);
      },
    };
  }
  return {
    server,
    outage,
    stop: async () => {
      await server.stop();
      await meili?.destroy();
    },
  };
}

// The setups run side by side: each is mostly 30 s of outage, and they share nothing.
describe('Meilisearch stopped for 30 s under write load', () => {
  eachSideBySide(faultBackends(1))('%s: writes succeed or fail clearly throughout, health reports the outage, every acknowledged write is searchable after it', async (setup) => {
    const report = (line: string) => console.log(`[meilisearch outage, ${setup}] ${line}`);
    const { server, outage, stop: stopDeployment } = await deploy(setup);
    try {
      await scenario(server, outage, report);
    } finally {
      await stopDeployment();
    }
  }, 360_000);
});

async function scenario(server: TestServer, outage: Outage, report: (line: string) => void): Promise<void> {
  const base = server.url;
  await defineProperty(base, PROPERTY, { valueType: 'number', cardinality: 'SINGLE' });

  const outcomes: Outcome[] = [];
  const latest = new Map<string, number>();
  let stop = false;
  let value = 0;
  // Each client owns its datasets and retries a write until it is acknowledged, so the last value of each is known.
  const client = async (c: number) => {
    for (let k = 0; !stop; k = (k + 1) % DATASETS_PER_CLIENT) {
      const urn = datasetUrn(`mo.c${c}.d${k}`);
      const v = value++;
      for (;;) {
        const o = await attempt(base, 'POST', `${V3}/entity/dataset`, {
          json: [{ urn, status: { value: { removed: false } }, structuredProperties: { value: propertiesAspect({ [PROPERTY]: [v] }) } }],
        }, REQUEST_BOUND_MS);
        outcomes.push(o);
        if (o.status === 200) break;
        await sleep(100);
      }
      latest.set(urn, v);
      // A steady load rather than a flood: the two setups run side by side on the machine.
      await sleep(WRITE_PAUSE_MS);
    }
  };

  const load = runClients(CLIENTS, client);
  await sleep(3_000);
  const stoppedAt = Date.now();
  await outage.begin();
  await sleep(OUTAGE_MS / 2);
  const healthDown = await attempt(base, 'GET', '/health');
  const searchDown = await searchRest(base, `structuredProperties.${PROPERTY.replace('.', '_')}:>=0`);
  await sleep(OUTAGE_MS / 2);
  const restartedAt = Date.now();
  await outage.end();
  const upAt = Date.now();
  report(`Meilisearch down ${restartedAt - stoppedAt} ms, up again after ${upAt - restartedAt} ms`);
  await sleep(5_000);
  stop = true;
  await load;

  // Every request answered within the bound; anything but success is a JSON error, never a bare 500.
  const during = outcomes.filter((o) => o.startedAt >= stoppedAt && o.startedAt < upAt);
  const slowest = Math.max(...outcomes.map((o) => o.ms));
  const sorted = during.map((o) => o.ms).sort((a, b) => a - b);
  report(`${outcomes.length} writes ${JSON.stringify(statusCounts(outcomes))}; during the outage ${during.length} ${JSON.stringify(statusCounts(during))}, p50 ${sorted[Math.floor(sorted.length / 2)]} ms, p99 ${sorted[Math.floor(sorted.length * 0.99)]} ms; slowest overall ${slowest} ms`);
  expect(outcomes.filter((o) => o.status === 0).map((o) => o.error)).toEqual([]);
  expect(slowest).toBeLessThan(REQUEST_BOUND_MS);
  const unclear = outcomes.filter((o) => o.status !== 200 && !(o.status >= 400 && typeof o.body?.error === 'string' && o.body.error !== 'Internal server error occurred'));
  expect(unclear.map((o) => `${o.status} ${o.text.slice(0, 200)}`)).toEqual([]);
  // Writes went on through the whole outage: some succeeded in each fifth of it.
  for (let slice = 0; slice < 5; slice++) {
    const from = stoppedAt + (slice * OUTAGE_MS) / 5;
    const to = stoppedAt + ((slice + 1) * OUTAGE_MS) / 5;
    expect(during.filter((o) => o.status === 200 && o.startedAt >= from && o.startedAt < to).length).toBeGreaterThan(0);
  }

  // Health and search during the outage: search down, clearly.
  expect(healthDown.status).toBe(503);
  expect(healthDown.body.search).toMatchObject({ ok: false, reachable: false });
  expect(healthDown.body.database).toMatchObject({ ok: true });
  expect(searchDown.status).toBe(503);
  expect(searchDown.body.error).toBe('Service Unavailable');

  // After the restart: every acknowledged write searchable with its latest value, within the bound.
  const pairs = [...latest].map(([urn, v]) => ({ urn, value: String(v) }));
  const field = `structuredProperties.${PROPERTY}`;
  await waitFor('the index to converge', CONVERGENCE_BOUND_MS - (Date.now() - upAt), async () =>
    (await pendingChanges(server.databaseUrl)) === 0 && (await holdersOf(base, field)) === pairs.length ? true : undefined,
  500);
  report(`index converged ${Date.now() - upAt} ms after Meilisearch was back (${pairs.length} datasets)`);
  expect(await indexedPairs(base, field, pairs)).toBe(pairs.length);
  const healthUp = await attempt(base, 'GET', '/health');
  expect(healthUp.status).toBe(200);
  expect(healthUp.body.search).toMatchObject({ ok: true, reachable: true });
}
