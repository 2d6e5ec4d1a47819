/**
 * Metadata tests (docs/contract.md §7): create, read, update, delete and list tests, validate a
 * definition, and evaluate tests on entities. GraphQL resolvers and the REST evaluate
 * route call these; tests are stored as `testInfo` aspects and results as the
 * evaluated entity's `testResults` aspect, both through the one aspect pipeline.
 */
import { ASPECT } from '../domain/aspects/index.js';
import { randomUUID } from 'node:crypto';
import { createBoundedMatcher, RegexBoundExceeded, type RegexMatcher } from '../domain/boundedRegex.js';
import { NotFoundError, ServiceError, ValidationError } from '../domain/errors.js';
import { parseTestDefinitionJson } from '../domain/testDefinition.js';
import type { TestInfo } from '../domain/testInfo.js';
import { TEST_LIMITS } from '../domain/testLimits.js';
import type { TestResults } from '../domain/testResults.js';
import { evaluateTest, type EntityDocument, type TestOutcome, type TestRun } from '../domain/testRules.js';
import { createWorkBudget } from '../domain/testWork.js';
import { parseUrn, parseUrnOfType, tryParseUrn, type Urn } from '../domain/urn.js';
import type { Logger } from '../platform/logger.js';
import { countTestEvaluation, type TestEvaluationOutcome } from '../telemetry/metrics.js';
import { loopTurn } from '../platform/turns.js';
import type { Db } from '../store/database.js';
import type { Caller, WriteOptions } from './caller.js';
import type { EntityService, EntityView } from './entityService.js';
import { TEST_TYPE, TestCatalog, type RunnableTest } from './testCatalog.js';
import { countRun, logExceeded, resultsChange, type EvaluationBounds, type Evaluated } from './testEvaluation/resultWriter.js';
import { entityDeletePlan, entityPlan } from '../domain/writes/plan.js';
import type { WriteService } from './writes/writeService.js';
import { TestSet } from './testEvaluation/testSet.js';
import { bothWrites, NOTHING_WRITTEN, type Written } from './writeReceipt.js';

export interface TestInput {
  readonly name: string;
  readonly category: string;
  readonly description?: string | null;
  readonly definition: { readonly json: string };
}

export interface CreateTestInput extends TestInput {
  /** The URN id; a UUID when absent. */
  readonly id?: string | null;
}

export interface TestView {
  readonly urn: string;
  readonly name: string;
  readonly category: string;
  readonly description?: string;
  readonly definition: { readonly type: 'JSON'; readonly json: string };
}

export interface ListTestsInput {
  readonly start?: number | null;
  readonly count?: number | null;
  /** Case-insensitive text matched against urn, name, category and description; empty or `*` lists all. */
  readonly query?: string | null;
}

export interface ListTestsResult {
  readonly start: number;
  /** How many tests this page holds. */
  readonly count: number;
  readonly total: number;
  readonly tests: TestView[];
}

export interface ValidateTestResult {
  readonly valid: boolean;
  readonly error?: string;
}

export interface EvaluateInput {
  readonly urn: string;
  readonly push?: boolean;
  /** Run only these tests; each must exist. */
  readonly testUrns?: readonly string[];
}

export interface BatchEvaluateInput {
  readonly urns: readonly string[];
  readonly push?: boolean;
  readonly testUrns?: readonly string[];
}

export interface TestServiceDeps {
  readonly db: Db;
  readonly log: Logger;
  readonly entities: EntityService;
  readonly writes: WriteService;
}

const DEFAULT_LIST_COUNT = 20;
/** Entities of a batchEvaluate read and evaluated together. */
const READ_CHUNK = 10;

/** One request's bounds on evaluation: regex time and work units. */
interface Bounds {
  readonly match: RegexMatcher;
  readonly work: ReturnType<typeof createWorkBudget>;
  /** Evaluations that failed their bounds, logged together once the request is done (one line, however many). */
  readonly exceeded: Array<{ readonly test: string; readonly urn: string; readonly reason: string; readonly pattern?: string }>;
}
const MAX_LIST_COUNT = 1000;

const OUTCOME_LABELS: Record<TestOutcome, TestEvaluationOutcome> = { SUCCESS: 'pass', FAILURE: 'fail', OUT_OF_SCOPE: 'out_of_scope' };

