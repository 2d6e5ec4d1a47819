/**
 * A search result's values in the order it shows them: every property the search filters on
 * first (in the address's order), then the others up to `others` of them; the rest are
 * counted (issue #41: the PII value itself hid behind "and 1 more"). It imports nothing,
 * so the unit tests read it as it is.
 */
export function resultValues<T extends { structuredProperty: { definition: { qualifiedName: string } } }>(
  held: readonly T[],
  filtered: readonly string[],
  others: number,
): { shown: Array<T & { filtered: boolean }>; more: number } {
  const rank = (p: T) => filtered.indexOf(p.structuredProperty.definition.qualifiedName);
  const first = held.filter((p) => rank(p) >= 0).sort((a, b) => rank(a) - rank(b));
  const rest = held.filter((p) => rank(p) < 0);
  const room = Math.max(0, others - first.length);
  return {
    shown: [...first.map((p) => ({ ...p, filtered: true })), ...rest.slice(0, room).map((p) => ({ ...p, filtered: false }))],
    more: rest.length - Math.min(room, rest.length),
  };
}
