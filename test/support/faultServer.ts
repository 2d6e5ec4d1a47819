/**
 * Built servers for the fault suites: on a PostgreSQL database and the Meilisearch
 * globalSetup started, under an index prefix of the suite's own, without a rate limit
 * (the suites send thousands of requests a minute), each with a fresh DATA_DIR.
 */
import type { BuiltProcess } from './builtServer.js';
import { tempDir } from './tempDir.js';
import { dropIndexes } from './indexedValues.js';
import { sharedMeilisearch } from './server.js';

export function faultServerEnv(databaseUrl: string, prefix: string, dataDirTag: string): Record<string, string> {
  const meili = sharedMeilisearch();
  return {
    DATABASE_URL: databaseUrl,
    MEILI_URL: meili.url,
    MEILI_API_KEY: meili.key,
    MEILI_INDEX_PREFIX: prefix,
    RATE_LIMIT_PER_MINUTE: '10000000',
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