function testInfoOf(input: TestInput): TestInfo {
  if (!input.definition || typeof input.definition.json !== 'string') {
    throw new ValidationError('definition.json is required: the test definition as a JSON string', 'definition.json');
  }
  return {
    name: input.name,
    category: input.category,
    ...(input.description !== undefined && input.description !== null ? { description: input.description } : {}),
    definition: { type: 'JSON', json: input.definition.json },
  };
}

function viewOf(urn: string, info: TestInfo): TestView {
  return {
    urn,
    name: info.name,
    category: info.category,
    ...(info.description !== undefined ? { description: info.description } : {}),
    definition: { type: 'JSON', json: info.definition.json },
  };
}

/** A run as the evaluate endpoint answers it, in test URN order. */
function resultsOf(run: TestRun): TestResults {
  const sorted = (urns: readonly string[]) => [...urns].sort();
  return {
    passing: sorted(run.passing).map((test) => ({ test, type: 'SUCCESS' as const })),
    failing: sorted(run.failing).map((test) => ({ test, type: 'FAILURE' as const })),
  };
}

function documentOf(view: EntityView): EntityDocument {
  const aspects = new Map<string, unknown>();
  for (const [name, value] of view.aspects) aspects.set(name, value.value);
  return { urn: view.urn, entityType: view.entityType.name, aspects };
}

/** A test write that names the version it read (its testInfo revision): refused as stale when it moved on (docs/contract.md §14, "Stale writes"). */
export interface TestWriteOptions extends WriteOptions {
  readonly expectedVersion?: string | null;
}

export interface TestService {
  /** Creates a test; returns its URN. An existing id is refused. */
  createTest(caller: Caller, input: CreateTestInput, options?: WriteOptions): Promise<Written<string>>;
  /** Replaces an existing test's name, category, description and definition; returns its URN. */
  updateTest(caller: Caller, urnValue: string, input: TestInput, options?: TestWriteOptions): Promise<Written<string>>;
  /** Hard-deletes a test; true when there was one to delete. */
  deleteTest(caller: Caller, urnValue: string, options?: WriteOptions): Promise<Written<boolean>>;
  /** A test by URN; null when there is none. */
  getTest(caller: Caller, urnValue: string): Promise<TestView | null>;
  /** Several tests by URN in one read (federation resolves many at once); absent ones are left out. */
  getTests(caller: Caller, urnValues: readonly string[]): Promise<Map<string, TestView>>;
  /** Tests in URN order, soft-deleted ones left out. */
  listTests(caller: Caller, input?: ListTestsInput): Promise<ListTestsResult>;
  /** Checks a definition without storing anything. */
  validateTest(definitionJson: string): ValidateTestResult;
  /** The stored results of an entity (GraphQL `Dataset.testResults`); null when never pushed. */
  getTestResults(caller: Caller, urnValue: string): Promise<TestResults | null>;
  /**
   * Runs the tests in scope for one entity. Tests out of scope are in neither list.
   * With `push`, the results are stored as the entity's testResults aspect.
   */
  evaluate(caller: Caller, input: EvaluateInput, options?: WriteOptions): Promise<Written<TestResults>>;
  /** evaluate for several entities, with one regex time budget and one work budget for the whole request. */
  batchEvaluate(caller: Caller, input: BatchEvaluateInput, options?: WriteOptions): Promise<Written<Array<{ urn: string; results: TestResults }>>>;
}

export class DefaultTestService implements TestService {
  private readonly catalog: TestCatalog;

  constructor(private readonly deps: TestServiceDeps) {
    this.catalog = new TestCatalog(deps);
  }

  async createTest(caller: Caller, input: CreateTestInput, options: WriteOptions = {}): Promise<Written<string>> {
    const id = input.id ?? randomUUID();
    const parsed = tryParseUrn(`urn:li:test:${id}`);
    if (!parsed.ok || /\s/.test(id)) {
      throw new ValidationError(`id ${JSON.stringify(id)} cannot be a test id${parsed.ok ? ': ids cannot have spaces' : `: ${parsed.reason}`}`, 'id');
    }
    const urn = parsed.urn.value;
    const written = await this.deps.writes.submit(caller, entityPlan(parsed.urn, [{ op: 'set', aspect: ASPECT.testInfo, value: testInfoOf(input), createOnly: true }]), options);
    return { result: urn, receipt: written.receipt };
  }

