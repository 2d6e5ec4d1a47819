/**
 * Browser files of the documentation pages (Swagger UI, GraphiQL, React), served by the
 * server itself so the pages work offline: nothing is fetched from a CDN. They are copied
 * out of their npm packages at build time into dist/browser-files/<page>/
 * (copyBrowserFiles.mjs, which lists them), so the installed server does not carry those
 * packages. Each file is read once, on first request, and kept in memory.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { PAGE_HELMET } from './pageSecurity.js';

// src/web/ and dist/web/ both sit two levels below the package root.
const BROWSER_FILES = fileURLToPath(new URL('../../dist/browser-files/', import.meta.url));

const TYPES: Record<string, string> = {
  '.js': 'application/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.png': 'image/png',
};

/** Serves every file the build prepared for `page` under `folder`. */
export function serveBrowserFiles(app: FastifyInstance, folder: string, page: string): void {
  const dir = path.join(BROWSER_FILES, page);
  if (!existsSync(dir)) {
    throw new Error(`${dir} is missing: the documentation pages' browser files are prepared by the build (npm run build)`);
  }
  for (const name of readdirSync(dir)) {
    let content: Buffer | undefined;
    const type = TYPES[path.extname(name)] ?? 'application/octet-stream';
    app.get(`${folder}/${name}`, { helmet: PAGE_HELMET }, async (_request, reply) => {
      content ??= readFileSync(path.join(dir, name));
      return reply.type(type).header('cache-control', 'public, max-age=3600').send(content);
    });
  }
}

/** A script or page generated here, served like an asset. */
export function serveText(app: FastifyInstance, url: string, type: string, text: string): void {
  app.get(url, { helmet: PAGE_HELMET }, async (_request, reply) => reply.type(type).header('cache-control', 'no-cache').send(text));
}
