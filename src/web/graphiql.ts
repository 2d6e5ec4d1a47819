/**
 * The GraphQL explorer at /api/graphiql: GraphiQL's browser build with React, both
 * from npm packages copied at build time (copyBrowserFiles.mjs), served by this server
 * (no CDN), querying /api/graphql. The access token goes in GraphiQL's headers editor;
 * nothing is stored in the browser. Off in production unless GRAPHIQL_ENABLED=true
 * (then the path answers 404).
 */
import type { FastifyInstance } from 'fastify';
import { serveBrowserFiles, serveText } from './browserFiles.js';

export const GRAPHIQL_PAGE = '/api/graphiql';

const PAGE = `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>propgraph GraphQL explorer</title>
  <link rel="stylesheet" href="${GRAPHIQL_PAGE}/graphiql.min.css">
  <link rel="stylesheet" href="${GRAPHIQL_PAGE}/page.css">
</head>
<body>
  <div id="graphiql">Loading the explorer…</div>
  <script src="${GRAPHIQL_PAGE}/react.production.min.js"></script>
  <script src="${GRAPHIQL_PAGE}/react-dom.production.min.js"></script>
  <script src="${GRAPHIQL_PAGE}/graphiql.min.js"></script>
  <script src="${GRAPHIQL_PAGE}/propgraph-explorer.js"></script>
</body>
</html>
`;

const STYLE = `body { margin: 0; height: 100vh; overflow: hidden; } #graphiql { height: 100vh; }\n`;

const DEFAULT_QUERY = `# propgraph GraphQL explorer
#
# 1. In "Headers" below, put an access token
#    after "Bearer " (data/root-token on a
#    fresh server, or POST /openapi/v3/tokens).
#    The schema then loads: Docs (book icon,
#    left bar) and autocompletion work.
# 2. Run with the play button or Ctrl-Enter.

query Dataset($urn: String!) {
  dataset(urn: $urn) {
    urn
    name
    platform { urn }
    structuredProperties {
      properties {
        structuredProperty { urn definition { qualifiedName valueType { urn } } }
        values { ... on NumberValue { numberValue } ... on StringValue { stringValue } }
      }
    }
  }
}
`;

const DEFAULT_VARIABLES = JSON.stringify({ urn: 'urn:li:dataset:(urn:li:dataPlatform:hive,db.orders,PROD)' }, null, 2);
const DEFAULT_HEADERS = JSON.stringify({ Authorization: 'Bearer ' }, null, 2);

// GraphiQL fetches the schema with the headers it had when the fetcher was made; a new
// fetcher once the Authorization header settles makes it fetch again with the token.
const SCRIPT = `(function () {
  var h = React.createElement;
  var url = new URL('/api/graphql', window.location.href).href;
  var initialHeaders = ${JSON.stringify(DEFAULT_HEADERS)};
  function authorizationOf(text) {
    try { var headers = JSON.parse(text); return headers.Authorization || headers.authorization || ''; } catch (e) { return null; }
  }
  function Explorer() {
    var state = React.useState(authorizationOf(initialHeaders));
    var authorization = state[0], setAuthorization = state[1];
    var timer = React.useRef(undefined);
    var fetcher = React.useMemo(function () { return GraphiQL.createFetcher({ url: url }); }, [authorization]);
    function onEditHeaders(text) {
      clearTimeout(timer.current);
      timer.current = setTimeout(function () {
        var next = authorizationOf(text);
        if (next !== null) setAuthorization(next);
      }, 400);
    }
    return h(GraphiQL, {
      fetcher: fetcher,
      defaultQuery: ${JSON.stringify(DEFAULT_QUERY)},
      variables: ${JSON.stringify(DEFAULT_VARIABLES)},
      headers: initialHeaders,
      onEditHeaders: onEditHeaders,
      defaultEditorToolsVisibility: 'headers',
      shouldPersistHeaders: false,
      isHeadersEditorEnabled: true
    });
  }
  ReactDOM.createRoot(document.getElementById('graphiql')).render(h(Explorer));
})();
`;

export async function graphiqlRoutes(app: FastifyInstance): Promise<void> {
  serveText(app, GRAPHIQL_PAGE, 'text/html; charset=utf-8', PAGE);
  serveText(app, `${GRAPHIQL_PAGE}/page.css`, 'text/css; charset=utf-8', STYLE);
  serveText(app, `${GRAPHIQL_PAGE}/propgraph-explorer.js`, 'application/javascript; charset=utf-8', SCRIPT);
  serveBrowserFiles(app, GRAPHIQL_PAGE, 'graphiql');
}

export const isGraphiqlPath = (path: string): boolean => path === GRAPHIQL_PAGE || path.startsWith(`${GRAPHIQL_PAGE}/`);
