/**
 * The Authorized* wrappers as one table: for every method a caller can reach, the
 * scope it needs (docs/security.md's scope table), checked against each scope. A
 * caller below the scope gets ForbiddenError and the wrapped service is never called;
 * a caller at or above it reaches the wrapped service with the same arguments. The
 * wrapped services here only record the calls: what they do is tested in test/services.
 */
import { SCOPES, type TokenScope } from '../../src/domain/accessToken.js';
import { ForbiddenError } from '../../src/domain/errors.js';
import { ENTITY } from '../../src/domain/registry/entityTypes.js';
import {
  AuthorizedBackupService,
  AuthorizedBulkEditService,
  AuthorizedValueImportService,
  AuthorizedComplianceService,
  AuthorizedEntityService,
  AuthorizedHistoryService,
  AuthorizedJobService,
  AuthorizedPropertyService,
  AuthorizedSearchService,
  AuthorizedTestService,
  AuthorizedTokenService,
  AuthorizedValueService,
  AuthorizedWriteService,
  AuthorizedPolicyService,
  AuthorizedAccessService,
} from '../../src/services/authorizedServices.js';
import type { Caller } from '../../src/services/caller.js';

const DATASET = 'urn:li:dataset:(urn:li:dataPlatform:hive,db.t,PROD)';
const PROPERTY = 'urn:li:structuredProperty:io.x';
const TEST = 'urn:li:test:t1';

type Wrapper = new (inner: never) => object;

