/**
 * Authorization as a wrapper around each service (docs/style.md, Backstage's Authorized*
 * services): `AuthorizedXService` implements `XService` by checking the caller's scope
 * against the method's rule in policies.ts, then, where the policies refine it per
 * entity (docs/security.md, "Policies"), whether they let the caller read the entities
 * asked about (or use a platform privilege), then calling the wrapped service. Handlers
 * and resolvers hold no permission logic; a method missing here or in the policy does
 * not compile. Services call each other unwrapped, so their internal calls are not
 * checked again. Writes are judged inside the one write entry point; searches apply
 * what a caller may read inside the engine's query (searchService.ts).
 */
import { scopeAllows } from '../domain/accessToken.js';
import { ForbiddenError } from '../domain/errors.js';
import type { Privilege } from '../domain/policies/privileges.js';
import type { EntityTypeInfo } from '../domain/registry/entityTypes.js';
import { parseUrn, parseUrnOfType, type Urn } from '../domain/urn.js';
import type { AccessPolicies } from './accessPolicies.js';
import type { AccessService } from './accessService.js';
import type { Caller, Scope } from './caller.js';
import type { BackupService } from './backupService.js';
import type { BulkEditService } from './bulkEditService.js';
import type { ComplianceService } from './complianceService.js';
import type { EntityService } from './entityService.js';
import type { HistoryService } from './historyService.js';
import type { JobService } from './jobs/jobService.js';
import { accessPolicy, backupPolicy, bulkEditPolicy, valueImportPolicy, compliancePolicy, entityPolicy, historyPolicy, jobPolicy, policyPolicy, propertyPolicy, searchPolicy, testPolicy, tokenPolicy, valuePolicy } from './policies.js';
import type { PolicyService } from './policyService.js';
import type { PropertyService } from './propertyService.js';
import type { SearchService } from './searchService.js';
import type { TestService } from './testService.js';
import type { TokenService } from './tokenService.js';
import type { ValueImportService } from './valueImportService.js';
import type { ValueService } from './valueService.js';
import type { WriteService } from './writes/writeService.js';

const urnOf = (value: string, type?: EntityTypeInfo): Urn => (type ? parseUrnOfType(value, type) : parseUrn(value));

