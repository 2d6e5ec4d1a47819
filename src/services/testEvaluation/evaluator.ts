/**
 * Continuous evaluation of metadata tests: the second consumer of the change log,
 * built as the indexer is (a lease, a recorded position, batches, idempotence); the
 * lease, the polling and the back-off are the loop it shares with the indexer
 * (../consumerLoop.ts).
 *
 * - Each changed entity is evaluated against every live test and its testResults
 *   written through the write path when an outcome changed (resultWriter.ts). Changes
 *   that only wrote testResults are skipped: results are computed from the other
 *   aspects (a test cannot read testResults), so the evaluator's own writes never
 *   bring an entity back to it.
 * - A changed test (created, edited, soft deleted, restored, deleted), or a structured
 *   property a test names changing state, queues an evaluation job over everything the
 *   test selects and everything holding its results (evaluationJob.ts); tests changed in
 *   quick succession share one job.
 * - Its position (the (xid, id) of the last change handled) is recorded in the
 *   database, only by the lease holder; a new holder goes on from there. Every step is
 *   idempotent: a batch handled twice writes nothing the second time.
 * - The first start on a database (a new install or an upgrade) takes the log from the
 *   current horizon and queues one full run, which covers everything written before.
 * - While results change, it records today's counts of every test once a minute (the
 *   compliance trend).
 */
import { ASPECT } from '../../domain/aspects/index.js';
import { ENTITY } from '../../domain/registry/entityTypes.js';
import { tryParseUrn, type Urn } from '../../domain/urn.js';
import type { Logger } from '../../platform/logger.js';
import { anyChangeAfter, changesAfter, consumerPosition, restartConsumer, savePosition, startConsumer, touchConsumer, type ConsumedChange, type LogPosition } from '../../store/changeLogConsumer.js';
import type { Db } from '../../store/database.js';
import { anyEntityOfType } from '../../store/aspects.js';
import { enqueueJob, type JobRequest } from '../../store/jobs.js';
import { entitiesWithResults, saveTodaysCounts } from '../../store/testResults.js';
import { inTransaction } from '../../store/transaction.js';
import { SYSTEM_CALLER } from '../caller.js';
import { ConsumerLoop } from '../consumerLoop.js';
import { EVALUATE_TESTS } from '../jobs/kinds.js';
import type { TestCatalog } from '../testCatalog.js';
import { complianceCounts } from './complianceCounts.js';
import { storeEvaluations, type ResultPath } from './resultWriter.js';
import { TestSet } from './testSet.js';

export const EVALUATOR_LEASE = 'test-evaluator';
export const EVALUATOR_CONSUMER = 'test-evaluator';

export interface TestEvaluatorOptions {
  readonly db: Db;
  readonly store: ResultPath;
  readonly catalog: TestCatalog;
  readonly log: Logger;
  /** Called with the change ids of results written (the indexer is nudged). */
  readonly onChanges?: () => void;
  /** Changes read per batch. */
  readonly batchSize?: number;
  /** Entities written per statement. */
  readonly writeBatch?: number;
  readonly pollMs?: number;
  /** After a batch smaller than a full one, how long changes may gather before the next (0: none). */
  readonly gatherMs?: number;
  readonly leaseSeconds?: number;
  /** How long a changed test's job waits for more changes to join it, and at most. */
  readonly changedTestDelaySeconds?: number;
  readonly changedTestMaxDelaySeconds?: number;
  /** How often, at most, today's counts are recorded while results change. */
  readonly snapshotEveryMs?: number;
}

export interface TestEvaluatorState {
  readonly running: boolean;
  readonly leader: boolean;
  readonly healthy: boolean;
  readonly lastError: string | null;
  /** Entities evaluated and results written since this process started. */
  readonly evaluated: number;
  readonly written: number;
}

/** How often an idle evaluator marks its position alive (store/changeLogConsumer.ts, CONSUMER_STALE_SECONDS). */
const TOUCH_EVERY_MS = 10 * 60_000;
/**
 * Under a stream of writes, each step found one or two changes, and paid its reads and
 * its recorded position for them: the Meilisearch outage suite's 8 writers took 5.9
 * statements per write, 3.3 with this gathering (a step at most every 50 ms while
 * changes keep coming). Results may follow a change by up to this much more.
 */
const GATHER_MS = 50;
const BATCH_SIZE = 1000;
/** How long the live tests are trusted without a test change seen in the log (another version may write tests too). */
const TESTS_MAX_AGE_MS = 30_000;