/** [service wrapper, method, arguments after the caller, scope needed]. */
const TABLE: ReadonlyArray<readonly [string, Wrapper, string, readonly unknown[], TokenScope]> = [
  ['entities', AuthorizedEntityService, 'getEntity', [DATASET], 'read'],
  ['entities', AuthorizedEntityService, 'getAspect', [DATASET, 'status'], 'read'],
  ['entities', AuthorizedEntityService, 'listEntities', [ENTITY.dataset, { count: 1 }], 'read'],
  ['entities', AuthorizedEntityService, 'batchGet', [ENTITY.dataset, []], 'read'],
  ['entities', AuthorizedEntityService, 'traceWrites', ['00', new Map()], 'read'],
  ['entities', AuthorizedEntityService, 'references', [DATASET], 'read'],
  ['valueImports', AuthorizedValueImportService, 'importValues', [{ columns: [], rows: [], dryRun: true }], 'write'],
  ['entities', AuthorizedEntityService, 'removeReferences', [DATASET], 'write'],
  ['entities', AuthorizedEntityService, 'previewDelete', [PROPERTY], 'read'],
  ['properties', AuthorizedPropertyService, 'get', [PROPERTY], 'read'],
  ['properties', AuthorizedPropertyService, 'history', [PROPERTY], 'read'],
  ['properties', AuthorizedPropertyService, 'create', [{}], 'write'],
  ['properties', AuthorizedPropertyService, 'replace', [{}], 'write'],
  ['properties', AuthorizedPropertyService, 'update', [{}], 'write'],
  ['properties', AuthorizedPropertyService, 'softDelete', [PROPERTY], 'write'],
  ['properties', AuthorizedPropertyService, 'restore', [PROPERTY], 'write'],
  ['properties', AuthorizedPropertyService, 'delete', [PROPERTY], 'admin'],
  ['properties', AuthorizedPropertyService, 'previewReplace', [{}], 'write'],
  ['values', AuthorizedValueService, 'get', [DATASET], 'read'],
  ['values', AuthorizedValueService, 'upsert', [DATASET, []], 'write'],
  ['values', AuthorizedValueService, 'remove', [DATASET, []], 'write'],
  ['history', AuthorizedHistoryService, 'aspectVersion', [DATASET, 'status', 1], 'read'],
  ['history', AuthorizedHistoryService, 'valueHistory', [{ urn: DATASET }], 'read'],
  ['bulkEdits', AuthorizedBulkEditService, 'edit', [{ query: '*', property: PROPERTY, operation: 'set', values: ['x'] }], 'write'],
  ['jobs', AuthorizedJobService, 'list', [{}], 'read'],
  ['jobs', AuthorizedJobService, 'get', ['1'], 'read'],
  ['tests', AuthorizedTestService, 'getTest', [TEST], 'read'],
  ['tests', AuthorizedTestService, 'getTests', [[TEST]], 'read'],
  ['tests', AuthorizedTestService, 'listTests', [{}], 'read'],
  ['tests', AuthorizedTestService, 'getTestResults', [DATASET], 'read'],
  ['tests', AuthorizedTestService, 'evaluate', [{ urn: DATASET, push: false }], 'read'],
  ['tests', AuthorizedTestService, 'evaluate', [{ urn: DATASET, push: true }], 'write'],
  ['tests', AuthorizedTestService, 'batchEvaluate', [{ urns: [DATASET], push: false }], 'read'],
  ['tests', AuthorizedTestService, 'batchEvaluate', [{ urns: [DATASET], push: true }], 'write'],
  ['tests', AuthorizedTestService, 'createTest', [{}], 'admin'],
  ['tests', AuthorizedTestService, 'updateTest', [TEST, {}], 'admin'],
  ['tests', AuthorizedTestService, 'deleteTest', [TEST], 'admin'],
  ['tokens', AuthorizedTokenService, 'create', [{}], 'admin'],
  ['tokens', AuthorizedTokenService, 'list', [], 'admin'],
  ['tokens', AuthorizedTokenService, 'revoke', ['id'], 'admin'],
  ['search', AuthorizedSearchService, 'scroll', [{}], 'read'],
  ['search', AuthorizedSearchService, 'aggregate', [{}], 'read'],
  ['search', AuthorizedSearchService, 'searchEntities', [ENTITY.dataset, {}], 'read'],
  ['search', AuthorizedSearchService, 'scrollEntities', [{ types: [] }], 'read'],
  ['search', AuthorizedSearchService, 'search', [{ types: [] }], 'read'],
  ['search', AuthorizedSearchService, 'requestRebuild', ['why'], 'admin'],
  ['backup', AuthorizedBackupService, 'start', [], 'admin'],
  ['compliance', AuthorizedComplianceService, 'report', [{}], 'read'],
  ['compliance', AuthorizedComplianceService, 'failing', [{ urn: TEST }], 'read'],
  ['compliance', AuthorizedComplianceService, 'explain', [{ test: TEST, entity: DATASET }], 'read'],
  ['compliance', AuthorizedComplianceService, 'run', [{}], 'write'],
  ['policies', AuthorizedPolicyService, 'list', [{}], 'read'],
  ['policies', AuthorizedPolicyService, 'get', ['finance'], 'read'],
  ['access', AuthorizedAccessService, 'explain', [{ privilege: 'EDIT_ENTITY', urn: DATASET }], 'read'],
  ['access', AuthorizedAccessService, 'whoCould', [{ privilege: 'EDIT_ENTITY', urn: DATASET }], 'read'],
  ['access', AuthorizedAccessService, 'privileges', [], 'read'],
  ['access', AuthorizedAccessService, 'entityPrivileges', [DATASET], 'read'],
  ['access', AuthorizedAccessService, 'readable', [[DATASET]], 'read'],
  ['access', AuthorizedAccessService, 'requireRead', [[DATASET]], 'read'],
];

/**
 * What the recorded service answers: an empty page or list in the shape every method
 * returns, so that wrappers which narrow a page to what the caller may read (no
 * policies here: everything) pass it through.
 */
const RESULT = Object.assign([], { entities: [], entries: [], events: [] });

/** A wrapped service that records each call: `calls` holds [method, args]. */
function recorder(): { inner: Record<string, unknown>; calls: Array<[string, unknown[]]> } {
  const calls: Array<[string, unknown[]]> = [];
  const inner = new Proxy({} as Record<string, unknown>, {
    get: (_target, name) => (name === 'then' ? undefined : (...args: unknown[]) => {
      calls.push([String(name), args]);
      return Promise.resolve(RESULT);
    }),
  });
  return { inner, calls };
}

