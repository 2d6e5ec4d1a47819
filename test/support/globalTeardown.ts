import type { MeilisearchServer, PostgresServer } from './globalSetup.js';
import { removeRunTempDirs } from './runTempDirs.mjs';

declare global {
  // eslint-disable-next-line no-var
  var __propgraphPostgres: PostgresServer | undefined;
  // eslint-disable-next-line no-var
  var __propgraphMeilisearch: MeilisearchServer | undefined;
}

export default async function globalTeardown(): Promise<void> {
  await globalThis.__propgraphMeilisearch?.destroy();
  await globalThis.__propgraphPostgres?.stop();
  removeRunTempDirs();
}
