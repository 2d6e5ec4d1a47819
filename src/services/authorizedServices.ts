/**
 * Authorization as a wrapper around each service (docs/style.md, Backstage's Authorized*
 * services): `AuthorizedXService` implements `XService` by checking the caller's scope
 * against the method's rule in policies.ts, then calling the wrapped service. Handlers
 * and resolvers hold no permission logic; a method missing here or in the policy does
 * not compile. Services call each other unwrapped, so their internal calls are not
 * checked again.
 */
import { scopeAllows } from '../domain/accessToken.js';
import { ForbiddenError } from '../domain/errors.js';
import type { Caller, Scope } from './caller.js';
import type { BackupService } from './backupService.js';
import type { BulkEditService } from './bulkEditService.js';
import type { ComplianceService } from './complianceService.js';
import type { EntityService } from './entityService.js';
import type { HistoryService } from './historyService.js';
import type { JobService } from './jobs/jobService.js';
import { backupPolicy, bulkEditPolicy, valueImportPolicy, compliancePolicy, entityPolicy, historyPolicy, jobPolicy, propertyPolicy, searchPolicy, testPolicy, tokenPolicy, valuePolicy } from './policies.js';
import type { PropertyService } from './propertyService.js';
import type { SearchService } from './searchService.js';
import type { TestService } from './testService.js';
import type { TokenService } from './tokenService.js';
import type { ValueImportService } from './valueImportService.js';
import type { ValueService } from './valueService.js';
import type { WriteService } from './writes/writeService.js';

abstract class Authorized<S> {
  constructor(
    protected readonly inner: S,
    private readonly name: string,
  ) {}

  /** The wrapped service, once `caller` may call `method`, which needs `need`. */
  protected allowed(caller: Caller, method: string, need: Scope): S {
    if (!caller || typeof caller.scope !== 'string') throw new Error(`${this.name}.${method} called without a caller`);
    if (!scopeAllows(caller.scope, need)) {
      throw new ForbiddenError(`${this.name}.${method} needs a token with ${need} scope; this token has ${caller.scope} scope`);
    }
    return this.inner;
  }

  /** The wrapped service, for a method whose rule is 'in-write-path': the write entry point decides, entity by entity. */
  protected decidedInside(caller: Caller, method: string): S {
    if (!caller || typeof caller.scope !== 'string') throw new Error(`${this.name}.${method} called without a caller`);
    return this.inner;
  }
}

const E = entityPolicy;
export class AuthorizedEntityService extends Authorized<EntityService> implements EntityService {
  constructor(inner: EntityService) {
    super(inner, 'entities');
  }
  getEntity: EntityService['getEntity'] = (caller, ...rest) => this.allowed(caller, 'getEntity', E.getEntity).getEntity(caller, ...rest);
  getAspect: EntityService['getAspect'] = (caller, ...rest) => this.allowed(caller, 'getAspect', E.getAspect).getAspect(caller, ...rest);
  listEntities: EntityService['listEntities'] = (caller, ...rest) => this.allowed(caller, 'listEntities', E.listEntities).listEntities(caller, ...rest);
  exists: EntityService['exists'] = (...args) => this.inner.exists(...args);
  existing: EntityService['existing'] = (...args) => this.inner.existing(...args);
  readEntities: EntityService['readEntities'] = (...args) => this.inner.readEntities(...args);
  batchGet: EntityService['batchGet'] = (caller, ...rest) => this.allowed(caller, 'batchGet', E.batchGet).batchGet(caller, ...rest);
  traceWrites: EntityService['traceWrites'] = (caller, ...rest) => this.allowed(caller, 'traceWrites', E.traceWrites).traceWrites(caller, ...rest);
  references: EntityService['references'] = (caller, ...rest) => this.allowed(caller, 'references', E.references).references(caller, ...rest);
  removeReferences: EntityService['removeReferences'] = (caller, ...rest) => this.allowed(caller, 'removeReferences', E.removeReferences).removeReferences(caller, ...rest);
  previewDelete: EntityService['previewDelete'] = (caller, ...rest) => this.allowed(caller, 'previewDelete', E.previewDelete).previewDelete(caller, ...rest);
}

/** The write entry point decides every entity itself (writes/writeGate.ts); the wrapper only checks there is a caller. */
export class AuthorizedWriteService extends Authorized<WriteService> implements WriteService {
  constructor(inner: WriteService) {
    super(inner, 'writes');
  }
  submit: WriteService['submit'] = (caller, ...rest) => this.decidedInside(caller, 'submit').submit(caller, ...rest);
  preview: WriteService['preview'] = (caller, ...rest) => this.decidedInside(caller, 'preview').preview(caller, ...rest);
}

