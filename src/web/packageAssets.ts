/**
 * Browser files shipped inside npm packages (Swagger UI, GraphiQL, React), served by
 * the server itself so the documentation pages work offline: nothing is fetched from
 * a CDN. Each file is read once, on first request, and kept in memory.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { PAGE_HELMET } from './pageSecurity.js';

const require = createRequire(import.meta.url);

export interface PackageAsset {
  /** The file name under the page's folder, e.g. `swagger-ui.css`. */
  readonly name: string;
  readonly pkg: string;
  /** Path inside the package. */
  readonly file: string;
}

const TYPES: Record<string, string> = {
  '.js': 'application/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.png': 'image/png',
};

function packageRoot(pkg: string): string {
  // swagger-ui-dist has no exports map; the others export their package.json.
  return path.dirname(require.resolve(`${pkg}/package.json`));
}

export function serveAssets(app: FastifyInstance, folder: string, assets: readonly PackageAsset[]): void {
  for (const asset of assets) {
    let content: Buffer | undefined;
    const type = TYPES[path.extname(asset.name)] ?? 'application/octet-stream';
    app.get(`${folder}/${asset.name}`, { helmet: PAGE_HELMET }, async (_request, reply) => {
      content ??= readFileSync(path.join(packageRoot(asset.pkg), asset.file));
      return reply.type(type).header('cache-control', 'public, max-age=3600').send(content);
    });
  }
}

/** A script or page generated here, served like an asset. */
export function serveText(app: FastifyInstance, url: string, type: string, text: string): void {
  app.get(url, { helmet: PAGE_HELMET }, async (_request, reply) => reply.type(type).header('cache-control', 'no-cache').send(text));
}
