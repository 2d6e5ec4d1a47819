/** The services of one server process, built once over its database and search engine. */
import type { Db } from '../store/database.js';
import type { Logger } from '../logger.js';
import type { SearchEngine } from '../search/engine.js';
import { EntityService } from './entityService.js';
import type { IndexWaiter } from './indexWaiter.js';
import { JobService } from './jobs/jobService.js';
import { SearchService } from './searchService.js';

export interface Services {
  readonly entities: EntityService;
  readonly jobs: JobService;
  readonly search: SearchService;
}

export interface ServiceDeps {
  readonly db: Db;
  readonly log: Logger;
  readonly indexWaiter: IndexWaiter;
  /** Null when search is disabled; `searchDisabledReason` says why. */
  readonly searchEngine?: SearchEngine | null;
  readonly searchDisabledReason?: string;
}

export function createServices(deps: ServiceDeps): Services {
  const entities = new EntityService(deps);
  return {
    entities,
    jobs: new JobService(deps),
    search: new SearchService({ db: deps.db, engine: deps.searchEngine ?? null, disabledReason: deps.searchDisabledReason, entities }),
  };
}
