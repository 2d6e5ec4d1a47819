/**
 * The services of one server process, built once over its database and search engine.
 * Internally the Default* implementations call each other directly; what the edges
 * (REST, GraphQL) receive is each one inside its Authorized* wrapper
 * (authorizedServices.ts).
 */
import type { UndefinedPropertyValues } from '../domain/structuredProperties.js';
import type { Db, SnapshotOpener } from '../store/database.js';
import type { EntityPageReader } from '../store/aspects.js';
import type { RegistryEpochReader } from '../store/propertyRegistry.js';
import type { UrnNamespace } from '../domain/typeUrns.js';
import type { Logger } from '../platform/logger.js';
import type { SearchEngine } from '../search/engine.js';
import {
  AuthorizedBackupService,
  AuthorizedBulkEditService,
  AuthorizedComplianceService,
  AuthorizedEntityService,
  AuthorizedHistoryService,
  AuthorizedJobService,
  AuthorizedPropertyService,
  AuthorizedSearchService,
  AuthorizedTestService,
  AuthorizedTokenService,
  AuthorizedValueImportService,
  AuthorizedValueService,
  AuthorizedWriteService,
  AuthorizedPolicyService,
  AuthorizedAccessService,
} from './authorizedServices.js';
import { DefaultPolicyService, type PolicyService } from './policyService.js';
import type { AccessService } from './accessService.js';
import { DefaultAccessService } from './defaultAccessService.js';
import { DefaultBackupService, type BackupService } from './backupService.js';
import { AuditTrail } from './audit.js';
import { DefaultBulkEditService, type BulkEditService } from './bulkEditService.js';
import { DefaultComplianceService, type ComplianceService } from './complianceService.js';
import { DefaultEntityService, type EntityService } from './entityService.js';
import { DefaultHistoryService, type HistoryService } from './historyService.js';
import type { IndexWaiter } from './indexWaiter.js';
import { LocalRegistryChanges } from './localRegistryChanges.js';
import { DefaultJobService, type JobService } from './jobs/jobService.js';
import { DefaultPropertyService, type PropertyService } from './propertyService.js';
import { DefaultSearchService, type SearchService } from './searchService.js';
import { DefaultTestService, type TestService } from './testService.js';
import { DefaultBrowserSessionService, type BrowserSessionService } from './browserSessions.js';
import { SignInService, type SignInDeps } from './signInService.js';
import { DefaultTokenService, type TokenService } from './tokenService.js';
import { DefaultValueImportService, type ValueImportService } from './valueImportService.js';
import { DefaultValueService, type ValueService } from './valueService.js';
import { DefaultWriteService, type WriteService } from './writes/writeService.js';
import { PolicyGate } from './writes/policyGate.js';
import type { AccessPolicies } from './accessPolicies.js';
import { AuthorizedViewService, DefaultViewService, type ViewService } from './viewService.js';
import { DataHubAppService } from './datahubAppService.js';
import { appStateGate } from './appStateWrites.js';
import { savedViewLister } from '../store/savedViews.js';

export interface Services {
  /** The one write entry point: every write is a plan submitted here. */
  readonly writes: WriteService;
  readonly entities: EntityService;
  readonly properties: PropertyService;
  readonly values: ValueService;
  /** Value imports (CSV rows): checked whole, written whole. */
  readonly valueImports: ValueImportService;
  /** Aspect versions and the history of values (who changed which value when). */
  readonly history: HistoryService;
  /** Bulk edits of values on the entities a search selects (jobs). */
  readonly bulkEdits: BulkEditService;
  readonly jobs: JobService;
  readonly tests: TestService;
  /** The compliance view of metadata tests and runs on demand. */
  readonly compliance: ComplianceService;
  readonly tokens: TokenService;
  readonly search: SearchService;
  readonly backup: BackupService;
  /** People signing in through OpenID Connect; null when no provider is configured. */
  readonly signIn: SignInService | null;
  /** The console's sessions (its sign-in with an access token, and signing out). */
  readonly sessions: BrowserSessionService;
  /** Policies as data and as code: list, read, create, change, delete, apply a file. */
  readonly policies: PolicyService;
  /** What the policies allow: the caller's privileges, an entity's, and why. */
  readonly access: AccessService;
  /** Saved views (DataHub's views): personal and global search scopes. */
  readonly views: ViewService;
  /** What DataHub's web app asks of the server beyond the catalog (its start-up configuration, its tours' steps). */
  readonly datahubApp: DataHubAppService;
}