export class TestEvaluator extends ConsumerLoop {
  private position: LogPosition | null = null;
  private tests: { set: TestSet; at: number } | null = null;
  private evaluated = 0;
  private written = 0;
  private countsChanged = true;
  private lastSnapshot: { at: number; day: string } | null = null;
  private touchedAt = 0;

  private readonly batchSize: number;

  constructor(private readonly options: TestEvaluatorOptions) {
    const batchSize = options.batchSize ?? BATCH_SIZE;
    super({
      db: options.db,
      log: options.log,
      lease: EVALUATOR_LEASE,
      holderPrefix: 'test-evaluator',
      name: 'test evaluator',
      pollMs: options.pollMs,
      gather: { ms: options.gatherMs ?? GATHER_MS, fewerThan: batchSize },
      leaseSeconds: options.leaseSeconds,
    });
    this.batchSize = batchSize;
  }

  get state(): TestEvaluatorState {
    const { running, leader, healthy, lastError } = this.loopState;
    return { running, leader, healthy, lastError, evaluated: this.evaluated, written: this.written };
  }

  /**
   * Whether every committed change has been handled (the position is at the end of the
   * log). Not only those below the horizon: while another transaction is open, the
   * horizon holds back changes already committed, which are not handled yet.
   */
  async caughtUp(): Promise<boolean> {
    const position = await consumerPosition(this.options.db, EVALUATOR_CONSUMER);
    return position !== null && !(await anyChangeAfter(this.options.db, position));
  }

  /** One step of the loop, as the lease holder: from the position, a batch; with nothing to do, the idle chores. */
  protected override async step(): Promise<number> {
    this.position ??= await this.startPosition();
    const handled = await this.drainBatch(this.position);
    if (handled === 0) await this.whileIdle();
    return handled;
  }

  /** Read the position again: a batch that failed half-way is handled again (idempotent). */
  protected override failed(): void {
    this.position = null;
  }

  /** A new holder goes on from the recorded position, read again when this process takes the lease back. */
  protected override notHeld(): void {
    this.position = null;
  }

  /**
   * The recorded position; on a database where the evaluator never ran, the horizon,
   * with a full run queued (in the same transaction) when there are tests to run.
   */
  private async startPosition(): Promise<LogPosition> {
    const { db, log } = this.options;
    const recorded = await consumerPosition(db, EVALUATOR_CONSUMER);
    if (recorded && !recorded.stale) return recorded;
    // Away so long that the log may have been pruned past the position (evaluation off, or down): start over.
    if (recorded && (await changesAfter(db, recorded, 1)).length === 0) return recorded;
    const started = await inTransaction(db, async (tx) => {
      const position = recorded ? await restartConsumer(tx, EVALUATOR_CONSUMER) : await startConsumer(tx, EVALUATOR_CONSUMER);
      // Asked after the position is taken: a test committed below the horizon is seen here, one above it in the log.
      const queued = position !== null && (await anyEntityOfType(tx, ENTITY.test.name));
      if (queued) await enqueueJob(tx, { kind: EVALUATE_TESTS, payload: { trigger: 'start', tests: null } });
      return position && { position, queued };
    });
    if (started?.queued) {
      log.info(recorded ? 'test evaluator: away too long to trust the log; a full evaluation is queued' : 'test evaluator: first start on this database; a full evaluation is queued');
    }
    return started?.position ?? (await consumerPosition(db, EVALUATOR_CONSUMER))!;
  }

  /** Handles the next batch of changes; returns how many there were. */
  private async drainBatch(position: LogPosition): Promise<number> {
    const { db, log } = this.options;
    const changes = await changesAfter(db, position, this.batchSize);
    if (changes.length === 0) return 0;
    const { entities, tests, properties } = classify(changes);
    if (tests.size > 0 || properties.size > 0) this.tests = null;
    // Results written by anyone else (an evaluation job, a push, a hand-written aspect)
    // change today's counts too: without this, a snapshot taken while a job was still
    // writing stayed the day's last word.
    if (changes.some((c) => c.aspect === ASPECT.testResults)) this.countsChanged = true;
    const live = await this.liveTests();
    await this.evaluateEntities(entities, live);
    const toRun = new Set([...tests, ...live.naming(properties)]);
    if (toRun.size > 0) {
      await inTransaction(db, (tx) =>
        enqueueJob(tx, changedTestsRequest([...toRun], this.options.changedTestDelaySeconds ?? 2, this.options.changedTestMaxDelaySeconds ?? 10)),
      );
      this.countsChanged = true;
      log.info({ tests: [...toRun] }, 'test evaluator: tests changed; their evaluation is queued');
    }
    const last = changes[changes.length - 1]!;
    const next = { xid: last.xid, id: last.id };
    if (!(await savePosition(db, EVALUATOR_CONSUMER, next, { name: EVALUATOR_LEASE, holder: this.holder }))) {
      throw new Error('lost the test evaluator lease before recording its position');
    }
    this.position = next;
    return changes.length;
  }

