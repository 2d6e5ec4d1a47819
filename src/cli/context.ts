/** What every command receives: the streams, the environment, and (lazily) the server. */
import { resolveSettings, type CliEnvironment } from './configFile.js';
import { HttpClient } from './httpClient.js';
import { RestApi } from './restApi.js';
import type { Terminal } from './terminal.js';

export interface CommandContext {
  readonly terminal: Terminal;
  readonly environment: CliEnvironment;
  /** The server's REST API; resolving it fails (exit 3) when no server is configured. */
  api(): RestApi;
}

export function createContext(terminal: Terminal, environment: CliEnvironment, fetchImpl: typeof fetch = fetch): CommandContext {
  let api: RestApi | undefined;
  return {
    terminal,
    environment,
    api: () => (api ??= new RestApi(new HttpClient(resolveSettings(environment), fetchImpl))),
  };
}
