/**
 * The evaluation job (kind evaluate-tests): tests evaluated over every entity they
 * select, in slices, with progress in the jobs API. Queued when tests change (by the
 * evaluator), on a first start (a full run) and on demand (a run asked for over REST,
 * GraphQL or the CLI).
 *
 * Which entities: those of a search query when the job has one; otherwise every entity
 * of the types the tests target, then every entity still holding a result of them (a
 * test that narrowed its types, or was soft or hard deleted, leaves results behind
 * there until this pass drops them). The plan is fixed when the job starts and kept in
 * its cursor with how far it got, so a job handed to another replica goes on where it
 * stopped. The live tests are read again for every slice: an edit while the job runs
 * takes effect at the next slice (and queues its own job).
 */
import { ValidationError } from '../../domain/errors.js';
import { findEntityType } from '../../domain/registry/entityTypes.js';
import { tryParseUrn, type Urn } from '../../domain/urn.js';
import type { Logger } from '../../platform/logger.js';
import { listEntityUrns } from '../../store/aspects.js';
import type { Db } from '../../store/database.js';
import { countEntitiesByType, countHolders, dropDailyCounts, dropFromHistory, holdersOf } from '../../store/testResults.js';
import { SYSTEM_CALLER } from '../caller.js';
import type { JobContext } from '../jobs/worker.js';
import type { SearchService } from '../searchService.js';
import type { TestCatalog } from '../testCatalog.js';
import { storeEvaluations, type Evaluated, type ResultPath } from './resultWriter.js';
import { TestSet } from './testSet.js';

/** What an evaluate-tests job is asked to do (its payload). */
export interface EvaluationRequest {
  /** Why it runs: tests changed, a first start, or asked for. */
  readonly trigger: 'changed' | 'start' | 'run';
  /** The tests whose results it replaces; null: every test. */
  readonly tests: readonly string[] | null;
  /** A search query (REST query syntax) choosing the entities; absent: every entity the tests select. */
  readonly query?: string | null;
  /** Entity types the query searches; absent: the types searched by default. */
  readonly types?: readonly string[] | null;
}

/** The plan and how far it got. */
interface Cursor {
  /** Entity type names, then HOLDERS; or SEARCH alone. */
  readonly phases: readonly string[];
  readonly phase: number;
  /** The last URN handled in this phase (the scroll id in SEARCH); null at its start. */
  readonly after: string | null;
  readonly total: number;
  readonly done: number;
}

const HOLDERS = '*holders';
const SEARCH = '*search';
/** Entities per slice: progress is recorded and the live tests read again after each. */
const SLICE = 1000;
/**
 * A slice is written as this many batches at once: the write path waits on the
 * database most of the time (one batch after another kept neither the server nor
 * PostgreSQL busy), so batches side by side go about twice as fast (BENCHMARKS.md,
 * "Metadata tests across the catalog"). They never touch the same entities.
 */
const WRITES_AT_ONCE = 3;

export interface EvaluationJobDeps {
  readonly db: Db;
  readonly store: ResultPath;
  readonly catalog: TestCatalog;
  readonly log: Logger;
  /** Null when search is disabled: a run with a query then fails with the reason. */
  readonly search: SearchService | null;
  readonly onChanges?: () => void;
  /** Entities written per statement. */
  readonly writeBatch?: number;
}

export function parseEvaluationRequest(payload: Record<string, unknown>): EvaluationRequest {
  const trigger = payload.trigger === 'changed' || payload.trigger === 'start' ? payload.trigger : 'run';
  const list = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : null);
  return { trigger, tests: list(payload.tests), query: typeof payload.query === 'string' ? payload.query : null, types: list(payload.types) };
}

export async function runEvaluationJob(deps: EvaluationJobDeps, ctx: JobContext): Promise<'done' | 'yield'> {
  const request = parseEvaluationRequest(ctx.job.payload);
  const evaluated: Evaluated = request.tests ? new Set(request.tests) : 'all';
  let cursor = (ctx.job.cursor as Cursor | null) ?? (await plan(deps, request));
  await ctx.progress({ total: cursor.total, done: cursor.done });
  for (;;) {
    if (ctx.stopping()) return 'yield';
    const tests = new TestSet(await deps.catalog.active(request.tests ?? undefined));
    const page = await nextPage(deps, request, cursor);
    if (!page) {
      await forgetDeletedTests(deps, request);
      await ctx.progress({ total: cursor.done, done: cursor.done });
      return 'done';
    }
    const size = deps.writeBatch ?? Math.ceil(SLICE / WRITES_AT_ONCE);
    const batches: Urn[][] = [];
    for (let i = 0; i < page.urns.length; i += size) batches.push(page.urns.slice(i, i + size));
    for (let i = 0; i < batches.length; i += WRITES_AT_ONCE) {
      const stored = await Promise.all(batches.slice(i, i + WRITES_AT_ONCE).map((urns) => storeEvaluations(deps.store, deps.log, urns, tests, evaluated, SYSTEM_CALLER.actor, request.trigger === 'run' ? 'run' : 'change')));
      if (stored.some((s) => s.lastChange > 0n)) deps.onChanges?.();
    }
    const done = cursor.done + page.handled;
    cursor = { ...page.next, total: Math.max(cursor.total, done), done };
    await ctx.progress({ total: cursor.total, done: cursor.done, cursor });
  }
}

