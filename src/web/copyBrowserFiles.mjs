#!/usr/bin/env node
/**
 * Copies the browser files of the documentation pages (Swagger UI, and GraphiQL with the
 * React it runs on) out of their npm packages into dist/browser-files/<page>/, at build
 * time (`npm run build`, which `npm install` runs). The server serves them from there
 * (browserFiles.ts), so an installed server needs none of these packages: GraphiQL's
 * browser build is one self-contained file, but installing the package brings about 90
 * (docs/decisions.md, "Shipping it"). Plain JavaScript, because it runs as a build step
 * beside tsc, and the list of files lives only here.
 *
 *   node src/web/copyBrowserFiles.mjs [outDir]
 */
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Each page's folder under dist/browser-files/, and the files it takes from which package. */
export const BROWSER_FILES = {
  'swagger-ui': [
    { pkg: 'swagger-ui-dist', file: 'swagger-ui.css' },
    { pkg: 'swagger-ui-dist', file: 'swagger-ui-bundle.js' },
    { pkg: 'swagger-ui-dist', file: 'favicon-32x32.png' },
  ],
  graphiql: [
    { pkg: 'react', file: 'umd/react.production.min.js' },
    { pkg: 'react-dom', file: 'umd/react-dom.production.min.js' },
    { pkg: 'graphiql', file: 'graphiql.min.js' },
    { pkg: 'graphiql', file: 'graphiql.min.css' },
  ],
};

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(path.join(ROOT, 'package.json'));

export function copyBrowserFiles(outDir = path.join(ROOT, 'dist', 'browser-files')) {
  rmSync(outDir, { recursive: true, force: true });
  for (const [page, files] of Object.entries(BROWSER_FILES)) {
    mkdirSync(path.join(outDir, page), { recursive: true });
    for (const { pkg, file } of files) {
      // swagger-ui-dist has no exports map; the others export their package.json.
      const from = path.join(path.dirname(require.resolve(`${pkg}/package.json`)), file);
      copyFileSync(from, path.join(outDir, page, path.basename(file)));
    }
  }
  return outDir;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  copyBrowserFiles(process.argv[2] ? path.resolve(process.argv[2]) : undefined);
}