  async updateTest(caller: Caller, urnValue: string, input: TestInput, options: TestWriteOptions = {}): Promise<Written<string>> {
    const urn = parseUrnOfType(urnValue, TEST_TYPE);
    const info = testInfoOf(input);
    const { expectedVersion, ...writeOptions } = options;
    const change = {
      op: 'compute' as const,
      aspect: ASPECT.testInfo,
      compute: (current: unknown) => {
        if (current === undefined) throw new NotFoundError(`Test ${urn.value} does not exist`);
        return info;
      },
      ...(expectedVersion != null ? { ifVersionMatch: expectedVersion } : {}),
    };
    const written = await this.deps.writes.submit(caller, entityPlan(urn, [change]), writeOptions);
    return { result: urn.value, receipt: written.receipt };
  }

  async deleteTest(caller: Caller, urnValue: string, options: WriteOptions = {}): Promise<Written<boolean>> {
    const urn = parseUrnOfType(urnValue, TEST_TYPE);
    const existed = await this.deps.entities.exists(urn.value);
    const { receipt } = await this.deps.writes.submit(caller, entityDeletePlan(urn), options);
    return { result: existed, receipt };
  }

  async getTest(caller: Caller, urnValue: string): Promise<TestView | null> {
    return (await this.getTests(caller, [urnValue])).get(parseUrnOfType(urnValue, TEST_TYPE).value) ?? null;
  }

  async getTests(_caller: Caller, urnValues: readonly string[]): Promise<Map<string, TestView>> {
    const urns = urnValues.map((u) => parseUrnOfType(u, TEST_TYPE).value);
    const out = new Map<string, TestView>();
    for (const test of (await this.catalog.read([...new Set(urns)])).values()) out.set(test.urn, viewOf(test.urn, test.info));
    return out;
  }

  async listTests(_caller: Caller, input: ListTestsInput = {}): Promise<ListTestsResult> {
    const start = input.start ?? 0;
    const count = input.count ?? DEFAULT_LIST_COUNT;
    if (!Number.isInteger(start) || start < 0) throw new ValidationError('start must be an integer >= 0', 'start');
    if (!Number.isInteger(count) || count < 0) throw new ValidationError('count must be an integer >= 0', 'count');
    const query = (input.query ?? '').trim().toLowerCase();
    const all = [...(await this.catalog.read(await this.catalog.allUrns())).values()].filter((t) => !t.removed);
    const matching =
      query === '' || query === '*'
        ? all
        : all.filter((t) => [t.urn, t.info.name, t.info.category, t.info.description ?? ''].some((s) => String(s).toLowerCase().includes(query)));
    const page = matching.slice(start, start + Math.min(count, MAX_LIST_COUNT));
    return { start, count: page.length, total: matching.length, tests: page.map((t) => viewOf(t.urn, t.info)) };
  }

  validateTest(definitionJson: string): ValidateTestResult {
    try {
      if (typeof definitionJson !== 'string') throw new ValidationError('definition json must be a string', 'json');
      parseTestDefinitionJson(definitionJson);
      return { valid: true };
    } catch (err) {
      if (err instanceof ServiceError) return { valid: false, error: err.message };
      throw err;
    }
  }

  async getTestResults(caller: Caller, urnValue: string): Promise<TestResults | null> {
    const view = await this.deps.entities.getEntity(caller, urnValue, { aspects: [ASPECT.testResults] });
    return (view.aspects.get(ASPECT.testResults)?.value as TestResults | undefined) ?? null;
  }

  async evaluate(caller: Caller, input: EvaluateInput, options: WriteOptions = {}): Promise<Written<TestResults>> {
    const { result, receipt } = await this.evaluateMany(caller, [input.urn], input, options);
    return { result: result[0]!.results, receipt };
  }

  async batchEvaluate(caller: Caller, input: BatchEvaluateInput, options: WriteOptions = {}): Promise<Written<Array<{ urn: string; results: TestResults }>>> {
    if (input.urns.length === 0) throw new ValidationError('urns must name at least one entity', 'urns');
    if (input.urns.length > TEST_LIMITS.batchEntities) {
      throw new ValidationError(`urns has more than the limit of ${TEST_LIMITS.batchEntities} entities`, 'urns');
    }
    return this.evaluateMany(caller, input.urns, input, options);
  }

