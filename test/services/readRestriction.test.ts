/**
 * Read restrictions at scale (issue #40, docs/security.md "Policies"): on 10,000 datasets
 * with platforms, domains, owners, tags and structured property values drawn at random
 * (seeded), a search as a restricted person (policies granting VIEW_ENTITY_PAGE by a
 * property value, a domain, a tag on a platform, ownership, a URN prefix, a number) counts,
 * pages and facets exactly the entities a brute-force filter over the same data keeps:
 * the restriction is inside the engine's query, so totals, facets and every page agree.
 */
import { ROOT_PRINCIPAL } from '../../src/domain/policies/evaluate.js';
import { parseUrn } from '../../src/domain/urn.js';
import type { EntityPlan } from '../../src/domain/writes/plan.js';
import type { Caller } from '../../src/services/caller.js';
import { startTestRuntime, type TestRuntime } from '../support/runtime.js';
import { searchAvailableForTests } from '../support/server.js';
import { indexCaughtUp } from '../support/serviceCatalog.js';

const N = 10_000;
const ROOT: Caller = { actor: ROOT_PRINCIPAL, scope: 'admin' };
const PLATFORMS = ['hive', 'kafka', 'snowflake'];
const DOMAINS = ['finance', 'marketing', 'ops'];
const VALUES = ['finance', 'marketing', 'ops', 'sales'];
const TAGS = ['pii', 'public'];
const OLGA = 'urn:li:corpuser:olga@example.com';
const OPS = 'urn:li:corpGroup:ops';

interface Row {
  readonly urn: string;
  readonly platform: string;
  readonly domain: string | null;
  readonly value: string | null;
  readonly tier: number;
  readonly tags: readonly string[];
  readonly owners: readonly string[];
}

/** A small seeded generator (mulberry32): the same catalog every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const next = random(40);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
const ROWS: Row[] = Array.from({ length: N }, (_, i) => {
  const platform = pick(PLATFORMS);
  return {
    urn: `urn:li:dataset:(urn:li:dataPlatform:${platform},scale.${String(i).padStart(5, '0')},PROD)`,
    platform,
    domain: next() < 0.7 ? pick(DOMAINS) : null,
    value: next() < 0.8 ? pick(VALUES) : null,
    tier: 1 + Math.floor(next() * 5),
    tags: TAGS.filter(() => next() < 0.3),
    owners: [...(next() < 0.1 ? [OLGA] : []), ...(next() < 0.15 ? [OPS] : [])],
  };
});

function planOf(r: Row): EntityPlan {
  const properties = [{ propertyUrn: 'urn:li:structuredProperty:scale.domain', values: r.value ? [{ string: r.value }] : [] }, { propertyUrn: 'urn:li:structuredProperty:scale.tier', values: [{ double: r.tier }] }].filter((p) => p.values.length > 0);
  return {
    urn: parseUrn(r.urn),
    changes: [
      { op: 'set', aspect: 'status', value: { removed: false } },
      ...(r.domain ? [{ op: 'set' as const, aspect: 'domains', value: { domains: [`urn:li:domain:${r.domain}`] } }] : []),
      ...(r.owners.length > 0 ? [{ op: 'set' as const, aspect: 'ownership', value: { owners: r.owners.map((owner) => ({ owner, type: 'DATAOWNER' })) } }] : []),
      ...(r.tags.length > 0 ? [{ op: 'set' as const, aspect: 'globalTags', value: { tags: r.tags.map((t) => ({ tag: `urn:li:tag:${t}` })) } }] : []),
      { op: 'set', aspect: 'structuredProperties', value: { properties } },
    ],
    createsEntity: true,
  };
}

interface Reader {
  readonly name: string;
  readonly caller: Caller;
  /** The policies granting them VIEW_ENTITY_PAGE. */
  readonly policies: ReadonlyArray<Record<string, unknown>>;
  /** What they may read, written out by hand over the generated data. */
  readonly may: (r: Row) => boolean;
}

const reader = (id: string, groups: string[]): Caller => ({ actor: `urn:li:corpuser:${id}@example.com`, scope: 'read', groups, tokenKind: 'session' });
const view = (id: string, actors: Record<string, unknown>, criteria: unknown[]) => ({ id, displayName: id, privileges: ['VIEW_ENTITY_PAGE'], actors, resources: { filter: { criteria } } });

