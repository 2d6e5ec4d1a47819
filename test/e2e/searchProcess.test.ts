/**
 * The built server as `npm start` runs it, with its embedded Meilisearch:
 * - killed with SIGKILL in the middle of indexing and restarted on the same data, its
 *   index converges to the database (the orphaned Meilisearch is stopped, the dead
 *   replica's indexer lease lapses, the change log is drained);
 * - `npm run system-update` (dist/boot/systemUpdate.js) rebuilds through the running
 *   server, and in-process when no server runs.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { tempDir } from '../support/tempDir.js';
import { datasetUrn, defineProperty, searchRest, upsertDatasetsWithValues } from '../support/catalog.js';
import { buildOnce, runBuilt, startBuiltServer } from '../support/builtServer.js';
import { http } from '../support/http.js';
import { createTestDatabase } from '../support/postgres.js';
import { searchAvailableForTests } from '../support/server.js';

const N = 4000;
const trace = (what: string) => process.env.TEST_TRACE && process.stderr.write(`${new Date().toISOString()} ${what}\n`);
const urnOf = (i: number) => datasetUrn(`crash.t${String(i).padStart(5, '0')}`);

function killOrphanMeilisearch(dataDir: string): void {
  const pidFile = path.join(dataDir, 'meili', 'meilisearch.pid');
  if (!existsSync(pidFile)) return;
  // An empty pid file reads as 0, and kill(0) would hit this test's own process group.
  const pid = Number(readFileSync(pidFile, 'utf8').trim());
  if (!Number.isInteger(pid) || pid <= 0) return;
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** Every dataset holding a value of crash.n, by a REST scroll. */
async function searchedUrns(base: string): Promise<string[]> {
  const seen: string[] = [];
  let scrollId: string | undefined;
  do {
    const res = await searchRest(base, 'structuredProperties.crash_n:>=0', { count: '1000', ...(scrollId ? { scrollId } : {}) });
    if (res.status !== 200) throw new Error(`search failed: ${res.status} ${res.text}`);
    seen.push(...res.body.entities.map((e: { urn: string }) => e.urn));
    scrollId = res.body.scrollId;
  } while (scrollId);
  return seen;
}

(searchAvailableForTests() ? describe : describe.skip)('the built server with its embedded Meilisearch', () => {
  let dataDir: string;
  const env: Record<string, string> = {};

  beforeAll(async () => {
    await buildOnce();
    dataDir = tempDir('propgraph-crash-');
    env.DATA_DIR = dataDir;
    env.MEILI_INDEX_PREFIX = 'crash_';
    // PostgreSQL when there is one: a SIGKILL tests the indexer, not PGlite's durability.
    if (process.env.PROPGRAPH_TEST_PG_URL) env.DATABASE_URL = await createTestDatabase(process.env.PROPGRAPH_TEST_PG_URL, `propgraph_crash_${process.pid}`);
  }, 180_000);

  afterAll(() => {
    killOrphanMeilisearch(dataDir);
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('SIGKILL mid-indexing, restart: the index converges to the database', async () => {
    trace('starting');
    const first = await startBuiltServer(env);
    trace(`first up ${first.url}`);
    try {
      expect((await http(first.url, 'GET', '/health')).body.search).toMatchObject({ ok: true, mode: 'embedded' });
      await defineProperty(first.url, 'crash.n', { valueType: 'number', cardinality: 'SINGLE' });
      for (let start = 0; start < N; start += 500) {
        const entries = Array.from({ length: 500 }, (_, k) => ({ urn: urnOf(start + k), values: { 'crash.n': [start + k] } }));
        await upsertDatasetsWithValues(first.url, entries, { async: true });
      }
      const pending = (await http(first.url, 'GET', '/health')).body.changeLog.pending;
      trace(`pending ${pending}`);
      expect(pending).toBeGreaterThan(0);
    } finally {
      first.child.kill('SIGKILL');
      await first.exited;
    }

    const second = await startBuiltServer(env);
    trace(`second up ${second.url}`);
    try {
      const deadline = Date.now() + 120_000;
      let seen: string[] = [];
      while (Date.now() < deadline) {
        const health = (await http(second.url, 'GET', '/health')).body;
        trace(`health ${JSON.stringify(health)}`);
        if (health.changeLog?.pending === 0 && health.search?.ok) {
          seen = await searchedUrns(second.url);
          if (seen.length === N) break;
        }
        await new Promise((r) => setTimeout(r, 500));
      }
      expect(seen).toEqual(Array.from({ length: N }, (_, i) => urnOf(i)));
      expect(second.output.join('')).toContain('stopping a Meilisearch left running by a previous server');

      trace('converged');
      // system-update through the running server, with progress.
      const cli = runBuilt('boot/systemUpdate.js', { DATA_DIR: dataDir }, ['--server', second.url]);
      expect(await cli.exited).toBe(0);
      // The N datasets and the property's definition (definitions are searchable entities too).
      expect(cli.output.join('')).toMatch(new RegExp(`System update done: ${N + 1} entities indexed`));
      expect(await searchedUrns(second.url)).toHaveLength(N);
    } finally {
      second.child.kill('SIGTERM');
      await second.exited;
    }
    trace('second stopped');
    expect(existsSync(path.join(dataDir, 'meili', 'meilisearch.pid'))).toBe(false);

    // With no server running, system-update opens the database and the search engine itself.
    const offline = runBuilt('boot/systemUpdate.js', { ...env, HOST: '127.0.0.1', PORT: '1', LOG_LEVEL: 'warn' });
    expect(await offline.exited).toBe(0);
    const text = offline.output.join('');
    expect(text).toContain('no server answered; rebuilding in this process');
    expect(text).toMatch(new RegExp(`System update done: ${N + 1} entities indexed`));
  }, 600_000);
});
