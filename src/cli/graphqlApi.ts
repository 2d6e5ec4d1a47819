/**
 * The GraphQL calls of the CLI (search, facets, metadata tests, who-am-I), typed by the
 * operations in src/cli/graphql (generated into src/cli/generated/graphql.ts). Errors
 * come back as the same CliError/ApiError the REST calls raise, so exit codes match.
 */
import type { TypedDocumentString } from './generated/graphql.js';
import { ApiError, CliError, EXIT } from './errors.js';
import type { HttpClient } from './httpClient.js';

interface GraphQLAnswer<T> {
  data?: T | null;
  errors?: Array<{ message?: string; extensions?: { code?: string } }>;
}

/** GraphQL error codes and the exit codes they mean (docs/cli.md, "Exit codes"). */
const EXIT_BY_CODE: Record<string, (typeof EXIT)[keyof typeof EXIT]> = {
  UNAUTHENTICATED: EXIT.auth,
  FORBIDDEN: EXIT.auth,
};

export class GraphqlApi {
  private path: string | undefined;

  constructor(readonly http: HttpClient) {}

  /**
   * `<server>/api/graphql`; a server address ending in `/gms` (DataHub's REST prefix)
   * may have the endpoint one level up, so that is tried once when the first is missing.
   */
  private candidates(): string[] {
    const server = this.http.settings.server;
    return server.endsWith('/gms') ? ['/api/graphql', '/../api/graphql'] : ['/api/graphql'];
  }

  async run<R, V>(document: TypedDocumentString<R, V>, variables: V): Promise<R> {
    const body = { query: document.toString(), variables };
    const paths = this.path ? [this.path] : this.candidates();
    let answer: GraphQLAnswer<R> | undefined;
    for (const path of paths) {
      try {
        answer = await this.http.request<GraphQLAnswer<R>>('POST', path, { json: body, acceptErrorBody: true });
        this.path = path;
        break;
      } catch (err) {
        if (!(err instanceof ApiError && err.isMissingRoute)) throw err;
      }
    }
    if (!answer) throw new CliError(`The server at ${this.http.settings.server} has no GraphQL endpoint (POST /api/graphql answered 404); it may be older than this CLI.`);
    const first = answer.errors?.[0];
    if (first) {
      const code = first.extensions?.code ?? 'GRAPHQL_ERROR';
      throw new CliError(`${first.message ?? code}`, EXIT_BY_CODE[code] ?? EXIT.failed);
    }
    if (!answer.data) throw new CliError(`The server answered a GraphQL request without data: ${JSON.stringify(answer).slice(0, 200)}`);
    return answer.data;
  }
}