abstract class Authorized<S> {
  constructor(
    protected readonly inner: S,
    private readonly name: string,
    /** The policies in force; absent (the wrappers' own unit tests), the scopes alone decide. */
    protected readonly access?: AccessPolicies,
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

  /**
   * Resolves when the policies let the caller read every one of the entities (else a
   * refusal naming the first it may not). The URNs are parsed here, so that one that does
   * not parse rejects the call as the wrapped service's own parsing would.
   */
  protected async readAllowed(caller: Caller, urns: () => readonly Urn[]): Promise<void> {
    const parsed = urns();
    await this.access?.requireRead(caller, parsed);
  }

  /** The URNs among `urns` the caller may read. */
  protected async readableOf(caller: Caller, urns: readonly Urn[]): Promise<Set<string>> {
    return this.access ? this.access.readable(caller, urns) : new Set(urns.map((u) => u.value));
  }

  /** Resolves when a policy grants the caller the platform privilege. */
  protected async granted(caller: Caller, privilege: Privilege, what: string): Promise<void> {
    await this.access?.requirePlatform(caller, privilege, what);
  }
}

const E = entityPolicy;
export class AuthorizedEntityService extends Authorized<EntityService> implements EntityService {
  constructor(inner: EntityService, access?: AccessPolicies) {
    super(inner, 'entities', access);
  }
  getEntity: EntityService['getEntity'] = (caller, urn, options) => {
    const inner = this.allowed(caller, 'getEntity', E.getEntity);
    return this.readAllowed(caller, () => [urnOf(urn, options?.entityType)]).then(() => inner.getEntity(caller, urn, options));
  };
  getAspect: EntityService['getAspect'] = (caller, urn, aspect, type) => {
    const inner = this.allowed(caller, 'getAspect', E.getAspect);
    return this.readAllowed(caller, () => [urnOf(urn, type)]).then(() => inner.getAspect(caller, urn, aspect, type));
  };
  /** A page of a type the search engine does not index: the entities the caller may not read are left out of it. */
  listEntities: EntityService['listEntities'] = (caller, ...rest) => {
    const inner = this.allowed(caller, 'listEntities', E.listEntities);
    return inner.listEntities(caller, ...rest).then(async (page) => {
      const shown = await this.readableOf(caller, page.entities.map((e) => parseUrn(e.urn)));
      return { ...page, entities: page.entities.filter((e) => shown.has(e.urn)) };
    });
  };
  exists: EntityService['exists'] = (...args) => this.inner.exists(...args);
  existing: EntityService['existing'] = (...args) => this.inner.existing(...args);
  readEntities: EntityService['readEntities'] = (...args) => this.inner.readEntities(...args);
  batchGet: EntityService['batchGet'] = (caller, type, items) => {
    const inner = this.allowed(caller, 'batchGet', E.batchGet);
    return this.readAllowed(caller, () => items.map((i) => urnOf(i.urn, type))).then(() => inner.batchGet(caller, type, items));
  };
  traceWrites: EntityService['traceWrites'] = (caller, traceId, asked) => {
    const inner = this.allowed(caller, 'traceWrites', E.traceWrites);
    return this.readAllowed(caller, () => [...asked.keys()].map((u) => parseUrn(u))).then(() => inner.traceWrites(caller, traceId, asked));
  };
  references: EntityService['references'] = (caller, urn) => {
    const inner = this.allowed(caller, 'references', E.references);
    return this.readAllowed(caller, () => [parseUrn(urn)]).then(async () => {
      const found = await inner.references(caller, urn);
      const shown = await this.readableOf(caller, found.map((r) => parseUrn(r.entity)));
      return found.filter((r) => shown.has(r.entity));
    });
  };
  removeReferences: EntityService['removeReferences'] = (caller, ...rest) => this.allowed(caller, 'removeReferences', E.removeReferences).removeReferences(caller, ...rest);
  previewDelete: EntityService['previewDelete'] = (caller, urn, options) => {
    const inner = this.allowed(caller, 'previewDelete', E.previewDelete);
    return this.readAllowed(caller, () => [urnOf(urn, options?.entityType)]).then(() => inner.previewDelete(caller, urn, options));
  };
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
  constructor(inner: PropertyService, access?: AccessPolicies) {
    super(inner, 'properties', access);
  }
  get: PropertyService['get'] = (caller, urn) => {
    const inner = this.allowed(caller, 'get', P.get);
    return this.readAllowed(caller, () => [parseUrn(urn)]).then(() => inner.get(caller, urn));
  };
  getMany: PropertyService['getMany'] = (...args) => this.inner.getMany(...args);
  audits: PropertyService['audits'] = (...args) => this.inner.audits(...args);
  create: PropertyService['create'] = (caller, ...rest) => this.allowed(caller, 'create', P.create).create(caller, ...rest);
  replace: PropertyService['replace'] = (caller, ...rest) => this.allowed(caller, 'replace', P.replace).replace(caller, ...rest);
  update: PropertyService['update'] = (caller, ...rest) => this.allowed(caller, 'update', P.update).update(caller, ...rest);
  softDelete: PropertyService['softDelete'] = (caller, ...rest) => this.allowed(caller, 'softDelete', P.softDelete).softDelete(caller, ...rest);
  restore: PropertyService['restore'] = (caller, ...rest) => this.allowed(caller, 'restore', P.restore).restore(caller, ...rest);
  history: PropertyService['history'] = (caller, urn, limit) => {
    const inner = this.allowed(caller, 'history', P.history);
    return this.readAllowed(caller, () => [parseUrn(urn)]).then(() => inner.history(caller, urn, limit));
  };
  delete: PropertyService['delete'] = (caller, ...rest) => this.allowed(caller, 'delete', P.delete).delete(caller, ...rest);
  previewReplace: PropertyService['previewReplace'] = (caller, ...rest) => this.allowed(caller, 'previewReplace', P.previewReplace).previewReplace(caller, ...rest);
}

export class AuthorizedValueService extends Authorized<ValueService> implements ValueService {
  constructor(inner: ValueService, access?: AccessPolicies) {
    super(inner, 'values', access);
  }
  upsert: ValueService['upsert'] = (caller, ...rest) => this.allowed(caller, 'upsert', valuePolicy.upsert).upsert(caller, ...rest);
  remove: ValueService['remove'] = (caller, ...rest) => this.allowed(caller, 'remove', valuePolicy.remove).remove(caller, ...rest);
  get: ValueService['get'] = (caller, urn) => {
    const inner = this.allowed(caller, 'get', valuePolicy.get);
    return this.readAllowed(caller, () => [parseUrn(urn)]).then(() => inner.get(caller, urn));
  };
}

export class AuthorizedHistoryService extends Authorized<HistoryService> implements HistoryService {
  constructor(inner: HistoryService, access?: AccessPolicies) {
    super(inner, 'history', access);
  }
  aspectVersion: HistoryService['aspectVersion'] = (caller, urn, aspect, version, type) => {
    const inner = this.allowed(caller, 'aspectVersion', historyPolicy.aspectVersion);
    return this.readAllowed(caller, () => [urnOf(urn, type)]).then(() => inner.aspectVersion(caller, urn, aspect, version, type));
  };
  /**
   * An entity's history needs it readable; a property's history across entities shows the
   * entities the caller may read, and the property's lifecycle when they may read the property.
   */
  valueHistory: HistoryService['valueHistory'] = (caller, query) => {
    const inner = this.allowed(caller, 'valueHistory', historyPolicy.valueHistory);
    return this.readAllowed(caller, () => query.urn ? [parseUrn(query.urn)] : []).then(async () => {
      const page = await inner.valueHistory(caller, query);
      const shown = await this.readableOf(caller, [...new Set([...page.entries, ...page.events].map((e) => e.urn))].map((u) => parseUrn(u)));
      return { ...page, entries: page.entries.filter((e) => shown.has(e.urn)), events: page.events.filter((e) => shown.has(e.urn)) };
    });
  };
}

export class AuthorizedValueImportService extends Authorized<ValueImportService> implements ValueImportService {
  constructor(inner: ValueImportService) {
    super(inner, 'valueImports');
  }
  importValues: ValueImportService['importValues'] = (caller, ...rest) => this.allowed(caller, 'importValues', valueImportPolicy.importValues).importValues(caller, ...rest);
}

export class AuthorizedBulkEditService extends Authorized<BulkEditService> implements BulkEditService {
  constructor(inner: BulkEditService, access?: AccessPolicies) {
    super(inner, 'bulkEdits', access);
  }
  /** Starting one needs BULK_EDIT; each entity is then judged as a value write by its author (EDIT_ENTITY_PROPERTIES). */
  edit: BulkEditService['edit'] = (caller, ...rest) => {
    const inner = this.allowed(caller, 'edit', bulkEditPolicy.edit);
    return this.granted(caller, 'BULK_EDIT', 'Starting a bulk edit').then(() => inner.edit(caller, ...rest));
  };
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
  constructor(inner: TestService, access?: AccessPolicies) {
    super(inner, 'tests', access);
  }
  createTest: TestService['createTest'] = (caller, ...rest) => this.allowed(caller, 'createTest', T.createTest).createTest(caller, ...rest);
  updateTest: TestService['updateTest'] = (caller, ...rest) => this.allowed(caller, 'updateTest', T.updateTest).updateTest(caller, ...rest);
  deleteTest: TestService['deleteTest'] = (caller, ...rest) => this.allowed(caller, 'deleteTest', T.deleteTest).deleteTest(caller, ...rest);
  getTest: TestService['getTest'] = (caller, ...rest) => this.allowed(caller, 'getTest', T.getTest).getTest(caller, ...rest);
  getTests: TestService['getTests'] = (caller, ...rest) => this.allowed(caller, 'getTests', T.getTests).getTests(caller, ...rest);
  listTests: TestService['listTests'] = (caller, ...rest) => this.allowed(caller, 'listTests', T.listTests).listTests(caller, ...rest);
  validateTest: TestService['validateTest'] = (...args) => this.inner.validateTest(...args);
  getTestResults: TestService['getTestResults'] = (caller, urn) => {
    const inner = this.allowed(caller, 'getTestResults', T.getTestResults);
    return this.readAllowed(caller, () => [parseUrn(urn)]).then(() => inner.getTestResults(caller, urn));
  };
  evaluate: TestService['evaluate'] = (caller, input, ...rest) => this.allowed(caller, 'evaluate', T.evaluate(caller, input)).evaluate(caller, input, ...rest);
  batchEvaluate: TestService['batchEvaluate'] = (caller, input, ...rest) =>
    this.allowed(caller, 'batchEvaluate', T.batchEvaluate(caller, input)).batchEvaluate(caller, input, ...rest);
}

/** Token management beyond one's own (machine tokens, every token) needs MANAGE_ACCESS_TOKENS besides admin scope. */
export class AuthorizedTokenService extends Authorized<TokenService> implements TokenService {
  constructor(inner: TokenService, access?: AccessPolicies) {
    super(inner, 'tokens', access);
  }
  create: TokenService['create'] = (caller, input) => {
    const need = tokenPolicy.create(caller, input);
    const inner = this.allowed(caller, 'create', need);
    return this.managing(caller, need, 'Issuing a machine token').then(() => inner.create(caller, input));
  };
  list: TokenService['list'] = (caller) => {
    const need = tokenPolicy.list(caller);
    const inner = this.allowed(caller, 'list', need);
    return this.managing(caller, need, 'Listing every token').then(() => inner.list(caller));
  };
  revoke: TokenService['revoke'] = (caller, id) => {
    const need = tokenPolicy.revoke(caller);
    const inner = this.allowed(caller, 'revoke', need);
    return this.managing(caller, need, 'Revoking a token').then(() => inner.revoke(caller, id));
  };
  authenticate: TokenService['authenticate'] = (...args) => this.inner.authenticate(...args);
  verifiedBefore: TokenService['verifiedBefore'] = (...args) => this.inner.verifiedBefore(...args);
  ensureRootToken: TokenService['ensureRootToken'] = (...args) => this.inner.ensureRootToken(...args);