export interface ServiceDeps {
  readonly db: Db;
  /** The policies in force (one cached copy per process, shared with the background writers). */
  readonly access: AccessPolicies;
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
  /** Starts database snapshots for backups. */
  readonly openSnapshot: SnapshotOpener;
  /** This build's version, recorded in backups. */
  readonly appVersion: string;
  /** Earlier versions kept per aspect (HISTORY_VERSIONS_KEPT); absent or 0: all of them. */
  readonly historyVersionsKept?: number;
  /** Tells the job worker that work was queued (it would otherwise find it at its next poll). */
  readonly onJobQueued?: () => void;
  /** Sign-in through an OpenID provider (OIDC_ISSUER); absent: off. */
  readonly signIn?: Omit<SignInDeps, 'tokens' | 'log'>;
  /** How long a console sign-in with an access token lasts (CONSOLE_SESSION_HOURS); absent: 12. */
  readonly tokenSessionHours?: number;
  /** The process's count of committed registry changes, shared with the writers the runtime builds beside these services. */
  readonly registryChanges?: LocalRegistryChanges;
  /** Concurrent writes share a statement and its commit (WRITE_GROUP_COMMIT); default true. */
  readonly groupCommit?: boolean;
  /** Whether requests need a token (AUTH_ENABLED; DataHub's app shows it). Absent: true. */
  readonly authEnabled?: boolean;
  /** The namespace type URNs are written and shown in (URN_NAMESPACE): the services write definitions, show views and facets in it. */
  readonly urnNamespace: UrnNamespace;
  /** What a value of a property that does not exist does (DROP_UNDEFINED_PROPERTY_VALUES); absent: refused. */
  readonly undefinedPropertyValues?: UndefinedPropertyValues;
}

export function createServices(deps: ServiceDeps): Services {
  const registryChanges = deps.registryChanges ?? new LocalRegistryChanges();
  const writes = new DefaultWriteService({
    db: deps.db,
    log: deps.log,
    indexWaiter: deps.indexWaiter,
    registryChanges,
    gate: new PolicyGate(deps.access),
    urnNamespace: deps.urnNamespace,
    ...(deps.undefinedPropertyValues ? { undefinedPropertyValues: deps.undefinedPropertyValues } : {}),
    ...(deps.historyVersionsKept !== undefined ? { historyVersionsKept: deps.historyVersionsKept } : {}),
    ...(deps.groupCommit !== undefined ? { groupCommit: deps.groupCommit } : {}),
  });
  // The app's per-person state (views, tour steps): the same write path behind its own gate (appStateWrites.ts).
  const appStateWrites = new DefaultWriteService({
    db: deps.db,
    log: deps.log,
    indexWaiter: deps.indexWaiter,
    registryChanges,
    urnNamespace: deps.urnNamespace,
    gate: appStateGate,
    ...(deps.historyVersionsKept !== undefined ? { historyVersionsKept: deps.historyVersionsKept } : {}),
    ...(deps.groupCommit !== undefined ? { groupCommit: deps.groupCommit } : {}),
  });
  const entities = new DefaultEntityService({ db: deps.db, readEntityPage: deps.readEntityPage, urnNamespace: deps.urnNamespace, indexWaiter: deps.indexWaiter, writes });
  const tokens = new DefaultTokenService(deps);
  const audit = new AuditTrail(deps.log);
  const tests = new DefaultTestService({ db: deps.db, log: deps.log, entities, writes });
  const search = new DefaultSearchService({ db: deps.db, registryEpoch: deps.registryEpoch, engine: deps.searchEngine ?? null, disabledReason: deps.searchDisabledReason, entities, registryRecheckMs: deps.searchRegistryRecheckMs ?? 0, registryChanges, audit, access: deps.access, urnNamespace: deps.urnNamespace });
  const access = deps.access;
  return {
    writes: new AuthorizedWriteService(writes),
    entities: new AuthorizedEntityService(entities, access),
    properties: new AuthorizedPropertyService(new DefaultPropertyService({ db: deps.db, entities, writes }), access),
    values: new AuthorizedValueService(new DefaultValueService({ entities, writes }), access),
    valueImports: new AuthorizedValueImportService(new DefaultValueImportService({ db: deps.db, entities, writes })),
    history: new AuthorizedHistoryService(new DefaultHistoryService({ db: deps.db, entities }), access),
    bulkEdits: new AuthorizedBulkEditService(
      new DefaultBulkEditService({ db: deps.db, log: deps.log, writes, search, ...(deps.onJobQueued ? { onJobQueued: deps.onJobQueued } : {}) }),
      access,
    ),
    jobs: new AuthorizedJobService(new DefaultJobService(deps)),
    tests: new AuthorizedTestService(tests, access),
    compliance: new AuthorizedComplianceService(new DefaultComplianceService({ db: deps.db, log: deps.log, entities, tests, search, access }), access),
    tokens: new AuthorizedTokenService(tokens, access),
    policies: new AuthorizedPolicyService(new DefaultPolicyService({ access, writes }), access),
    access: new AuthorizedAccessService(new DefaultAccessService({ db: deps.db, access }), access),
    backup: new AuthorizedBackupService(new DefaultBackupService({ openSnapshot: deps.openSnapshot, log: deps.log, appVersion: deps.appVersion })),
    search: new AuthorizedSearchService(search),
    signIn: deps.signIn ? new SignInService({ ...deps.signIn, tokens, log: deps.log }) : null,
    sessions: new DefaultBrowserSessionService({ tokens, tokenSessionHours: deps.tokenSessionHours ?? 12 }),
    views: new AuthorizedViewService(new DefaultViewService({ entities, writes: appStateWrites, listViews: savedViewLister(deps.db), urnNamespace: deps.urnNamespace })),
    datahubApp: new DataHubAppService({ version: deps.appVersion, authEnabled: deps.authEnabled ?? true }, entities, appStateWrites),
  };
}
