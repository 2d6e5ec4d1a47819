/**
 * Who may do what (docs/contract.md §10, issue #5): `read` for queries and GETs, `write` for
 * definitions and values, `admin` for tokens, metadata-test management, hard deletes
 * (of an entity or a definition, whatever the route) and system updates. One rule per
 * service method, applied by the wrappers in authorizedServices.ts and read by
 * privileges.ts, so what clients are shown is what the services accept.
 */
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
import type { WriteService } from './writes/writeService.js';
import type { PolicyService } from './policyService.js';
import type { AccessService } from './accessService.js';

type AnyFunction = (...args: never[]) => unknown;
type MethodKeys<S> = { [K in keyof S]: S[K] extends AnyFunction ? K : never }[keyof S];

/**
 * A method's rule: the scope it needs (its first argument is the Caller), a function of
 * its arguments giving that scope, 'unchecked' for helpers that take no caller and
 * only read (they are reachable only from already-authorized requests), or
 * 'in-write-path' for writes, which the one write entry point decides entity by entity
 * (writes/writeGate.ts). Every method of a service has one, or its policy does not compile.
 */
export type Rule<F> = Scope | 'unchecked' | 'in-write-path' | (F extends (...args: infer A) => unknown ? (...args: A) => Scope : never);
export type Policy<S> = { readonly [K in MethodKeys<S>]: Rule<S[K]> };

export const entityPolicy = {
  getEntity: 'read',
  getAspect: 'read',
  listEntities: 'read',
  exists: 'unchecked',
  existing: 'unchecked',
  readEntities: 'unchecked',
  batchGet: 'read',
  traceWrites: 'read',
  references: 'read',
  // Each removal is an edit of the referring entity's aspect, decided per entity in the write path too; asking for one is a write.
  removeReferences: 'write',
  // What a delete would remove is a count anyone who reads may see.
  previewDelete: 'read',
} as const satisfies Policy<EntityService>;

/** Every write is decided per entity, inside the one entry point (writes/writeGate.ts), whatever the interface. */
export const writePolicy = {
  submit: 'in-write-path',
  preview: 'in-write-path',
} as const satisfies Policy<WriteService>;

export const propertyPolicy = {
  get: 'read',
  getMany: 'unchecked',
  audits: 'unchecked',
  create: 'write',
  update: 'write',
  replace: 'write',
  // As a REST write of the property's status aspect.
  softDelete: 'write',
  restore: 'write',
  history: 'read',
  delete: 'admin',
  // Asking what a change would do needs what the change needs.
  previewReplace: 'write',
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

/** Reading policies is reading (each policy as an entity the caller may read); every change is a write, decided in the write path (MANAGE_POLICIES, admin). */
export const policyPolicy = {
  list: 'read',
  get: 'read',
  create: 'in-write-path',
  update: 'in-write-path',
  delete: 'in-write-path',
  apply: 'in-write-path',
} as const satisfies Policy<PolicyService>;

/** Asking what one may do is reading; asking about someone else needs MANAGE_POLICIES (checked by the service). */
export const accessPolicy = {
  explain: 'read',
  whoCould: 'read',
  privileges: 'read',
  entityPrivileges: 'read',
  readable: 'read',
  requireRead: 'read',
} as const satisfies Policy<AccessService>;
