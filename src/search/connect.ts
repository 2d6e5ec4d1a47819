/**
 * Chooses the search engine at start-up: an external Meilisearch (MEILI_URL), the
 * embedded one (the default), or none. Without an engine everything but search
 * keeps working; changes wait in the change log until an engine is back.
 */
import type { Config } from '../platform/config.js';
import type { Logger } from '../platform/logger.js';
import { SearchBinaryUnavailable, startConfiguredMeilisearch, type EmbeddedMeilisearch } from '../embedded/meilisearch.js';
import { SearchEngine } from './engine.js';

export type SearchMode = 'external' | 'embedded' | 'disabled';

export interface SearchConnection {
  readonly engine: SearchEngine | null;
  readonly mode: SearchMode;
  /** Why search is disabled. */
  readonly reason?: string;
  stop(): Promise<void>;
}

/** `early`: the embedded Meilisearch when it was started already (embedded/earlyStart.ts). */
export async function connectSearch(config: Config, log: Logger, early?: Promise<EmbeddedMeilisearch> | null): Promise<SearchConnection> {
  const common = { indexPrefix: config.meiliIndexPrefix, log };
  if (config.meiliUrl) {
    const engine = new SearchEngine({ ...common, url: config.meiliUrl, apiKey: config.meiliApiKey });
    if (!(await engine.enableContainsFilter())) {
      log.info('Meilisearch containsFilter could not be enabled with this key; CONTAIN filters will be refused');
    }
    return { engine, mode: 'external', stop: async () => {} };
  }
  if (!config.meiliEmbedded) {
    return disabled(log, 'MEILI_URL is not set and MEILI_EMBEDDED=false');
  }
  try {
    const embedded = await (early ?? startConfiguredMeilisearch(config, log));
    const engine = new SearchEngine({ ...common, url: embedded.url, apiKey: embedded.apiKey });
    return { engine, mode: 'embedded', stop: () => embedded.stop() };
  } catch (err) {
    if (err instanceof SearchBinaryUnavailable) {
      return disabled(log, `${err.message}; set MEILI_URL (and MEILI_API_KEY) to use an external Meilisearch, or MEILI_BINARY to a binary for this platform`);
    }
    log.error({ err: (err as Error).message }, 'the embedded Meilisearch failed to start');
    return disabled(log, `the embedded Meilisearch failed to start: ${(err as Error).message}`);
  }
}

function disabled(log: Logger, reason: string): SearchConnection {
  log.warn(`search disabled: ${reason}`);
  return { engine: null, mode: 'disabled', reason, stop: async () => {} };
}