  private async managing(caller: Caller, need: Scope, what: string): Promise<void> {
    if (need === 'admin') await this.granted(caller, 'MANAGE_ACCESS_TOKENS', what);
  }
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
  constructor(inner: ComplianceService, access?: AccessPolicies) {
    super(inner, 'compliance', access);
  }
  report: ComplianceService['report'] = (caller, ...rest) => this.allowed(caller, 'report', C.report).report(caller, ...rest);
  failing: ComplianceService['failing'] = (caller, ...rest) => this.allowed(caller, 'failing', C.failing).failing(caller, ...rest);
  explain: ComplianceService['explain'] = (caller, input) => {
    const inner = this.allowed(caller, 'explain', C.explain);
    return this.readAllowed(caller, () => [parseUrn(input.entity)]).then(() => inner.explain(caller, input));
  };
  run: ComplianceService['run'] = (caller, ...rest) => this.allowed(caller, 'run', C.run).run(caller, ...rest);
}

export class AuthorizedPolicyService extends Authorized<PolicyService> implements PolicyService {
  constructor(inner: PolicyService, access?: AccessPolicies) {
    super(inner, 'policies', access);
  }
  list: PolicyService['list'] = (caller, ...rest) => this.allowed(caller, 'list', policyPolicy.list).list(caller, ...rest);
  get: PolicyService['get'] = (caller, ...rest) => this.allowed(caller, 'get', policyPolicy.get).get(caller, ...rest);
  create: PolicyService['create'] = (caller, ...rest) => this.decidedInside(caller, 'create').create(caller, ...rest);
  update: PolicyService['update'] = (caller, ...rest) => this.decidedInside(caller, 'update').update(caller, ...rest);
  delete: PolicyService['delete'] = (caller, ...rest) => this.decidedInside(caller, 'delete').delete(caller, ...rest);
  apply: PolicyService['apply'] = (caller, ...rest) => this.decidedInside(caller, 'apply').apply(caller, ...rest);
}

export class AuthorizedAccessService extends Authorized<AccessService> implements AccessService {
  constructor(inner: AccessService, access?: AccessPolicies) {
    super(inner, 'access', access);
  }
  explain: AccessService['explain'] = (caller, ...rest) => this.allowed(caller, 'explain', accessPolicy.explain).explain(caller, ...rest);
  whoCould: AccessService['whoCould'] = (caller, ...rest) => this.allowed(caller, 'whoCould', accessPolicy.whoCould).whoCould(caller, ...rest);
  privileges: AccessService['privileges'] = (caller) => this.allowed(caller, 'privileges', accessPolicy.privileges).privileges(caller);
  entityPrivileges: AccessService['entityPrivileges'] = (caller, ...rest) => this.allowed(caller, 'entityPrivileges', accessPolicy.entityPrivileges).entityPrivileges(caller, ...rest);
  readable: AccessService['readable'] = (caller, ...rest) => this.allowed(caller, 'readable', accessPolicy.readable).readable(caller, ...rest);
  requireRead: AccessService['requireRead'] = (caller, ...rest) => this.allowed(caller, 'requireRead', accessPolicy.requireRead).requireRead(caller, ...rest);
}
