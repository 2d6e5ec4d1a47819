/**
 * Reads metadata tests from the aspect store: every test, or the ones a request
 * names, with their parsed definitions. Parsed definitions are cached by their JSON
 * text, which is all a parse depends on.
 */
import { ASPECT, isSoftDeleted, SOFT_DELETE } from '../domain/aspects/index.js';
import { findEntityType, type EntityTypeInfo } from '../domain/registry/entityTypes.js';
import { ValidationError } from '../domain/errors.js';
import { parseTestDefinitionJson, type TestDefinition } from '../domain/testDefinition.js';
import type { TestInfo } from '../domain/testInfo.js';
import { tryParseUrn } from '../domain/urn.js';
import type { Logger } from '../platform/logger.js';
import { latestAspectOfMany, listEntityUrns } from '../store/aspects.js';
import type { Db } from '../store/database.js';

export const TEST_TYPE: EntityTypeInfo = findEntityType('test')!;

/** At most this many tests may be named in one request. */
export const MAX_TEST_URNS = 1000;
const PAGE = 1000;
const CACHE_SIZE = 500;

export interface StoredTest {
  readonly urn: string;
  readonly info: TestInfo;
  /** Soft deleted (status.removed): not listed and not run. */
  readonly removed: boolean;
}

export interface RunnableTest {
  readonly urn: string;
  readonly definition: TestDefinition;
}

export class TestCatalog {
  private readonly cache = new Map<string, TestDefinition>();

  constructor(private readonly deps: { readonly db: Db; readonly log: Logger }) {}

  /** Every test entity's URN, in URN order. */
  async allUrns(): Promise<string[]> {
    const out: string[] = [];
    let after: string | null = null;
    for (;;) {
      const page = await listEntityUrns(this.deps.db, TEST_TYPE.name, after, PAGE);
      out.push(...page);
      if (page.length < PAGE) return out;
      after = page[page.length - 1]!;
    }
  }

  /** The tests among `urns` that have a testInfo, in the order given. */
  async read(urns: readonly string[]): Promise<Map<string, StoredTest>> {
    const out = new Map<string, StoredTest>();
    for (let i = 0; i < urns.length; i += PAGE) {
      const chunk = urns.slice(i, i + PAGE);
      const [infos, statuses] = await Promise.all([
        latestAspectOfMany(this.deps.db, chunk, ASPECT.testInfo),
        latestAspectOfMany(this.deps.db, chunk, SOFT_DELETE.aspect),
      ]);
      for (const urn of chunk) {
        const info = infos.get(urn);
        if (!info) continue;
        const removed = isSoftDeleted(statuses.get(urn)?.metadata);
        out.set(urn, { urn, info: info.metadata as TestInfo, removed });
      }
    }
    return out;
  }

  /**
   * The tests to run: those named (each must exist and not be soft deleted, else a
   * 400 naming it), or every live test when none are named.
   */
  async runnable(named: readonly string[] | undefined): Promise<RunnableTest[]> {
    let tests: StoredTest[];
    if (named) {
      const urns = checkTestUrns(named);
      const found = await this.read(urns);
      tests = urns.map((urn) => {
        const test = found.get(urn);
        if (!test) throw new ValidationError(`Unknown test urn in testUrns: ${urn}`, 'testUrns');
        if (test.removed) throw new ValidationError(`Test in testUrns is soft deleted: ${urn}`, 'testUrns');
        return test;
      });
    } else {
      tests = [...(await this.read(await this.allUrns())).values()].filter((t) => !t.removed);
    }
    const out: RunnableTest[] = [];
    for (const test of tests) {
      const definition = this.definitionOf(test);
      if (definition) out.push({ urn: test.urn, definition });
    }
    return out;
  }

  /** The live tests (all, or those among `urns` that exist and are not soft deleted), in URN order; never refuses. */
  async active(urns?: readonly string[]): Promise<RunnableTest[]> {
    const found = await this.read(urns ? [...new Set(urns)] : await this.allUrns());
    const out: RunnableTest[] = [];
    for (const test of found.values()) {
      const definition = test.removed ? undefined : this.definitionOf(test);
      if (definition) out.push({ urn: test.urn, definition });
    }
    return out.sort((a, b) => (a.urn < b.urn ? -1 : a.urn > b.urn ? 1 : 0));
  }

  private definitionOf(test: StoredTest): TestDefinition | undefined {
    const json = test.info.definition?.json;
    if (typeof json !== 'string') return undefined;
    const cached = this.cache.get(json);
    if (cached) return cached;
    try {
      const definition = parseTestDefinitionJson(json);
      if (this.cache.size >= CACHE_SIZE) this.cache.clear();
      this.cache.set(json, definition);
      return definition;
    } catch (err) {
      // Every write validates the definition; this guards rows written under older rules.
      this.deps.log.warn({ test: test.urn, err: (err as Error).message }, 'skipping a metadata test whose stored definition no longer parses');
      return undefined;
    }
  }
}

/** Validates a request's list of test URNs; duplicates are dropped. */
export function checkTestUrns(raw: readonly unknown[]): string[] {
  if (raw.length > MAX_TEST_URNS) throw new ValidationError(`testUrns has more than the limit of ${MAX_TEST_URNS} entries`, 'testUrns');
  const out: string[] = [];
  raw.forEach((u, i) => {
    const parsed = typeof u === 'string' ? tryParseUrn(u) : undefined;
    if (!parsed?.ok || parsed.urn.entityType !== TEST_TYPE) {
      throw new ValidationError(`testUrns[${i}] must be a test urn (urn:li:test:<id>), got ${JSON.stringify(u)}`, 'testUrns');
    }
    if (!out.includes(u as string)) out.push(u as string);
  });
  return out;
}
