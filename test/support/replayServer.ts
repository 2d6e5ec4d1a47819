/**
 * The propgraph a DataHub client replay (datahubReplay.ts) runs against: a real server,
 * configured as the fixture says, with the root token as the client's token.
 */
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
    env: { ...env, AUTH_ENABLED: 'true', ROOT_TOKEN, RATE_LIMIT_PER_MINUTE: '1000000' },
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