const READERS: Reader[] = [
  {
    name: 'a finance analyst: the finance value, or the finance domain, or pii on kafka, or what their group owns',
    caller: reader('fay', ['finance', 'ops']),
    policies: [
      view('r-value', { groups: ['finance'] }, [{ field: 'structuredProperties.scale.domain', values: ['finance'] }]),
      view('r-domain', { groups: ['finance'] }, [{ field: 'DOMAIN', values: ['finance'] }]),
      view('r-kafka-pii', { groups: ['finance'] }, [{ field: 'PLATFORM', values: ['kafka'] }, { field: 'TAG', values: ['pii'] }]),
      { id: 'r-owners', displayName: 'owners', privileges: ['VIEW_ENTITY_PAGE'], actors: { resourceOwners: true } },
    ],
    may: (r) => r.value === 'finance' || r.domain === 'finance' || (r.platform === 'kafka' && r.tags.includes('pii')) || r.owners.includes(OPS),
  },
  {
    name: 'an owner alone: what the ownership aspect names them in',
    caller: reader('olga', []),
    policies: [],
    may: (r) => r.owners.includes(OLGA),
  },
  {
    name: 'a snowflake reader by URN prefix, and tier 3 anywhere (a number value)',
    caller: reader('sue', ['snow']),
    policies: [
      view('r-prefix', { groups: ['snow'] }, [{ field: 'URN', values: ['urn:li:dataset:(urn:li:dataPlatform:snowflake,'], condition: 'STARTS_WITH' }]),
      view('r-tier', { groups: ['snow'] }, [{ field: 'structuredProperties.scale.tier', values: ['3'] }]),
    ],
    may: (r) => r.platform === 'snowflake' || r.tier === 3,
  },
];

let rt: TestRuntime;

function counts<K>(rows: readonly Row[], key: (r: Row) => K | null): Map<K, number> {
  const out = new Map<K, number>();
  for (const r of rows) {
    const k = key(r);
    if (k !== null) out.set(k, (out.get(k) ?? 0) + 1);
  }
  return out;
}

(searchAvailableForTests() ? describe : describe.skip)('read restrictions against a brute-force filter on 10,000 entities', () => {
  beforeAll(async () => {
    rt = await startTestRuntime({ search: true });
    for (const [qn, valueType] of [['scale.domain', 'string'], ['scale.tier', 'number']] as const) {
      await rt.services.properties.create(ROOT, { id: qn, valueType: `urn:li:dataType:svc.${valueType}`, entityTypes: ['urn:li:entityType:svc.dataset'] });
    }
    for (let i = 0; i < N; i += 1000) await rt.services.writes.submit(ROOT, { entities: ROWS.slice(i, i + 1000).map(planOf) }, { async: true });
    const file = [...READERS.flatMap((r) => r.policies)];
    // Only the readers' policies grant reading: the shipped read policy is turned off.
    const shipped = await rt.services.policies.get(ROOT, 'propgraph-default-read');
    await rt.services.policies.apply(ROOT, { policies: [...file, { id: 'propgraph-default-read', ...shipped.info, state: 'INACTIVE' }] });
    await indexCaughtUp(rt, 600_000);
  }, 900_000);

  afterAll(async () => {
    await rt?.stop();
  });

  describe.each(READERS.map((r) => [r.name, r] as const))('%s', (_name, r) => {
    const expected = () => ROWS.filter(r.may);

    test('every page of a scroll, and the total on each, is exactly what the brute-force filter keeps', async () => {
      const want = expected();
      expect(want.length).toBeGreaterThan(100);
      expect(want.length).toBeLessThan(N);
      const seen: string[] = [];
      let scrollId: string | null = null;
      do {
        const page: Awaited<ReturnType<typeof rt.services.search.scroll>> = await rt.services.search.scroll(r.caller, { types: ['dataset'], query: 'name:scale', count: 1000, scrollId });
        expect(page.total).toBe(want.length);
        seen.push(...page.entities.map((e) => e.urn));
        scrollId = page.nextScrollId;
      } while (scrollId);
      expect(seen.sort()).toEqual(want.map((w) => w.urn).sort());
    });

    test('facets count only what they may read', async () => {
      const want = expected();
      const { facets } = await rt.services.search.aggregate(r.caller, { types: ['dataset'], query: 'name:scale', facets: ['platform', 'structuredProperties.scale.domain', 'domains'], maxAggValues: 100 });
      const got = (field: string) => new Map(facets.find((f) => f.field === field)!.aggregations.map((a) => [a.value, a.count]));
      expect(got('platform')).toEqual(counts(want, (w) => `urn:li:dataPlatform:${w.platform}`));
      expect(got('structuredProperties.scale.domain')).toEqual(counts(want, (w) => w.value));
      expect(got('domains')).toEqual(counts(want, (w) => (w.domain ? `urn:li:domain:${w.domain}` : null)));
    });

    test("the reader's own filter narrows within what they may read", async () => {
      const want = expected().filter((w) => w.platform === 'hive' && w.tier >= 4);
      const page = await rt.services.search.scroll(r.caller, { types: ['dataset'], query: 'name:scale AND platform:hive AND structuredProperties.scale_tier:>=4', count: 0 });
      expect(page.total).toBe(want.length);
    });

    test('a single read agrees with the search: a sample of entities in and out', async () => {
      const inside = expected().slice(0, 20).map((w) => w.urn);
      const outside = ROWS.filter((w) => !r.may(w)).slice(0, 20).map((w) => w.urn);
      const readable = await rt.services.access.readable(r.caller, [...inside, ...outside]);
      expect([...readable].sort()).toEqual([...inside].sort());
    });
  });
});
