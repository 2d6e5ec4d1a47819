/**
 * Who may do what (docs/contract.md §10, issue #5): `read` for queries and GETs, `write` for
 * definitions and values, `admin` for tokens, metadata-test management, hard deletes
 * (of an entity or a definition, whatever the route) and system updates. One rule per
 * service method, applied by the wrappers in authorizedServices.ts and read by
 * privileges.ts, so what clients are shown is what the services accept.
 */
import { tryParseUrn } from '../domain/urn.js';
import { isPerson, type Scope } from './caller.js';
import type { BulkEditService } from './bulkEditService.js';
import type { ComplianceService } from './complianceService.js';
import type { EntityService } from './entityService.js';
import type { BackupService } from './backupService.js';
import type { HistoryService } from './historyService.js';
import type { JobService } from './jobs/jobService.js';
import type { PropertyService } from './propertyService.js';
import type { SearchService } from './searchService.js';
import type { TestService } from './testService.js';
import type { TokenService } from './tokenService.js';
import type { ValueImportService } from './valueImportService.js';
import type { ValueService } from './valueService.js';

type AnyFunction = (...args: never[]) => unknown;
type MethodKeys<S> = { [K in keyof S]: S[K] extends AnyFunction ? K : never }[keyof S];

/**
 * A method's rule: the scope it needs (its first argument is the Caller), a function of
 * its arguments giving that scope, or 'unchecked' for helpers that take no caller and
 * only read (they are reachable only from already-authorized requests). Every method of
 * a service has one, or its policy does not compile.
 */
export type Rule<F> = Scope | 'unchecked' | (F extends (...args: infer A) => unknown ? (...args: A) => Scope : never);
export type Policy<S> = { readonly [K in MethodKeys<S>]: Rule<S[K]> };

/** Writing to a metadata test (any of its aspects) is test management: admin. */
function aspectWriteScope(urn: string): Scope {
  const parsed = tryParseUrn(urn);
  return parsed.ok && parsed.urn.entityType.adminWrites ? 'admin' : 'write';
}

/**
 * Deleting an aspect edits the entity (write), unless it ends in a removal: deleting
 * the key aspect hard-deletes the entity (a dataset with its fields), and deleting a
 * property's propertyDefinition drops it from the registry and queues the removal of
 * its values. Those need admin on every route, as deleting the entity does (docs/contract.md §5, §12).
 * An unparseable urn is refused by the service itself.
 */
function aspectDeleteScope(urn: string, aspect: string): Scope {
  const parsed = tryParseUrn(urn);
  if (!parsed.ok) return 'write';
  const type = parsed.urn.entityType;
  return aspect === type.keyAspect || type.definitionAspect === aspect ? 'admin' : aspectWriteScope(urn);
}

export const entityPolicy = {
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
  updateAspects: (_caller, _aspect, updates) => (updates.some((u) => aspectWriteScope(u.urn) === 'admin') ? 'admin' : 'write'),
  batchUpsert: (_caller, entityType) => (entityType.adminWrites ? 'admin' : 'write'),
  batchPatch: (_caller, entityType) => (entityType.adminWrites ? 'admin' : 'write'),
  batchGet: 'read',
  traceWrites: 'read',
  deleteEntity: 'admin',
  references: 'read',
  // Each removal is an edit of the referring entity's aspect, as a REST write of it is.
  removeReferences: 'write',
  deleteAspect: (_caller, urn, aspect) => aspectDeleteScope(urn, aspect),
  // Asks about another method's rule (authorizedServices.ts applies that rule).
  authorize: 'unchecked',
  // Asking what a write would drop needs what the write needs; what a delete would remove is a count anyone who reads may see.
  previewWrite: (_caller, urn) => aspectWriteScope(urn),
  previewDelete: 'read',
} as const satisfies Policy<EntityService>;

// What the write path finds only once it decides a write has its rule beside it (writePolicy.ts).
export { destructiveWritePolicy } from './writePolicy.js';

export const propertyPolicy = {
  get: 'read',
  getMany: 'unchecked',
  audit: 'unchecked',
  create: 'write',
  update: 'write',
  replace: 'write',
  // As the REST dry run of a definition write.
  previewReplace: 'write',
  // As a REST write of the property's status aspect.
  softDelete: 'write',
  restore: 'write',
  history: 'read',
  delete: 'admin',
} as const satisfies Policy<PropertyService>;

export const valuePolicy = {
  upsert: 'write',
  remove: 'write',
  get: 'read',
} as const satisfies Policy<ValueService>;

export const backupPolicy = {
  start: 'admin',
} as const satisfies Policy<BackupService>;
export const historyPolicy = {
  aspectVersion: 'read',
  valueHistory: 'read',
} as const satisfies Policy<HistoryService>;

// A value import writes values, as value upserts do.
export const valueImportPolicy = {
  importValues: 'write',
} as const satisfies Policy<ValueImportService>;

// A bulk edit writes values, entity by entity, as value upserts do.
export const bulkEditPolicy = {
  edit: 'write',
} as const satisfies Policy<BulkEditService>;

export const jobPolicy = {
  list: 'read',
  get: 'read',
} as const satisfies Policy<JobService>;

export const testPolicy = {
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
} as const satisfies Policy<TestService>;

/**
 * Tokens are admin business, except that a signed-in person (issue #30) manages their
 * own: issues personal tokens (up to their own scope, checked by the service), lists
 * and revokes theirs. An admin person may still issue machine tokens.
 */
export const tokenPolicy = {
  create: (caller, input) => (isPerson(caller) && String(input.type ?? 'personal').toLowerCase() !== 'machine' ? 'read' : 'admin'),
  list: (caller) => (isPerson(caller) ? 'read' : 'admin'),
  revoke: (caller) => (isPerson(caller) ? 'read' : 'admin'),
  authenticate: 'unchecked',
  verifiedBefore: 'unchecked',
  ensureRootToken: 'unchecked',
} as const satisfies Policy<TokenService>;

export const searchPolicy = {
  scroll: 'read',
  aggregate: 'read',
  searchEntities: 'read',
  scrollEntities: 'read',
  search: 'read',
  requestRebuild: 'admin',
} as const satisfies Policy<SearchService>;

/** Reading the compliance view is reading; a run writes results, as an evaluate with push does. */
export const compliancePolicy = {
  report: 'read',
  failing: 'read',
  explain: 'read',
  run: 'write',
} as const satisfies Policy<ComplianceService>;
