/**
 * The server's start (`npm start`, `propgraph serve`, through main.ts): configuration from
 * the environment, then the server until a signal.
 */
import { ConfigError, loadConfig } from '../platform/config.js';
import { startEnginesEarly } from '../embedded/earlyStart.js';
import { createLogger, exitAfterFlush } from '../platform/logger.js';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`propgraph: ${err.message}`);
      process.exit(2);
    }
    throw err;
  }
  const log = createLogger(config.logLevel, config.logFormat, undefined, config.auditLog);
  // The embedded engines start while the server's code loads (server.ts is imported after).
  const early = await startEnginesEarly(config, log);
  const { startServer } = await import('./server.js');
  const server = await startServer(config, log, early);
  let stopping = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      log.info({ signal }, 'shutting down');
      const force = setTimeout(() => {
        log.error('shutdown took too long; exiting');
        exitAfterFlush(log, 1);
      }, 30_000);
      force.unref();
      server.close().then(
        () => {
          log.info('stopped');
          exitAfterFlush(log, 0);
        },
        (err) => {
          log.error({ err }, 'error during shutdown');
          exitAfterFlush(log, 1);
        },
      );
    });
  }
}

main().catch((err) => {
  console.error('propgraph failed to start:', err instanceof Error ? err.message : err);
  process.exit(1);
});
