/**
 * Who may do what (SPEC 10, issue #5): `read` for queries and GETs, `write` for
 * definitions and values, `admin` for tokens, metadata-test management, hard deletes
 * (of an entity or a definition, whatever the route) and system updates.
 */
import { tryParseUrn } from '../domain/urn.js';
import type { Scope } from './caller.js';
import type { Policy } from './authorization.js';
import type { EntityService } from './entityService.js';
import type { JobService } from './jobs/jobService.js';
import type { PropertyService } from './propertyService.js';
import type { SearchService } from './searchService.js';
import type { TestService } from './testService.js';
import type { TokenService } from './tokenService.js';
import type { ValueService } from './valueService.js';

/** Writing to a metadata test (any of its aspects) is test management: admin. */
function aspectWriteScope(urn: string): Scope {
  const parsed = tryParseUrn(urn);
  return parsed.ok && parsed.urn.entityType.name === 'test' ? 'admin' : 'write';
}

/** Aspects whose removal removes a definition, by entity type. */
const DEFINITION_ASPECTS: ReadonlyMap<string, string> = new Map([['structuredProperty', 'propertyDefinition'], ['test', 'testInfo']]);

/**
 * Deleting an aspect edits the entity (write), unless it ends in a removal: deleting
 * the key aspect hard-deletes the entity (a dataset with its fields), and deleting a
 * property's propertyDefinition drops it from the registry and queues the removal of
 * its values. Those need admin on every route, as deleting the entity does (SPEC 5, 12).
 * An unparseable urn is refused by the service itself.
 */
function aspectDeleteScope(urn: string, aspect: string): Scope {
  const parsed = tryParseUrn(urn);
  if (!parsed.ok) return 'write';
  const type = parsed.urn.entityType;
  return aspect === type.keyAspect || DEFINITION_ASPECTS.get(type.name) === aspect ? 'admin' : aspectWriteScope(urn);
}

export const entityPolicy: Policy<EntityService> = {
  getEntity: 'read',
  getAspect: 'read',
  listEntities: 'read',
  exists: 'unchecked',
  existing: 'unchecked',
  readEntities: 'unchecked',
  setAspect: (_caller, urn) => aspectWriteScope(urn),
  patchAspect: (_caller, urn) => aspectWriteScope(urn),
  updateAspect: (_caller, urn) => aspectWriteScope(urn),
  writeAspects: (_caller, urn) => aspectWriteScope(urn),
  batchUpsert: (_caller, entityType) => (entityType.name === 'test' ? 'admin' : 'write'),
  batchPatch: (_caller, entityType) => (entityType.name === 'test' ? 'admin' : 'write'),
  batchGet: 'read',
  traceWrites: 'read',
  deleteEntity: 'admin',
  references: 'read',
  // Each removal is an edit of the referring entity's aspect, as a REST write of it is.
  removeReferences: 'write',
  deleteAspect: (_caller, urn, aspect) => aspectDeleteScope(urn, aspect),
};

export const propertyPolicy: Policy<PropertyService> = {
  get: 'read',
  getMany: 'unchecked',
  audit: 'unchecked',
  create: 'write',
  update: 'write',
  replace: 'write',
  // As a REST write of the property's status aspect.
  softDelete: 'write',
  restore: 'write',
  history: 'read',
  delete: 'admin',
};

export const valuePolicy: Policy<ValueService> = {
  upsert: 'write',
  remove: 'write',
  get: 'read',
};

export const jobPolicy: Policy<JobService> = {
  list: 'read',
  get: 'read',
  counts: 'unchecked',
};

export const testPolicy: Policy<TestService> = {
  createTest: 'admin',
  updateTest: 'admin',
  deleteTest: 'admin',
  getTest: 'read',
  getTests: 'read',
  listTests: 'read',
  validateTest: 'unchecked',
  getTestResults: 'read',
  evaluate: (_caller, input) => (input.push ? 'write' : 'read'),
  batchEvaluate: (_caller, input) => (input.push ? 'write' : 'read'),
};

export const tokenPolicy: Policy<TokenService> = {
  create: 'admin',
  list: 'admin',
  revoke: 'admin',
  authenticate: 'unchecked',
  ensureRootToken: 'unchecked',
};

export const searchPolicy: Policy<SearchService> = {
  scroll: 'read',
  aggregate: 'read',
  searchEntities: 'read',
  requestRebuild: 'admin',
};
