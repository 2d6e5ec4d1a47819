/**
 * The propgraph a DataHub client replay (datahubReplay.ts) runs against: a real server,
 * configured as the fixture says, with the root token as the client's token.
 */
import { loadClientFixture, replayFlow, urnsOfFlow, type FlowOutcome } from './datahubReplay.js';
import { searchAvailableForTests, startTestServer, type Backend } from './server.js';

export interface ReplayServer {
  readonly url: string;
  readonly token: string;
  stop(): Promise<void>;
}

const ROOT_TOKEN = 'datahub-replay-root-token';

/**
 * A real propgraph for the replay, configured as the fixture says (`server.env`), with
 * authentication on and the root token as the client's token; search when the test
 * run has a Meilisearch (the search flows need one).
 */
export async function startReplayServer(env: Readonly<Record<string, string>>, backend?: Backend): Promise<ReplayServer> {
  const server = await startTestServer({
    ...(backend ? { backend } : {}),
    search: searchAvailableForTests(),
    // Writes return once search reflects them, however loaded the machine (the default bound
    // is 5 s): a client's flow searches right after writing, and the replay checks the wire,
    // not how long indexing takes beside the rest of the run.
    env: { ...env, AUTH_ENABLED: 'true', ROOT_TOKEN, RATE_LIMIT_PER_MINUTE: '1000000', INDEX_WAIT_MS: '120000' },
  });
  return { url: server.url, token: ROOT_TOKEN, stop: () => server.stop() };
}

/** Hard-deletes the urns through REST v3 (whatever is left of a flow that failed). */
export async function deleteUrns(server: ReplayServer, urns: readonly string[]): Promise<void> {
  for (const urn of urns) {
    const type = /^urn:li:([^:]+):/.exec(urn)?.[1];
    if (!type) continue;
    await fetch(`${server.url}/openapi/v3/entity/${type}/${encodeURIComponent(urn)}`, { method: 'DELETE', headers: { authorization: `Bearer ${server.token}` } }).catch(() => undefined);
  }
}

/**
 * Replays flows one after another on one server, each at its base (`prefix`: a client
 * configured with `…/gms`), as one client would; a flow that stopped midway has its
 * entities deleted, since the next flow may use the same urns. `label` names the setup in
 * each outcome.
 */
export async function replayFlows(server: ReplayServer, runs: ReadonlyArray<{ readonly flow: string; readonly prefix?: string | undefined }>, label: string): Promise<FlowOutcome[]> {
  const outcomes: FlowOutcome[] = [];
  for (const { flow, prefix } of runs) {
    const fixture = loadClientFixture(flow);
    const outcome = await replayFlow(server.url, fixture, { token: server.token, ...(prefix ? { prefix } : {}) });
    outcomes.push({ ...outcome, name: `${flow}${prefix ?? ''} (${label})` });
    if (outcome.failures.length > 0) await deleteUrns(server, urnsOfFlow(fixture));
    if (outcome.optionalFailures.length > 0) console.log(`${flow}${prefix ?? ''} (${label}): optional steps failed (ignored as the client ignores them):\n  ${outcome.optionalFailures.join('\n  ')}`);
  }
  return outcomes;
}

/**
 * What differs from the list a suite keeps: the flows that failed though not pending, and
 * the pending ones that passed (a flow that starts passing must be taken off the list).
 * Both empty when the client works as listed.
 */
export function unexpectedOutcomes(
  outcomes: readonly FlowOutcome[],
  runs: ReadonlyArray<{ readonly flow: string }>,
  pendingFlows: Readonly<Record<string, string | undefined>>,
): { failed: string[]; passedWhilePending: string[] } {
  const pending = (i: number) => runs[i]!.flow in pendingFlows;
  return {
    failed: outcomes.filter((o, i) => o.failures.length > 0 && !pending(i)).map((o) => `${o.name}: ${o.failures.join('; ')}`),
    passedWhilePending: outcomes.filter((o, i) => o.failures.length === 0 && pending(i)).map((o) => o.name),
  };
}