/**
 * Once the latest results no longer name them, tests that were hard deleted are taken
 * out of the earlier versions of every testResults and out of the trend.
 */
async function forgetDeletedTests(deps: EvaluationJobDeps, request: EvaluationRequest): Promise<void> {
  if (!request.tests) return;
  const existing = await deps.catalog.read(request.tests);
  const gone = request.tests.filter((t) => !existing.has(t));
  if (gone.length === 0) return;
  const versions = await dropFromHistory(deps.db, gone);
  await dropDailyCounts(deps.db, gone);
  deps.log.info({ tests: gone, versions }, 'metadata tests deleted: their results are gone from every version');
}

/** The phases and the number of entities to go through (an estimate where holders overlap the types). */
async function plan(deps: EvaluationJobDeps, request: EvaluationRequest): Promise<Cursor> {
  if (request.query !== null && request.query !== undefined) {
    const first = await searchOf(deps).scroll(SYSTEM_CALLER, { types: [...(request.types ?? [])], query: request.query, count: 0 });
    return { phases: [SEARCH], phase: 0, after: null, total: first.total, done: 0 };
  }
  const tests = new TestSet(await deps.catalog.active(request.tests ?? undefined));
  const types = tests.targetedTypes().filter((name) => {
    const type = findEntityType(name);
    return type !== undefined && TestSet.holdsResults(type);
  });
  const [byType, holders] = await Promise.all([countEntitiesByType(deps.db, types), countHolders(deps.db, request.tests)]);
  const total = types.reduce((sum, t) => sum + (byType.get(t) ?? 0), 0) + holders;
  return { phases: [...types, HOLDERS], phase: 0, after: null, total, done: 0 };
}

interface Page {
  readonly urns: Urn[];
  /** Entities this page went through (those left out as already covered count too). */
  readonly handled: number;
  readonly next: Pick<Cursor, 'phases' | 'phase' | 'after'>;
}

/** The next slice of entities, moving to the next phase when one runs out; null at the end. */
async function nextPage(deps: EvaluationJobDeps, request: EvaluationRequest, cursor: Cursor): Promise<Page | null> {
  for (let { phase, after } = cursor; phase < cursor.phases.length; phase++, after = null) {
    const name = cursor.phases[phase]!;
    const advance = (more: boolean, last: string | null) => ({ phases: cursor.phases, phase: more ? phase : phase + 1, after: more ? last : null });
    if (name === SEARCH) {
      if (after === '') continue;
      const page = await searchOf(deps).scroll(SYSTEM_CALLER, { types: [...(request.types ?? [])], query: request.query ?? '*', count: SLICE, ...(after ? { scrollId: after } : {}) });
      const urns = page.entities.flatMap((e) => urnOf(e.urn));
      // An empty string marks a search that has no more pages.
      return { urns, handled: urns.length, next: { phases: cursor.phases, phase, after: page.nextScrollId ?? '' } };
    }
    if (name === HOLDERS) {
      const found = await holdersOf(deps.db, request.tests, after, SLICE);
      if (found.length === 0) continue;
      // Entities of the types already gone through were evaluated there.
      const covered = new Set(cursor.phases.slice(0, -1));
      const urns = found.flatMap(urnOf).filter((u) => !covered.has(u.entityType.name));
      return { urns, handled: urns.length, next: advance(found.length === SLICE, found[found.length - 1]!) };
    }
    const found = await listEntityUrns(deps.db, name, after, SLICE);
    if (found.length === 0) continue;
    return { urns: found.flatMap(urnOf), handled: found.length, next: advance(found.length === SLICE, found[found.length - 1]!) };
  }
  return null;
}

function urnOf(value: string): Urn[] {
  const parsed = tryParseUrn(value);
  return parsed.ok ? [parsed.urn] : [];
}

function searchOf(deps: EvaluationJobDeps): SearchService {
  if (!deps.search?.enabled) throw new ValidationError('A run over a query needs search, which this server does not have', 'query');
  return deps.search;
}
