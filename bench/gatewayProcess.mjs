// A federation gateway in its own process in front of the propgraph subgraph, for the
// search benchmark's gateway rows (issue 32): `@apollo/gateway` under Apollo Server, or
// Hive Gateway's runtime (`@graphql-hive/gateway`) under node:http. Both get the same
// supergraph, composed once by the parent from the subgraph's SDL, and send the
// benchmark's token to the subgraph. Reads {kind, supergraphSdl, subgraphUrl, token} as
// JSON on stdin and prints {"url"} once listening; SIGTERM exits in order (so that
// `--cpu-prof` writes its profile).
import http from 'node:http';

const input = JSON.parse(await new Promise((resolve) => {
  const chunks = [];
  process.stdin.on('data', (c) => chunks.push(c));
  process.stdin.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
}));
const { kind, supergraphSdl, subgraphUrl, token } = input;
// The supergraph names the subgraph's URL as composed; both gateways are pointed at it.
const sdl = supergraphSdl;

let stop;
let url;
if (kind === 'apollo') {
  const { ApolloGateway, RemoteGraphQLDataSource } = await import('@apollo/gateway');
  const { ApolloServer } = await import('@apollo/server');
  const { startStandaloneServer } = await import('@apollo/server/standalone');
  class Authorized extends RemoteGraphQLDataSource {
    willSendRequest({ request }) {
      request.http.headers.set('authorization', `Bearer ${token}`);
    }
  }
  const server = new ApolloServer({ gateway: new ApolloGateway({ supergraphSdl: sdl, buildService: () => new Authorized({ url: subgraphUrl }) }) });
  ({ url } = await startStandaloneServer(server, { listen: { port: 0, host: '127.0.0.1' } }));
  stop = () => server.stop();
} else if (kind === 'hive') {
  const { createGatewayRuntime } = await import('@graphql-hive/gateway');
  const gateway = createGatewayRuntime({
    supergraph: sdl,
    logging: 'error',
    propagateHeaders: { fromClientToSubgraphs: () => ({ authorization: `Bearer ${token}` }) },
    // The landing page and GraphiQL are not measured.
    landingPage: false,
    graphiql: false,
  });
  const server = http.createServer(gateway);
  server.keepAliveTimeout = 60_000;
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${server.address().port}/graphql`;
  stop = async () => {
    server.close();
    await gateway.dispose();
  };
} else {
  throw new Error(`unknown gateway ${kind}`);
}
process.on('SIGTERM', async () => {
  await stop();
  process.exit(0);
});
console.log(JSON.stringify({ url }));
