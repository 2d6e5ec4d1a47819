/**
 * The services of one server process, built once over its database and search engine.
 * Internally they call each other directly; what the edges (REST, GraphQL) receive is
 * each service wrapped in its authorization policy.
 */
import type { Db } from '../store/database.js';
import type { RegistryEpochReader } from '../store/propertyRegistry.js';
import type { Logger } from '../logger.js';
import type { SearchEngine } from '../search/engine.js';
import { authorize } from './authorization.js';
import { EntityService } from './entityService.js';
import type { IndexWaiter } from './indexWaiter.js';
import { JobService } from './jobs/jobService.js';
import { entityPolicy, jobPolicy, propertyPolicy, searchPolicy, testPolicy, tokenPolicy, valuePolicy } from './policies.js';
import { PropertyService } from './propertyService.js';
import { SearchService } from './searchService.js';
import { TestService } from './testService.js';
import { TokenService } from './tokenService.js';
import { ValueService } from './valueService.js';

export interface Services {
  readonly entities: EntityService;
  readonly properties: PropertyService;
  readonly values: ValueService;
  readonly jobs: JobService;
  readonly tests: TestService;
  readonly tokens: TokenService;
  readonly search: SearchService;
}

export interface ServiceDeps {
  readonly db: Db;
  /** Reads the property registry's change counter (searches check their cached registry with it). */
  readonly registryEpoch: RegistryEpochReader;
  readonly log: Logger;
  readonly indexWaiter: IndexWaiter;
  /** Null when search is disabled; `searchDisabledReason` says why. */
  readonly searchEngine?: SearchEngine | null;
  readonly searchDisabledReason?: string;
  /** How long searches trust their cached property registry (SearchService). */
  readonly searchRegistryRecheckMs?: number;
}

export function createServices(deps: ServiceDeps): Services {
  const entities = new EntityService(deps);
  return {
    entities: authorize(entities, 'entities', entityPolicy),
    properties: authorize(new PropertyService({ db: deps.db, entities }), 'properties', propertyPolicy),
    values: authorize(new ValueService({ entities }), 'values', valuePolicy),
    jobs: authorize(new JobService(deps), 'jobs', jobPolicy),
    tests: authorize(new TestService({ db: deps.db, log: deps.log, entities }), 'tests', testPolicy),
    tokens: authorize(new TokenService(deps), 'tokens', tokenPolicy),
    search: authorize(
      new SearchService({ db: deps.db, registryEpoch: deps.registryEpoch, engine: deps.searchEngine ?? null, disabledReason: deps.searchDisabledReason, entities, registryRecheckMs: deps.searchRegistryRecheckMs ?? 0 }),
      'search',
      searchPolicy,
    ),
  };
}
