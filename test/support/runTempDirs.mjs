// The run's temporary directories (test/support/tempDir.ts): each is listed in a file of
// the run's (PROPGRAPH_TEST_RUN_ID, set by globalSetup) and removed by globalTeardown once
// every suite has finished. Suites stop their servers in afterAll and could not also remove
// what those servers wrote; a whole run left about 17 directories, 150 MB, behind.
// Plain JavaScript: globalTeardown loads it outside Jest's module mapping.
import { appendFileSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

function listOf(runId) {
  return path.join(tmpdir(), `propgraph-test-run-${runId}.dirs`);
}

/** Notes `dir` for removal at the end of the run (nothing outside a run of the services project). */
export function noteRunTempDir(dir) {
  const runId = process.env.PROPGRAPH_TEST_RUN_ID;
  if (runId) appendFileSync(listOf(runId), `${dir}\n`);
}

/** Removes the run's temporary directories; how many were listed. */
export function removeRunTempDirs() {
  const runId = process.env.PROPGRAPH_TEST_RUN_ID;
  if (!runId) return 0;
  const list = listOf(runId);
  let dirs;
  try {
    dirs = readFileSync(list, 'utf8').split('\n').filter(Boolean);
  } catch {
    return 0;
  }
  for (const dir of dirs) {
    try {
      rmSync(dir, { recursive: true, force: true });
    } catch {
      // Still held by something that outlived its suite: left, as before.
    }
  }
  rmSync(list, { force: true });
  return dirs.length;
}
