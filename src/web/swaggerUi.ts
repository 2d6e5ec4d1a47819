/**
 * Swagger UI at /openapi/swagger-ui/index.html (where DataHub serves it), reading the
 * OpenAPI document at /openapi/v3/api-docs. Its files come from the swagger-ui-dist
 * package, copied at build time (copyBrowserFiles.mjs). The page and its initializer
 * are ours because the @fastify/swagger-ui plugin serves its page at the folder, not at
 * index.html, and derives the document's address from the page's.
 */
import type { FastifyInstance } from 'fastify';
import { serveBrowserFiles, serveText } from './browserFiles.js';

export const SWAGGER_UI_FOLDER = '/openapi/swagger-ui';
export const SWAGGER_UI_PAGE = `${SWAGGER_UI_FOLDER}/index.html`;

const PAGE = `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>propgraph REST API</title>
  <link rel="stylesheet" href="./swagger-ui.css">
  <link rel="icon" type="image/png" href="./favicon-32x32.png" sizes="32x32">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="./swagger-ui-bundle.js"></script>
  <script src="./propgraph-initializer.js"></script>
</body>
</html>
`;

// validatorUrl null: the default would load a badge from validator.swagger.io.
const INITIALIZER = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: new URL('../v3/api-docs', window.location.href).href,
    dom_id: '#swagger-ui',
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
    deepLinking: true,
    validatorUrl: null,
    docExpansion: 'none',
    filter: true,
    displayRequestDuration: true,
    persistAuthorization: false
  });
});
`;

export async function swaggerUiRoutes(app: FastifyInstance): Promise<void> {
  app.get(SWAGGER_UI_FOLDER, async (_request, reply) => reply.redirect(SWAGGER_UI_PAGE));
  serveText(app, SWAGGER_UI_PAGE, 'text/html; charset=utf-8', PAGE);
  serveText(app, `${SWAGGER_UI_FOLDER}/propgraph-initializer.js`, 'application/javascript; charset=utf-8', INITIALIZER);
  serveBrowserFiles(app, SWAGGER_UI_FOLDER, 'swagger-ui');
}

export const isSwaggerUiPath = (path: string): boolean => path === SWAGGER_UI_FOLDER || path.startsWith(`${SWAGGER_UI_FOLDER}/`);
