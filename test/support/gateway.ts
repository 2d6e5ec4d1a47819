/**
 * An in-process @apollo/gateway in front of several replicas of the propgraph subgraph:
 * the supergraph is composed from one replica's SDL, and the one subgraph's requests
 * are spread round-robin over whichever replica URLs `live()` returns at that moment
 * (a test drops a killed replica from the list as a load balancer's health check would).
 */
import { ApolloGateway, IntrospectAndCompose, RemoteGraphQLDataSource, type GraphQLDataSourceProcessOptions } from '@apollo/gateway';
import { ApolloServer } from '@apollo/server';
import { startStandaloneServer } from '@apollo/server/standalone';

class RoundRobinDataSource extends RemoteGraphQLDataSource {
  private turn = 0;

  constructor(
    private readonly live: () => readonly string[],
    private readonly sent: Map<string, number>,
  ) {
    super({ url: live()[0]! });
  }

  override willSendRequest(options: GraphQLDataSourceProcessOptions): void {
    const urls = this.live();
    const url = urls[this.turn++ % urls.length]!;
    this.sent.set(url, (this.sent.get(url) ?? 0) + 1);
    // The request's url is typed read-only, but it is what the data source fetches.
    (options.request.http as { url: string }).url = url;
  }
}

export interface Gateway {
  readonly url: string;
  /** Subgraph requests sent, by replica URL. */
  readonly sent: ReadonlyMap<string, number>;
  stop(): Promise<void>;
}

/** `live()` lists subgraph URLs (…/api/graphql); the first one at start-up provides the SDL. */
export async function startRoundRobinGateway(live: () => readonly string[]): Promise<Gateway> {
  const sent = new Map<string, number>();
  const gateway = new ApolloGateway({
    supergraphSdl: new IntrospectAndCompose({ subgraphs: [{ name: 'propgraph', url: live()[0]! }] }),
    buildService: () => new RoundRobinDataSource(live, sent),
  });
  const server = new ApolloServer({ gateway });
  const { url } = await startStandaloneServer(server, { listen: { port: 0, host: '127.0.0.1' } });
  return { url: url.replace(/\/$/, ''), sent, stop: () => server.stop() };
}
