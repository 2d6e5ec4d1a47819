import type { PostgresServer } from './globalSetup.js';

declare global {
  // eslint-disable-next-line no-var
  var __propgraphPostgres: PostgresServer | undefined;
}

export default async function globalTeardown(): Promise<void> {
  await globalThis.__propgraphPostgres?.stop();
}
