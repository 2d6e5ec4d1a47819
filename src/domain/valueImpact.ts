/**
 * What a change would remove of the values entities hold (docs/contract.md §13): how
 * many values, on how many entities, by entity type. Dry runs answer it, and refusals
 * and confirmations state it, so nobody drops values without being told how many.
 */
export interface ValueImpact {
  /** Entities holding values the change removes. */
  readonly entities: number;
  /** The values they hold (an entity may hold several of one property). */
  readonly values: number;
  /** Entities by entity type (`dataset`, `schemaField`, ...). */
  readonly byEntityType: Readonly<Record<string, number>>;
}

export const NO_IMPACT: ValueImpact = { entities: 0, values: 0, byEntityType: {} };

export function addImpacts(a: ValueImpact, b: ValueImpact): ValueImpact {
  const byEntityType: Record<string, number> = { ...a.byEntityType };
  for (const [type, n] of Object.entries(b.byEntityType)) byEntityType[type] = (byEntityType[type] ?? 0) + n;
  return { entities: a.entities + b.entities, values: a.values + b.values, byEntityType };
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** `12 values on 10 entities (dataset: 8, schemaField: 2)`, or `no values`. */
export function describeImpact(impact: ValueImpact): string {
  if (impact.values === 0) return 'no values';
  const types = Object.entries(impact.byEntityType).map(([type, n]) => `${type}: ${n}`).join(', ');
  return `${plural(impact.values, 'value', 'values')} on ${plural(impact.entities, 'entity', 'entities')}${types ? ` (${types})` : ''}`;
}

/** The sentence a refused breaking change ends with: what the new version it asks for would drop. */
export function breakingChangeImpact(impact: ValueImpact): string {
  return impact.values === 0
    ? 'The property holds no values, so a new version drops nothing.'
    : `A new version hides at once, and then removes, the ${describeImpact(impact)} the property holds now.`;
}
