/**
 * What a policy's resource criteria are judged against: the facts of one entity, read as
 * the search index reads them (domain/searchFacts.ts: its type, URN, platform, domains,
 * owners and tags, and its visible structured property values), so that a policy says
 * the same of an entity whether it is judged alone (a write, a read of one entity) or
 * compiled into a search (readFilter.ts). Values compare as the engine compares them:
 * texts without regard to case, numbers as numbers. Pure.
 */
import { searchFacts } from '../searchFacts.js';
import { isDoubleValue, type TypedValue } from '../typedValue.js';
import type { Urn } from '../urn.js';
import type { Criterion } from './policy.js';

export interface ResourceFacts {
  readonly urn: string;
  readonly entityType: string;
  readonly platform: string | null;
  readonly domains: readonly string[];
  readonly owners: readonly string[];
  readonly tags: readonly string[];
  /** Visible values by property URN. */
  readonly values: ReadonlyMap<string, readonly TypedValue[]>;
}

/** What the facts of an entity are read from: which aspects, and whether its values. */
export interface FactNeeds {
  readonly aspects: readonly string[];
  readonly values: boolean;
}

export const NO_FACT_NEEDS: FactNeeds = { aspects: [], values: false };

/** The aspects whose search facts name domains, owners and tags (domain/aspects/). */
export const FACT_ASPECTS = { domains: 'domains', owners: 'ownership', tags: 'globalTags' } as const;

function texts(value: unknown): string[] {
  if (value === undefined || typeof value === 'boolean') return [];
  return (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === 'string');
}

/** An entity's facts from its URN, its latest aspects (those FACT_ASPECTS names, when loaded) and its visible values. */
export function resourceFactsOf(urn: Urn, aspects: ReadonlyMap<string, unknown>, values: ReadonlyMap<string, readonly TypedValue[]>): ResourceFacts {
  const facts = searchFacts(urn, false, aspects);
  return {
    urn: urn.value,
    entityType: urn.entityType.name,
    platform: typeof facts.platform === 'string' ? facts.platform : null,
    domains: texts(facts.domains),
    owners: texts(facts.owners),
    tags: texts(facts.tags),
    values,
  };
}

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

function valueMatches(held: TypedValue, wanted: string): boolean {
  if (isDoubleValue(held)) {
    const n = Number(wanted.trim());
    return wanted.trim() !== '' && Number.isFinite(n) && n === held.double;
  }
  return same(held.string, wanted);
}

/** Whether the entity meets one criterion: any of its values matches any of the criterion's. */
export function meetsCriterion(c: Criterion, facts: ResourceFacts): boolean {
  if (typeof c.field === 'object') {
    const held = facts.values.get(c.field.property) ?? [];
    return held.some((h) => c.values.some((w) => valueMatches(h, w)));
  }
  switch (c.field) {
    case 'TYPE':
      return c.values.includes(facts.entityType);
    case 'URN':
      return c.condition === 'STARTS_WITH' ? c.values.some((p) => facts.urn.toLowerCase().startsWith(p.toLowerCase())) : c.values.includes(facts.urn);
    case 'PLATFORM':
      return facts.platform !== null && c.values.some((v) => same(v, facts.platform!));
    case 'DOMAIN':
      return facts.domains.some((d) => c.values.some((v) => same(v, d)));
    case 'TAG':
      return facts.tags.some((t) => c.values.some((v) => same(v, t)));
  }
}

/** Whether the facts a criterion reads are more than the URN gives (aspects or values must be loaded). */
export function criterionNeeds(c: Criterion): FactNeeds {
  if (typeof c.field === 'object') return { aspects: [], values: true };
  switch (c.field) {
    case 'DOMAIN':
      return { aspects: [FACT_ASPECTS.domains], values: false };
    case 'TAG':
      return { aspects: [FACT_ASPECTS.tags], values: false };
    default:
      return NO_FACT_NEEDS;
  }
}

export function mergeNeeds(needs: readonly FactNeeds[]): FactNeeds {
  return { aspects: [...new Set(needs.flatMap((n) => n.aspects))], values: needs.some((n) => n.values) };
}
