/**
 * The web console (docs/console.md): the files `npm install` built into dist/console,
 * served at / under the pages' strict Content-Security-Policy. index.html answers every
 * client-side route; it names the GraphQL endpoint in a meta tag (no inline script),
 * which is the only server the console talks to for data, and the OpenID provider
 * people sign in with, when there is one (sign-in itself is /auth/*,
 * rest/signInRoutes.ts). The files are public, the API is not.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { pageHelmet } from './pageSecurity.js';

/** Client-side routes: each answers index.html. */
const PAGE_PATHS = ['/', '/properties', '/search', '/tests', '/csv', '/policies'];
const PAGE_PREFIXES = ['/properties/', '/entity/', '/tests/'];
const ASSETS = '/assets';

export const isConsolePath = (p: string): boolean =>
  PAGE_PATHS.includes(p) || PAGE_PREFIXES.some((prefix) => p.startsWith(prefix)) || p.startsWith(`${ASSETS}/`);

const TYPES: Record<string, string> = {
  '.js': 'application/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
};

/** dist/console beside the compiled server (dist/web), or the build's output when run from src/. */
export function defaultConsoleDir(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  return path.basename(path.dirname(here)) === 'dist' ? path.resolve(here, '../console') : path.resolve(here, '../../dist/console');
}

const escapeAttribute = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

const NOT_BUILT = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>propgraph console</title></head>
<body><main><h1>The console is not built</h1>
<p>Run <code>npm install</code> (or <code>npm run build:console</code>) and restart the server. The API works without it: GraphQL at /api/graphql, REST under /openapi.</p>
</main></body></html>
`;

export interface ConsoleOptions {
  readonly graphqlUrl: string;
  /** The OpenID provider's name when people sign in through one (the page offers "Sign in with <name>"). */
  readonly signInProvider?: string | null;
  readonly dir?: string;
}

export async function consoleRoutes(app: FastifyInstance, options: ConsoleOptions): Promise<void> {
  const dir = options.dir ?? defaultConsoleDir();
  const gateway = /^https?:/.test(options.graphqlUrl) ? [new URL(options.graphqlUrl).origin] : [];
  const helmet = pageHelmet(gateway);
  const indexFile = path.join(dir, 'index.html');
  const built = existsSync(indexFile);
  const signIn = options.signInProvider ? `\n  <meta name="propgraph-sign-in" content="${escapeAttribute(options.signInProvider)}">` : '';
  const page = built
    ? readFileSync(indexFile, 'utf8').replace('<meta charset="utf-8">', `<meta charset="utf-8">\n  <meta name="propgraph-graphql-url" content="${escapeAttribute(options.graphqlUrl)}">${signIn}`)
    : NOT_BUILT;
  const sendPage = async (_request: unknown, reply: import('fastify').FastifyReply) =>
    reply.code(built ? 200 : 503).type('text/html; charset=utf-8').header('cache-control', 'no-cache').send(page);
  for (const p of PAGE_PATHS) app.get(p, { helmet }, sendPage);
  for (const prefix of PAGE_PREFIXES) app.get(`${prefix}*`, { helmet }, sendPage);

  const assets = new Map<string, { file: string; type: string }>();
  const assetDir = path.join(dir, 'assets');
  if (existsSync(assetDir)) {
    for (const name of readdirSync(assetDir)) assets.set(name, { file: path.join(assetDir, name), type: TYPES[path.extname(name)] ?? 'application/octet-stream' });
  }
  const loaded = new Map<string, Buffer>();
  app.get(`${ASSETS}/:name`, { helmet }, async (request, reply) => {
    const name = (request.params as { name: string }).name;
    const asset = assets.get(name);
    if (!asset) return reply.code(404).send({ error: 'Not Found', message: `No console file ${name}` });
    let content = loaded.get(name);
    if (!content) {
      content = readFileSync(asset.file);
      loaded.set(name, content);
    }
    // File names carry a content hash: a changed file has a new name.
    return reply.type(asset.type).header('cache-control', 'public, max-age=31536000, immutable').send(content);
  });
}
