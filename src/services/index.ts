/**
 * The services of one server process, built once over its database and search engine.
 * Internally the Default* implementations call each other directly; what the edges
 * (REST, GraphQL) receive is each one inside its Authorized* wrapper
 * (authorizedServices.ts).
 */
import type { Db, DriverStatement } from '../store/database.js';
import type { EntityPageReader } from '../store/aspects.js';
import type { RegistryEpochReader } from '../store/propertyRegistry.js';
import type { Logger } from '../logger.js';
import type { SearchEngine } from '../search/engine.js';
import {
  AuthorizedEntityService,
  AuthorizedJobService,
  AuthorizedPropertyService,
  AuthorizedSearchService,
  AuthorizedTestService,
  AuthorizedTokenService,
  AuthorizedValueService,
} from './authorizedServices.js';
import { AuditTrail } from './audit.js';
import { DefaultEntityService, type EntityService } from './entityService.js';
import type { IndexWaiter } from './indexWaiter.js';
import { DefaultJobService, type JobService } from './jobs/jobService.js';
import { DefaultPropertyService, type PropertyService } from './propertyService.js';
import { DefaultSearchService, type SearchService } from './searchService.js';
import { DefaultTestService, type TestService } from './testService.js';
import { SignInService, type SignInDeps } from './signInService.js';
import { DefaultTokenService, type TokenService } from './tokenService.js';
import { DefaultValueService, type ValueService } from './valueService.js';

export interface Services {
  readonly entities: EntityService;
  readonly properties: PropertyService;
  readonly values: ValueService;
  readonly jobs: JobService;
  readonly tests: TestService;
  readonly tokens: TokenService;
  readonly search: SearchService;
  /** People signing in through OpenID Connect; null when no provider is configured. */
  readonly signIn: SignInService | null;
}

export interface ServiceDeps {
  readonly db: Db;
  /** Statements on the driver (the write path's applying statement). */
  readonly statement: DriverStatement;
  /** Reads the property registry's change counter (searches check their cached registry with it). */
  readonly registryEpoch: RegistryEpochReader;
  /** Reads a page of entities with named aspects in one statement (EntityService.readEntities). */
  readonly readEntityPage: EntityPageReader;
  readonly log: Logger;
  readonly indexWaiter: IndexWaiter;
  /** Null when search is disabled; `searchDisabledReason` says why. */
  readonly searchEngine?: SearchEngine | null;
  readonly searchDisabledReason?: string;
  /** How long searches trust their cached property registry (SearchService). */
  readonly searchRegistryRecheckMs?: number;
  /** Sign-in through an OpenID provider (OIDC_ISSUER); absent: off. */
  readonly signIn?: Omit<SignInDeps, 'tokens' | 'log'>;
}

export function createServices(deps: ServiceDeps): Services {
  const entities = new DefaultEntityService(deps);
  const tokens = new DefaultTokenService(deps);
  const audit = new AuditTrail(deps.log);
  return {
    entities: new AuthorizedEntityService(entities),
    properties: new AuthorizedPropertyService(new DefaultPropertyService({ db: deps.db, entities })),
    values: new AuthorizedValueService(new DefaultValueService({ entities })),
    jobs: new AuthorizedJobService(new DefaultJobService(deps)),
    tests: new AuthorizedTestService(new DefaultTestService({ db: deps.db, log: deps.log, entities })),
    tokens: new AuthorizedTokenService(tokens),
    search: new AuthorizedSearchService(
      new DefaultSearchService({ db: deps.db, registryEpoch: deps.registryEpoch, engine: deps.searchEngine ?? null, disabledReason: deps.searchDisabledReason, entities, registryRecheckMs: deps.searchRegistryRecheckMs ?? 0, audit }),
    ),
    signIn: deps.signIn ? new SignInService({ ...deps.signIn, tokens, log: deps.log }) : null,
  };
}
