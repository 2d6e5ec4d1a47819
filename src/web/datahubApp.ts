/**
 * DataHub's own web app, built from its source (docs/datahub-compatibility.md gives the
 * recipe), served from DATAHUB_APP_DIR at /datahub/: its files as they are, and its
 * index.html for every page, with `<base href="@basePath">` filled in (the placeholder
 * DataHub's frontend server fills), so that the app's relative files and its API calls
 * (rest/datahubAppSession.ts, /datahub/api/v2/graphql) stay under /datahub. The files are
 * public; the API is not.
 */
import { createReadStream, existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';

/** The path DataHub's web app is served at, its session routes under it (rest/datahubAppSession.ts). */
export const DATAHUB_APP_PATH = '/datahub';

const TYPES: Record<string, string> = {
  '.js': 'application/javascript; charset=utf-8',
  '.mjs': 'application/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.ico': 'image/x-icon',
  '.webp': 'image/webp',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.txt': 'text/plain; charset=utf-8',
  '.xml': 'application/xml; charset=utf-8',
  '.wasm': 'application/wasm',
  '.map': 'application/json; charset=utf-8',
};

/**
 * The app's pages: its own scripts and styles (styled components set styles at run time),
 * images from anywhere (platform logos may be links), workers from blobs (its editors).
 */
const APP_HELMET = {
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      defaultSrc: ["'self'"],
      scriptSrc: ["'self'"],
      styleSrc: ["'self'", "'unsafe-inline'"],
      imgSrc: ["'self'", 'data:', 'blob:', 'https:'],
      fontSrc: ["'self'", 'data:'],
      connectSrc: ["'self'"],
      workerSrc: ["'self'", 'blob:'],
      objectSrc: ["'none'"],
      baseUri: ["'self'"],
      formAction: ["'self'"],
      frameAncestors: ["'self'"],
    },
  },
};

const NOT_CONFIGURED = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>DataHub's web app</title></head>
<body><main><h1>DataHub's web app is not configured</h1>
<p>Build it from DataHub's source and point DATAHUB_APP_DIR at its dist/ folder (docs/datahub-compatibility.md, "Serving DataHub's web app"), then restart the server.</p>
</main></body></html>
`;

export interface DataHubAppOptions {
  /** The app's built dist/ folder; undefined: the app is not served (its path says how to). */
  readonly dir: string | undefined;
}

/** Whether a path is one of the app's pages or files (public: the app loads before anyone signs in). */
export const isDataHubAppPath = (p: string): boolean => p === DATAHUB_APP_PATH || p.startsWith(`${DATAHUB_APP_PATH}/`);

export async function datahubAppRoutes(app: FastifyInstance, options: DataHubAppOptions): Promise<void> {
  const dir = options.dir && existsSync(path.join(options.dir, 'index.html')) ? realpathSync(options.dir) : undefined;
  const page = dir ? readFileSync(path.join(dir, 'index.html'), 'utf8').replace(/@basePath/g, `${DATAHUB_APP_PATH}/`) : NOT_CONFIGURED;
  const sendPage = (reply: FastifyReply) => reply.code(dir ? 200 : 503).type('text/html; charset=utf-8').header('cache-control', 'no-cache').send(page);

  // The router ignores a trailing slash: /datahub and /datahub/ both come here. The app's
  // files are relative to /datahub/: without the slash they would resolve against /.
  app.get(DATAHUB_APP_PATH, { helmet: APP_HELMET }, async (request, reply) =>
    request.url.split('?')[0] === DATAHUB_APP_PATH ? reply.redirect(`${DATAHUB_APP_PATH}/`, 301) : sendPage(reply),
  );
  app.get(`${DATAHUB_APP_PATH}/*`, { helmet: APP_HELMET }, async (request, reply) => {
    const relative = decodeURIComponent((request.params as { '*': string })['*'] ?? '');
    if (!dir || relative === '' || relative === 'index.html') return sendPage(reply);
    const file = path.resolve(dir, relative);
    // Nothing outside the app's folder, whatever the path says.
    if (!file.startsWith(`${dir}${path.sep}`)) return reply.code(404).send({ error: 'Not Found', message: `No file ${relative} in the app` });
    const found = existsSync(file) ? statSync(file) : undefined;
    if (found?.isFile()) {
      const type = TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
      // Vite names the built scripts and styles by their content: a changed file has a new name.
      const cache = relative.startsWith('assets/') && /-[A-Za-z0-9_-]{8}\.(js|css)$/.test(relative) ? 'public, max-age=31536000, immutable' : 'no-cache';
      return reply.type(type).header('cache-control', cache).header('content-length', String(found.size)).send(createReadStream(file));
    }
    // A missing file is 404; any other path is a page of the app (its router decides).
    if (path.extname(relative) !== '') return reply.code(404).send({ error: 'Not Found', message: `No file ${relative} in the app` });
    return sendPage(reply);
  });
}
