/** The services of one server process, built once over its database and search engine. */
import type { Db } from '../store/database.js';
import type { Logger } from '../logger.js';
import { EntityService } from './entityService.js';
import type { IndexWaiter } from './indexWaiter.js';
import { JobService } from './jobs/jobService.js';
import { PropertyService } from './propertyService.js';
import { TestService } from './testService.js';
import { ValueService } from './valueService.js';

export interface Services {
  readonly entities: EntityService;
  readonly properties: PropertyService;
  readonly values: ValueService;
  readonly jobs: JobService;
  readonly tests: TestService;
}

export interface ServiceDeps {
  readonly db: Db;
  readonly log: Logger;
  readonly indexWaiter: IndexWaiter;
}

export function createServices(deps: ServiceDeps): Services {
  const entities = new EntityService(deps);
  return {
    entities,
    properties: new PropertyService({ db: deps.db, entities }),
    values: new ValueService({ entities }),
    jobs: new JobService(deps),
    tests: new TestService({ db: deps.db, log: deps.log, entities }),
  };
}