  /** Evaluates the entities some live test targets or that hold results, in batches through the write path. */
  private async evaluateEntities(urns: readonly Urn[], live: TestSet): Promise<void> {
    if (urns.length === 0) return;
    const holding = await entitiesWithResults(this.options.db, urns.filter((u) => !live.targets(u.entityType)).map((u) => u.value));
    const due = urns.filter((u) => TestSet.holdsResults(u.entityType) && (live.targets(u.entityType) || holding.has(u.value)));
    const size = this.options.writeBatch ?? 250;
    for (let i = 0; i < due.length; i += size) {
      const chunk = due.slice(i, i + size);
      const stored = await storeEvaluations(this.options.store, this.options.log, chunk, live, 'all', SYSTEM_CALLER.actor, 'change');
      this.evaluated += chunk.length;
      this.written += stored.written;
      if (stored.lastChange > 0n) {
        this.countsChanged = true;
        this.options.onChanges?.();
      }
    }
  }

  private async liveTests(): Promise<TestSet> {
    if (this.tests && Date.now() - this.tests.at < TESTS_MAX_AGE_MS) return this.tests.set;
    const set = new TestSet(await this.options.catalog.active());
    this.tests = { set, at: Date.now() };
    return set;
  }

  /** Keeps the position marked alive, and records the day's counts. */
  private async whileIdle(): Promise<void> {
    if (Date.now() - this.touchedAt > TOUCH_EVERY_MS) {
      await touchConsumer(this.options.db, EVALUATOR_CONSUMER, { name: EVALUATOR_LEASE, holder: this.holder });
      this.touchedAt = Date.now();
    }
    await this.maybeSnapshot();
  }

  /** Records today's counts of every live test: once a minute at most while they change, and once each day. */
  private async maybeSnapshot(): Promise<void> {
    const now = Date.now();
    const day = new Date(now).toISOString().slice(0, 10);
    const last = this.lastSnapshot;
    if (last && last.day === day && (!this.countsChanged || now - last.at < (this.options.snapshotEveryMs ?? 60_000))) return;
    const live = await this.liveTests();
    await saveTodaysCounts(this.options.db, await complianceCounts(this.options.db, live.tests));
    this.lastSnapshot = { at: now, day };
    this.countsChanged = false;
  }
}

/**
 * What a batch of changes asks for: the entities to evaluate (each once), the tests
 * that changed, and the structured properties that changed (their values look
 * different to every test that names them). Changes that wrote testResults alone are
 * left out: nothing a test reads changed.
 */
export function classify(changes: readonly ConsumedChange[]): { entities: Urn[]; tests: Set<string>; properties: Set<string> } {
  const entities = new Map<string, Urn>();
  const tests = new Set<string>();
  const properties = new Set<string>();
  for (const c of changes) {
    const parsed = tryParseUrn(c.urn);
    if (!parsed.ok) continue;
    const type = parsed.urn.entityType;
    if (type === ENTITY.test) tests.add(c.urn);
    else if (type === ENTITY.structuredProperty) properties.add(c.urn);
    else if (c.aspect !== ASPECT.testResults && !entities.has(c.urn)) entities.set(c.urn, parsed.urn);
  }
  return { entities: [...entities.values()], tests, properties };
}

/**
 * The evaluation of changed tests, `delaySeconds` from now. Tests changed in quick
 * succession (ten created one after another) join the job still waiting, so the catalog
 * is read once for all of them; the wait ends `maxDelaySeconds` after the first change
 * at the latest.
 */
function changedTestsRequest(tests: readonly string[], delaySeconds: number, maxDelaySeconds: number): JobRequest {
  return {
    kind: EVALUATE_TESTS,
    payload: { trigger: 'changed', tests: [...new Set(tests)].sort() },
    delaySeconds,
    coalesce: {
      key: `${EVALUATE_TESTS}:changed`,
      joins: 'waiting',
      merge: (waiting) => ({ ...waiting, tests: [...new Set([...(Array.isArray(waiting.tests) ? waiting.tests : []), ...tests])].sort() }),
      maxDelaySeconds,
    },
  };
}
