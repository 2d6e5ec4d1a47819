/**
 * The compliance view of metadata tests (docs/metadata-tests.md, "The compliance
 * report"): per test, how many entities pass, fail and are not applicable, the
 * failing ones (paged, searchable), the trend (a count per day), why one entity fails,
 * and runs on demand. GraphQL, REST and the CLI call these.
 *
 * Counts come from the relational index of stored results, so they are exact the
 * moment results are stored; the failing entities are that index paged in URN order,
 * or, with a query, a search filtered on `failingTests` (which follows the index).
 */
import { createHash } from 'node:crypto';
import { createBoundedMatcher } from '../domain/boundedRegex.js';
import { NotFoundError, ValidationError } from '../domain/errors.js';
import { LIMITS, pageSize } from '../domain/limits.js';
import { explainTest, failedComparisons, type FailedComparison, type TestExplanation } from '../domain/testExplanation.js';
import { createWorkBudget } from '../domain/testWork.js';
import { parseUrn, parseUrnOfType, tryParseUrn } from '../domain/urn.js';
import type { Logger } from '../platform/logger.js';
import type { Db } from '../store/database.js';
import { enqueueJob } from '../store/jobs.js';
import { countResults, dailyCounts, entitiesWithOutcome } from '../store/testResults.js';
import { inTransaction } from '../store/transaction.js';
import type { AccessPolicies } from './accessPolicies.js';
import type { Caller } from './caller.js';
import { decodeScrollId, encodeScrollId } from './entityListing.js';
import type { EntityService } from './entityService.js';
import { EVALUATE_TESTS } from './jobs/kinds.js';
import type { SearchService } from './searchService.js';
import { checkTestUrns, TEST_TYPE, TestCatalog } from './testCatalog.js';
import { complianceCounts } from './testEvaluation/complianceCounts.js';
import type { EvaluationRequest } from './testEvaluation/evaluationJob.js';
import type { TestService, TestView } from './testService.js';

/** Days of trend a report shows by default, and at most. */
const DEFAULT_DAYS = 30;
const MAX_DAYS = 366;
const DEFAULT_FAILING_COUNT = 20;

export interface TrendPoint {
  /** The day (UTC), `YYYY-MM-DD`. */
  readonly day: string;
  readonly passing: number;
  readonly failing: number;
  readonly notApplicable: number;
}

export interface TestCompliance {
  readonly test: TestView;
  readonly passing: number;
  readonly failing: number;
  /** Entities of the types the test targets that are in neither list (out of its scope, or not evaluated yet). */
  readonly notApplicable: number;
  /** Oldest first; today's point is the counts now. */
  readonly trend: TrendPoint[];
}

export interface ComplianceReport {
  /** When the counts were read (ISO 8601). */
  readonly generatedAt: string;
  readonly tests: TestCompliance[];
}

export interface ReportInput {
  /** One test; absent: every live test. */
  readonly urn?: string | null;
  /** Days of trend, today included (default 30, at most 366). */
  readonly days?: number | null;
}

export interface FailingInput {
  readonly urn: string;
  /** A search (keywords and REST query syntax) among the failing entities; absent or `*`: all of them, in URN order. */
  readonly query?: string | null;
  readonly count?: number | null;
  readonly scrollId?: string | null;
}

export interface FailingPage {
  /** How many entities fail (match the query, with one). */
  readonly total: number;
  /** The cursor of the next page; null on the last. */
  readonly scrollId: string | null;
  readonly entities: Array<{ readonly urn: string; readonly entityType: string }>;
}

export interface ExplainInput {
  readonly test: string;
  readonly entity: string;
}

export interface ExplainedOutcome extends TestExplanation {
  /** The comparisons that made the test fail (empty unless it fails by its rules). */
  readonly failedRules: FailedComparison[];
}

export interface TestRunInput {
  /** The tests to run; absent: every live test. */
  readonly testUrns?: readonly string[] | null;
  /** A search (REST query syntax) choosing the entities; absent: everything the tests select. */
  readonly query?: string | null;
  /** Entity types the query searches (absent: the types searched by default). */
  readonly types?: readonly string[] | null;
}

export interface ComplianceService {
  /** Counts and trend per test. */
  report(caller: Caller, input?: ReportInput): Promise<ComplianceReport>;
  /** A page of the entities failing a test. */
  failing(caller: Caller, input: FailingInput): Promise<FailingPage>;
  /** Why a test gives its outcome on an entity: each rule, whether it held and the values it saw. */
  explain(caller: Caller, input: ExplainInput): Promise<ExplainedOutcome>;
  /** Queues a run of tests over entities, as a job (follow it in the jobs API); returns its id. */
  run(caller: Caller, input: TestRunInput): Promise<{ jobId: string }>;
}

export interface ComplianceDeps {
  readonly db: Db;
  readonly log: Logger;
  readonly entities: EntityService;
  readonly tests: TestService;
  readonly search: SearchService;
  /** What each caller may read (the policies): a restricted reader's failing assets are searched, so they name and count only what they may read. */
  readonly access: AccessPolicies;
}

export class DefaultComplianceService implements ComplianceService {
  private readonly catalog: TestCatalog;

  constructor(private readonly deps: ComplianceDeps) {
    this.catalog = new TestCatalog(deps);
  }