const P = propertyPolicy;
export class AuthorizedPropertyService extends Authorized<PropertyService> implements PropertyService {
  constructor(inner: PropertyService) {
    super(inner, 'properties');
  }
  get: PropertyService['get'] = (caller, ...rest) => this.allowed(caller, 'get', P.get).get(caller, ...rest);
  getMany: PropertyService['getMany'] = (...args) => this.inner.getMany(...args);
  audit: PropertyService['audit'] = (...args) => this.inner.audit(...args);
  create: PropertyService['create'] = (caller, ...rest) => this.allowed(caller, 'create', P.create).create(caller, ...rest);
  replace: PropertyService['replace'] = (caller, ...rest) => this.allowed(caller, 'replace', P.replace).replace(caller, ...rest);
  update: PropertyService['update'] = (caller, ...rest) => this.allowed(caller, 'update', P.update).update(caller, ...rest);
  softDelete: PropertyService['softDelete'] = (caller, ...rest) => this.allowed(caller, 'softDelete', P.softDelete).softDelete(caller, ...rest);
  restore: PropertyService['restore'] = (caller, ...rest) => this.allowed(caller, 'restore', P.restore).restore(caller, ...rest);
  history: PropertyService['history'] = (caller, ...rest) => this.allowed(caller, 'history', P.history).history(caller, ...rest);
  delete: PropertyService['delete'] = (caller, ...rest) => this.allowed(caller, 'delete', P.delete).delete(caller, ...rest);
  previewReplace: PropertyService['previewReplace'] = (caller, ...rest) => this.allowed(caller, 'previewReplace', P.previewReplace).previewReplace(caller, ...rest);
}

export class AuthorizedValueService extends Authorized<ValueService> implements ValueService {
  constructor(inner: ValueService) {
    super(inner, 'values');
  }
  upsert: ValueService['upsert'] = (caller, ...rest) => this.allowed(caller, 'upsert', valuePolicy.upsert).upsert(caller, ...rest);
  remove: ValueService['remove'] = (caller, ...rest) => this.allowed(caller, 'remove', valuePolicy.remove).remove(caller, ...rest);
  get: ValueService['get'] = (caller, ...rest) => this.allowed(caller, 'get', valuePolicy.get).get(caller, ...rest);
}

export class AuthorizedHistoryService extends Authorized<HistoryService> implements HistoryService {
  constructor(inner: HistoryService) {
    super(inner, 'history');
  }
  aspectVersion: HistoryService['aspectVersion'] = (caller, ...rest) => this.allowed(caller, 'aspectVersion', historyPolicy.aspectVersion).aspectVersion(caller, ...rest);
  valueHistory: HistoryService['valueHistory'] = (caller, ...rest) => this.allowed(caller, 'valueHistory', historyPolicy.valueHistory).valueHistory(caller, ...rest);
}

export class AuthorizedValueImportService extends Authorized<ValueImportService> implements ValueImportService {
  constructor(inner: ValueImportService) {
    super(inner, 'valueImports');
  }
  importValues: ValueImportService['importValues'] = (caller, ...rest) => this.allowed(caller, 'importValues', valueImportPolicy.importValues).importValues(caller, ...rest);
}

export class AuthorizedBulkEditService extends Authorized<BulkEditService> implements BulkEditService {
  constructor(inner: BulkEditService) {
    super(inner, 'bulkEdits');
  }
  edit: BulkEditService['edit'] = (caller, ...rest) => this.allowed(caller, 'edit', bulkEditPolicy.edit).edit(caller, ...rest);
}

export class AuthorizedJobService extends Authorized<JobService> implements JobService {
  constructor(inner: JobService) {
    super(inner, 'jobs');
  }
  list: JobService['list'] = (caller, ...rest) => this.allowed(caller, 'list', jobPolicy.list).list(caller, ...rest);
  get: JobService['get'] = (caller, ...rest) => this.allowed(caller, 'get', jobPolicy.get).get(caller, ...rest);
}

