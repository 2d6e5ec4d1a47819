/** What every command receives: the streams, the environment, and (lazily) the server. */
import { resolveSettings, type CliEnvironment } from './configFile.js';
import { GraphqlApi } from './graphqlApi.js';
import { HttpClient } from './httpClient.js';
import { RestApi } from './restApi.js';
import type { Terminal } from './terminal.js';

export interface CommandContext {
  readonly terminal: Terminal;
  /** The environment, with the profile the command line chose (set before any command runs). */
  readonly environment: CliEnvironment;
  /** Chooses the configuration profile (`--profile`); before the first request only. */
  useProfile(name: string | undefined): void;
  /** The server's REST API; resolving it fails (exit 3) when no server is configured. */
  api(): RestApi;
  /** The server's GraphQL API (search, facets, metadata tests), on the same connection settings. */
  graphql(): GraphqlApi;
}

export function createContext(terminal: Terminal, base: CliEnvironment, fetchImpl: typeof fetch = fetch): CommandContext {
  let environment = base;
  let http: HttpClient | undefined;
  let api: RestApi | undefined;
  let graphql: GraphqlApi | undefined;
  const client = () => (http ??= new HttpClient(resolveSettings(environment), fetchImpl));
  return {
    terminal,
    get environment() {
      return environment;
    },
    useProfile: (name) => {
      environment = name === undefined ? base : { ...base, profile: name };
    },
    api: () => (api ??= new RestApi(client())),
    graphql: () => (graphql ??= new GraphqlApi(client())),
  };
}