  async report(caller: Caller, input: ReportInput = {}): Promise<ComplianceReport> {
    const days = input.days ?? DEFAULT_DAYS;
    if (!Number.isInteger(days) || days < 1 || days > MAX_DAYS) throw new ValidationError(`days must be a whole number from 1 to ${MAX_DAYS}, got ${days}`, 'days');
    const urn = input.urn ? parseUrnOfType(input.urn, TEST_TYPE).value : undefined;
    const tests = await this.catalog.active(urn ? [urn] : undefined);
    if (urn && tests.length === 0) throw new NotFoundError(`Test ${urn} does not exist or is soft deleted`);
    const [counts, history, views] = await Promise.all([
      complianceCounts(this.deps.db, tests),
      dailyCounts(this.deps.db, tests.map((t) => t.urn), days),
      this.deps.tests.getTests(caller, tests.map((t) => t.urn)),
    ]);
    const generatedAt = new Date();
    const today = generatedAt.toISOString().slice(0, 10);
    return {
      generatedAt: generatedAt.toISOString(),
      tests: counts.flatMap((c) => {
        const test = views.get(c.testUrn);
        if (!test) return [];
        const now = { day: today, passing: c.passing, failing: c.failing, notApplicable: c.notApplicable };
        const trend = [...history.filter((h) => h.testUrn === c.testUrn && h.day !== today).map(({ day, passing, failing, notApplicable }) => ({ day, passing, failing, notApplicable })), now];
        return [{ test, passing: c.passing, failing: c.failing, notApplicable: c.notApplicable, trend }];
      }),
    };
  }

  async failing(caller: Caller, input: FailingInput): Promise<FailingPage> {
    const urn = parseUrnOfType(input.urn, TEST_TYPE).value;
    const count = pageSize(input.count, DEFAULT_FAILING_COUNT);
    const query = input.query?.trim() ?? '';
    if ((await this.catalog.active([urn])).length === 0) throw new NotFoundError(`Test ${urn} does not exist or is soft deleted`);
    // A reader the policies restrict is answered by the search, which applies what they may read inside the engine's query.
    const restricted = (await this.deps.access.readFilterOf(caller)).kind !== 'all';
    if ((query !== '' && query !== '*') || (restricted && this.deps.search.enabled)) {
      const page = await this.deps.search.scroll(caller, {
        types: [],
        query: query || '*',
        count,
        ...(input.scrollId ? { scrollId: input.scrollId } : {}),
        orFilters: [{ and: [{ field: 'failingTests', values: [urn] }] }],
      });
      return { total: page.total, scrollId: page.nextScrollId, entities: page.entities };
    }
    const after = input.scrollId ? decodeScrollId(input.scrollId) : null;
    const [found, counts] = await Promise.all([entitiesWithOutcome(this.deps.db, urn, 'FAILURE', after, count + 1), countResults(this.deps.db, [urn])]);
    const page = found.slice(0, count);
    const more = found.length > count && page.length > 0;
    const listed = page.flatMap((u) => {
      const parsed = tryParseUrn(u);
      return parsed.ok ? [{ urn: u, entityType: parsed.urn.entityType.name, parsed: parsed.urn }] : [];
    });
    // Without a search engine a restricted reader's page leaves out what they may not read; its total counts every entity failing.
    const shown = restricted ? await this.deps.access.readable(caller, listed.map((e) => e.parsed)) : null;
    return {
      total: counts.get(urn)?.failing ?? 0,
      scrollId: more ? encodeScrollId(page[page.length - 1]!) : null,
      entities: listed.filter((e) => shown === null || shown.has(e.urn)).map(({ urn: u, entityType }) => ({ urn: u, entityType })),
    };
  }

  async explain(caller: Caller, input: ExplainInput): Promise<ExplainedOutcome> {
    const testUrn = parseUrnOfType(input.test, TEST_TYPE).value;
    const entity = parseUrn(input.entity);
    const [test] = await this.catalog.active([testUrn]);
    if (!test) throw new NotFoundError(`Test ${testUrn} does not exist or is soft deleted`);
    const view = await this.deps.entities.getEntity(caller, entity.value);
    const aspects = new Map<string, unknown>();
    for (const [name, value] of view.aspects) aspects.set(name, value.value);
    const explanation = explainTest(test.definition, { urn: view.urn, entityType: view.entityType.name, aspects }, createBoundedMatcher(), createWorkBudget().evaluation());
    return { ...explanation, failedRules: failedComparisons(explanation) };
  }

  async run(caller: Caller, input: TestRunInput): Promise<{ jobId: string }> {
    const tests = input.testUrns ? checkTestUrns(input.testUrns) : null;
    if (tests) {
      const found = await this.catalog.active(tests);
      const missing = tests.find((t) => !found.some((f) => f.urn === t));
      if (missing) throw new ValidationError(`Unknown or soft-deleted test in testUrns: ${missing}`, 'testUrns');
    }
    const query = input.query?.trim() || null;
    if (input.types && !query) throw new ValidationError('types narrows a query; give query too (absent: every entity the tests select)', 'types');
    if (query && !this.deps.search.enabled) throw new ValidationError('A run over a query needs search, which this server does not have', 'query');
    if (query) {
      // Refused now, with the reason, rather than by the job later.
      await this.deps.search.scroll(caller, { types: [...(input.types ?? [])], query, count: 0 });
    }
    const request: EvaluationRequest = { trigger: 'run', tests: tests && [...tests].sort(), query, types: input.types ? [...input.types].sort() : null };
    // The same run asked for again while one waits (a client looping on POST /tests/run) is that one; distinct runs count against the caller's quota.
    const key = `${EVALUATE_TESTS}:run:${createHash('sha256').update(JSON.stringify(request)).digest('hex')}`;
    const { id } = await inTransaction(this.deps.db, (tx) =>
      enqueueJob(tx, { kind: EVALUATE_TESTS, payload: { ...request }, owner: caller.actor, quota: LIMITS.unfinishedJobsPerPrincipal, coalesce: { key, joins: 'waiting' } }),
    );
    return { jobId: String(id) };
  }
}