const T = testPolicy;
export class AuthorizedTestService extends Authorized<TestService> implements TestService {
  constructor(inner: TestService) {
    super(inner, 'tests');
  }
  createTest: TestService['createTest'] = (caller, ...rest) => this.allowed(caller, 'createTest', T.createTest).createTest(caller, ...rest);
  updateTest: TestService['updateTest'] = (caller, ...rest) => this.allowed(caller, 'updateTest', T.updateTest).updateTest(caller, ...rest);
  deleteTest: TestService['deleteTest'] = (caller, ...rest) => this.allowed(caller, 'deleteTest', T.deleteTest).deleteTest(caller, ...rest);
  getTest: TestService['getTest'] = (caller, ...rest) => this.allowed(caller, 'getTest', T.getTest).getTest(caller, ...rest);
  getTests: TestService['getTests'] = (caller, ...rest) => this.allowed(caller, 'getTests', T.getTests).getTests(caller, ...rest);
  listTests: TestService['listTests'] = (caller, ...rest) => this.allowed(caller, 'listTests', T.listTests).listTests(caller, ...rest);
  validateTest: TestService['validateTest'] = (...args) => this.inner.validateTest(...args);
  getTestResults: TestService['getTestResults'] = (caller, ...rest) => this.allowed(caller, 'getTestResults', T.getTestResults).getTestResults(caller, ...rest);
  evaluate: TestService['evaluate'] = (caller, input, ...rest) => this.allowed(caller, 'evaluate', T.evaluate(caller, input)).evaluate(caller, input, ...rest);
  batchEvaluate: TestService['batchEvaluate'] = (caller, input, ...rest) =>
    this.allowed(caller, 'batchEvaluate', T.batchEvaluate(caller, input)).batchEvaluate(caller, input, ...rest);
}

export class AuthorizedTokenService extends Authorized<TokenService> implements TokenService {
  constructor(inner: TokenService) {
    super(inner, 'tokens');
  }
  create: TokenService['create'] = (caller, input) => this.allowed(caller, 'create', tokenPolicy.create(caller, input)).create(caller, input);
  list: TokenService['list'] = (caller) => this.allowed(caller, 'list', tokenPolicy.list(caller)).list(caller);
  revoke: TokenService['revoke'] = (caller, ...rest) => this.allowed(caller, 'revoke', tokenPolicy.revoke(caller)).revoke(caller, ...rest);
  authenticate: TokenService['authenticate'] = (...args) => this.inner.authenticate(...args);
  verifiedBefore: TokenService['verifiedBefore'] = (...args) => this.inner.verifiedBefore(...args);
  ensureRootToken: TokenService['ensureRootToken'] = (...args) => this.inner.ensureRootToken(...args);
}

export class AuthorizedSearchService extends Authorized<SearchService> implements SearchService {
  constructor(inner: SearchService) {
    super(inner, 'search');
  }
  get enabled(): boolean {
    return this.inner.enabled;
  }
  scroll: SearchService['scroll'] = (caller, ...rest) => this.allowed(caller, 'scroll', searchPolicy.scroll).scroll(caller, ...rest);
  aggregate: SearchService['aggregate'] = (caller, ...rest) => this.allowed(caller, 'aggregate', searchPolicy.aggregate).aggregate(caller, ...rest);
  searchEntities: SearchService['searchEntities'] = (caller, ...rest) => this.allowed(caller, 'searchEntities', searchPolicy.searchEntities).searchEntities(caller, ...rest);
  search: SearchService['search'] = (caller, ...rest) => this.allowed(caller, 'search', searchPolicy.search).search(caller, ...rest);
  scrollEntities: SearchService['scrollEntities'] = (caller, ...rest) => this.allowed(caller, 'scrollEntities', searchPolicy.scrollEntities).scrollEntities(caller, ...rest);
  requestRebuild: SearchService['requestRebuild'] = (caller, ...rest) => this.allowed(caller, 'requestRebuild', searchPolicy.requestRebuild).requestRebuild(caller, ...rest);
}

export class AuthorizedBackupService extends Authorized<BackupService> implements BackupService {
  constructor(inner: BackupService) {
    super(inner, 'backup');
  }
  start: BackupService['start'] = (caller, ...rest) => this.allowed(caller, 'start', backupPolicy.start).start(caller, ...rest);
}

const C = compliancePolicy;
export class AuthorizedComplianceService extends Authorized<ComplianceService> implements ComplianceService {
  constructor(inner: ComplianceService) {
    super(inner, 'compliance');
  }
  report: ComplianceService['report'] = (caller, ...rest) => this.allowed(caller, 'report', C.report).report(caller, ...rest);
  failing: ComplianceService['failing'] = (caller, ...rest) => this.allowed(caller, 'failing', C.failing).failing(caller, ...rest);
  explain: ComplianceService['explain'] = (caller, ...rest) => this.allowed(caller, 'explain', C.explain).explain(caller, ...rest);
  run: ComplianceService['run'] = (caller, ...rest) => this.allowed(caller, 'run', C.run).run(caller, ...rest);
}