/** The wrapped service's answer, or (listings narrowed to what the caller may read) the same content. */
function sameAnswer(answer: unknown): boolean {
  return answer === RESULT || JSON.stringify(answer) === JSON.stringify(RESULT) || JSON.stringify(answer) === JSON.stringify({ ...RESULT });
}

const callerWith = (scope: TokenScope): Caller => ({ actor: `urn:li:corpuser:${scope}`, scope });

describe.each(TABLE.map(([service, wrapper, method, args, need]) => [`${service}.${method}(${args.map((a) => (typeof a === 'string' ? a : typeof a)).join(', ')}) needs ${need}`, wrapper, method, args, need] as const))(
  '%s',
  (_title, Wrapper, method, args, need) => {
    test.each(SCOPES.map((s) => [s] as const))('a %s caller', async (scope) => {
      const { inner, calls } = recorder();
      const service = new Wrapper(inner as never) as Record<string, (...a: unknown[]) => unknown>;
      const caller = callerWith(scope);
      const allowed = SCOPES.indexOf(scope) >= SCOPES.indexOf(need);
      if (allowed) {
        expect(sameAnswer(await service[method]!(caller, ...args))).toBe(true);
        expect(calls).toEqual([[method, [caller, ...args]]]);
      } else {
        expect(() => service[method]!(caller, ...args)).toThrow(ForbiddenError);
        expect(calls).toEqual([]);
      }
    });
  },
);

test('a wrapper refuses a call without a caller: it never defaults to a scope', () => {
  const { inner, calls } = recorder();
  const service = new AuthorizedEntityService(inner as never);
  expect(() => service.getEntity(undefined as never, DATASET)).toThrow(/without a caller/);
  expect(calls).toEqual([]);
});

test('every method of every wrapper is in the table, or is a helper that takes no caller', () => {
  const wrappers: ReadonlyArray<[string, Wrapper]> = [
    ['entities', AuthorizedEntityService],
    ['properties', AuthorizedPropertyService],
    ['values', AuthorizedValueService],
    ['history', AuthorizedHistoryService],
    ['bulkEdits', AuthorizedBulkEditService],
    ['valueImports', AuthorizedValueImportService],
    ['jobs', AuthorizedJobService],
    ['tests', AuthorizedTestService],
    ['tokens', AuthorizedTokenService],
    ['search', AuthorizedSearchService],
    ['backup', AuthorizedBackupService],
    ['compliance', AuthorizedComplianceService],
    ['writes', AuthorizedWriteService],
    ['policies', AuthorizedPolicyService],
    ['access', AuthorizedAccessService],
  ];
  const inTable = new Set(TABLE.map(([service, , method]) => `${service}.${method}`));
  for (const [name, Wrapper] of wrappers) {
    const service = new Wrapper(recorder().inner as never) as Record<string, unknown>;
    const methods = Object.keys(service).filter((k) => typeof service[k] === 'function').map((m) => `${name}.${m}`);
    expect(methods.filter((m) => !inTable.has(m) && !UNCHECKED.has(m))).toEqual([]);
  }
});

/**
 * Helpers that take no caller and only read, reachable only from already-authorized
 * requests (services/policies.ts); and writes, which the write entry point decides entity
 * by entity (writes/writeGate.ts, test/unit/writeGate.test.ts).
 */
const UNCHECKED = new Set([
  'writes.submit',
  'writes.preview',
  'policies.create',
  'policies.update',
  'policies.delete',
  'policies.apply',
  'entities.exists',
  'entities.existing',
  'entities.readEntities',
  'properties.getMany',
  'properties.audits',
  'tests.validateTest',
  'tokens.authenticate',
  'tokens.verifiedBefore',
  'tokens.ensureRootToken',
]);
