/** This build's version: package.json's, which is the release's (CHANGELOG.md). */
import { readFileSync } from 'node:fs';

function readVersion(): string {
  try {
    // src/platform/version.ts and dist/platform/version.js both sit one level below package.json.
    return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: string }).version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}

export const APP_VERSION: string = readVersion();
