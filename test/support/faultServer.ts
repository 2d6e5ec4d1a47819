/**
 * Deployments for the fault suites, each run on both database setups a user meets:
 * - `external`: DATABASE_URL to a fresh database on the external PostgreSQL, and the
 *   Meilisearch globalSetup started, under an index prefix of the suite's own;
 * - `embedded`: the default `npm start` runs, no URLs at all: the server starts its own
 *   PostgreSQL and Meilisearch under a fresh DATA_DIR.
 * Either way without a rate limit (the suites send thousands of requests a minute), and
 * with leases of 5 s instead of 15 (LEASE_SECONDS): a killed replica's job or indexer is
 * taken over by the same code, sooner, so a scenario waits 5 s for it instead of 15.
 * The suite reads the database and the engine directly through what this gives it.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { embeddedDatabaseUrl, PASSWORD_FILE } from '../../src/embedded/postgresAuth.js';
import type { BuiltProcess } from './builtServer.js';
import { dropIndexes } from './indexedValues.js';
import { createTestDatabase } from './postgres.js';
import { postgresAvailableForTests, searchAvailableForTests, sharedMeilisearch } from './server.js';
import { partOfMatrix } from './testMatrix.js';
import { tempDir } from './tempDir.js';

export type FaultBackend = 'external' | 'embedded';

/** What every fault scenario's server runs with, beside its database and engine. */
const FAULT_SETTINGS = { RATE_LIMIT_PER_MINUTE: '10000000', LEASE_SECONDS: '5' };

/** The setups this machine has: the embedded default always (where the bundled engines exist), an external PostgreSQL when one is available. */
export function machineFaultBackends(): FaultBackend[] {
  if (!searchAvailableForTests()) return [];
  return postgresAvailableForTests() ? ['embedded', 'external'] : ['embedded'];
}

/** This run's setups for a fault suite (partOfMatrix of the machine's). */
export function faultBackends(turn = 0): FaultBackend[] {
  return partOfMatrix(machineFaultBackends(), turn);
}

/**
 * One test per setup, run side by side (each is mostly waiting, and they share nothing);
 * a skipped one when the machine has no setup.
 */
export function eachSideBySide(backends: readonly FaultBackend[]) {
  return backends.length > 0 ? test.concurrent.each([...backends]) : test.skip.each<FaultBackend>(['embedded']);
}

export interface MeiliAccess {
  readonly url: string;
  readonly key: string;
}

export interface FaultDeployment {
  readonly backend: FaultBackend;
  readonly env: Record<string, string>;
  readonly dataDir: string;
  /** The database the servers use, for reading it directly. */
  readonly databaseUrl: string;
  /** Index names start with this. */
  readonly indexPrefix: string;
  /** The Meilisearch the servers use (the bundled one's address is known once `server` has started it). */
  meili(server: BuiltProcess): MeiliAccess;
  /** The pid of the embedded PostgreSQL's postmaster (embedded only). */
  postmasterPid(): number;
  /** The pid of the bundled Meilisearch (embedded only). */
  meiliPid(): number;
  /** Stops the servers still running and whatever engine a killed server left behind, then removes what the suite made. */
  cleanup(servers: ReadonlyArray<BuiltProcess | undefined>): Promise<void>;
}

export async function faultDeployment(backend: FaultBackend, tag: string): Promise<FaultDeployment> {
  const dataDir = tempDir(`propgraph-${tag}-`);
  const indexPrefix = `${tag}_${process.pid}_`;
  const env: Record<string, string> = { DATA_DIR: dataDir, MEILI_INDEX_PREFIX: indexPrefix, ...FAULT_SETTINGS };
  let databaseUrl: string;
  if (backend === 'external') {
    const meili = sharedMeilisearch();
    databaseUrl = await createTestDatabase(process.env.PROPGRAPH_TEST_PG_URL!, `propgraph_${tag}_${process.pid}`);
    Object.assign(env, { DATABASE_URL: databaseUrl, MEILI_URL: meili.url, MEILI_API_KEY: meili.key });
  } else {
    // The cluster's password, put where the server looks for it before its first start, so the URL is known now.
    writeFileSync(path.join(dataDir, PASSWORD_FILE), `${randomBytes(24).toString('base64url')}\n`, { mode: 0o600 });
    databaseUrl = embeddedDatabaseUrl(dataDir);
  }
  const pidIn = (file: string) => {
    const pid = Number(readFileSync(path.join(dataDir, file), 'utf8').split('\n')[0]!.trim());
    // An empty pid file reads as 0, and kill(0) would hit the test's own process group.
    if (!Number.isInteger(pid) || pid <= 0) throw new Error(`${file} names no process`);
    return pid;
  };
  return {
    backend,
    env,
    dataDir,
    databaseUrl,
    indexPrefix,
    meili: (server) => {
      if (backend === 'external') return sharedMeilisearch();
      const started = server.output
        .join('')
        .split('\n')
        .map((line) => {
          try {
            return JSON.parse(line) as { msg?: string; url?: string };
          } catch {
            return undefined;
          }
        })
        .filter((e) => e?.msg === 'embedded Meilisearch started')
        .pop();
      if (!started?.url) throw new Error('the server has not started its Meilisearch');
      return { url: started.url, key: readFileSync(path.join(dataDir, 'meili', 'master-key'), 'utf8').trim() };
    },
    postmasterPid: () => pidIn('postgres/postmaster.pid'),
    meiliPid: () => pidIn('meili/meilisearch.pid'),
    cleanup: async (servers) => {
      for (const s of servers) {
        if (s && s.child.exitCode === null && s.child.signalCode === null) {
          s.child.kill('SIGTERM');
          await s.exited;
        }
      }
      if (backend === 'external') {
        await dropIndexes(sharedMeilisearch(), indexPrefix);
      } else {
        // A server killed last leaves its engines running.
        for (const file of ['postgres/postmaster.pid', 'meili/meilisearch.pid']) {
          if (!existsSync(path.join(dataDir, file))) continue;
          try {
            process.kill(pidIn(file), 'SIGKILL');
          } catch {
            // already gone, or no pid in the file
          }
        }
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Several replicas on one external database (the two-replica suite): each its own DATA_DIR. */
export function faultServerEnv(databaseUrl: string, prefix: string, dataDirTag: string): Record<string, string> {
  const meili = sharedMeilisearch();
  return {
    DATABASE_URL: databaseUrl,
    MEILI_URL: meili.url,
    MEILI_API_KEY: meili.key,
    MEILI_INDEX_PREFIX: prefix,
    ...FAULT_SETTINGS,
    DATA_DIR: tempDir(`propgraph-${dataDirTag}-`),
  };
}

/** Stops (SIGTERM) whichever of the servers still run, then drops the suite's indexes. */
export async function stopFaultServers(servers: ReadonlyArray<BuiltProcess | undefined>, prefix: string): Promise<void> {
  for (const s of servers) {
    if (s && s.child.exitCode === null && s.child.signalCode === null) {
      s.child.kill('SIGTERM');
      await s.exited;
    }
  }
  await dropIndexes(sharedMeilisearch(), prefix);
}