  private async evaluateMany(
    caller: Caller,
    urnValues: readonly string[],
    input: { push?: boolean; testUrns?: readonly string[] },
    options: WriteOptions,
  ): Promise<Written<Array<{ urn: string; results: TestResults }>>> {
    const urns: Urn[] = [];
    for (const u of urnValues) {
      const urn = parseUrn(u);
      if (!urns.some((x) => x.value === urn.value)) urns.push(urn);
    }
    const tests = (await this.catalog.runnable(input.testUrns)).sort((a, b) => (a.urn < b.urn ? -1 : a.urn > b.urn ? 1 : 0));
    const existing = await this.deps.entities.existing(urns);
    const missing = urns.find((u) => !existing.has(u.value));
    if (missing) throw new NotFoundError(`Entity ${missing.value} does not exist`);

    if (input.push) return this.evaluateAndPush(caller, urns, tests, input.testUrns !== undefined, options);
    const bounds: Bounds = { match: createBoundedMatcher(), work: createWorkBudget(), exceeded: [] };
    const out: Array<{ urn: string; results: TestResults }> = [];
    // A few entities at a time: their aspects can be large, and a batch of them all at once would be read and held together.
    for (let i = 0; i < urns.length; i += READ_CHUNK) {
      const chunk = urns.slice(i, i + READ_CHUNK);
      const views = await this.deps.entities.readEntities(chunk);
      for (const urn of chunk) {
        const view = views.get(urn.value);
        if (!view) throw new NotFoundError(`Entity ${urn.value} does not exist`);
        out.push({ urn: urn.value, results: await this.run(tests, documentOf(view), bounds) });
      }
    }
    if (bounds.exceeded.length > 0) {
      // One line per request, however many entities and tests: a batch must not flood the log.
      this.deps.log.warn({ exceeded: bounds.exceeded.length, first: bounds.exceeded.slice(0, 5) }, 'metadata tests failed: they exceeded their bounds');
    }
    return { result: out, receipt: NOTHING_WRITTEN };
  }

  /**
   * Evaluates and stores in one step per entity: the results are computed inside the
   * write from what it loads (services/testEvaluation/resultWriter.ts), so what is
   * stored and answered is the outcome of the state the write relied on.
   */
  private async evaluateAndPush(
    caller: Caller,
    urns: readonly Urn[],
    tests: readonly RunnableTest[],
    named: boolean,
    options: WriteOptions,
  ): Promise<Written<Array<{ urn: string; results: TestResults }>>> {
    const set = new TestSet(tests);
    const evaluated: Evaluated = named ? new Set(tests.map((t) => t.urn)) : 'all';
    const bounds: EvaluationBounds = { match: createBoundedMatcher(), work: createWorkBudget() };
    const stamp = { time: Date.now(), actor: caller.actor };
    const out: Array<{ urn: string; results: TestResults }> = [];
    const runs = new Map<string, TestRun>();
    let receipt = NOTHING_WRITTEN;
    for (const urn of urns) {
      let last: TestRun = { passing: [], failing: [], exceeded: [] };
      const change = resultsChange(urn, set, evaluated, stamp, () => bounds, (run) => (last = run));
      if (!change) throw new ValidationError(`Entities of type ${urn.entityType.name} hold no test results; evaluate without push`, 'push');
      const written = await this.deps.writes.submit(caller, entityPlan(urn, [change]), options);
      receipt = bothWrites(receipt, written.receipt);
      runs.set(urn.value, last);
      countRun(last, tests.length, 'request');
      out.push({ urn: urn.value, results: resultsOf(last) });
    }
    // One line per request, however many entities and tests: a batch must not flood the log.
    logExceeded(this.deps.log, runs);
    return { result: out, receipt };
  }

  private async run(tests: readonly RunnableTest[], doc: EntityDocument, bounds: Bounds): Promise<TestResults> {
    const results: TestResults = { passing: [], failing: [] };
    for (const test of tests) {
      // Evaluation is synchronous; other requests go in between tests once a slice is spent (src/platform/turns.ts).
      const wait = loopTurn();
      if (wait) await wait;
      const { outcome, boundExceeded } = evaluateTest(test.definition, doc, bounds.match, bounds.work.evaluation());
      if (boundExceeded) {
        bounds.exceeded.push({ test: test.urn, urn: doc.urn, reason: boundExceeded.reason, ...(boundExceeded instanceof RegexBoundExceeded ? { pattern: boundExceeded.pattern } : {}) });
      }
      countTestEvaluation(OUTCOME_LABELS[outcome], 'request');
      if (outcome === 'SUCCESS') results.passing.push({ test: test.urn, type: 'SUCCESS' });
      else if (outcome === 'FAILURE') results.failing.push({ test: test.urn, type: 'FAILURE' });
    }
    return results;
  }
}
