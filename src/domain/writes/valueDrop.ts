/** Writes that drop stored values of a property, and their refusal. */
import type { EntityWriteDecision } from './writeDecision.js';

/**
 * The properties whose stored values a write drops (issue #29): a definition that draws
 * a new generation for a property that already has one, outside a migration (a new
 * version, breaking or not), hides every value written before, and the cleanup job then
 * deletes them. That is as destructive as a hard delete of the values, so it needs the
 * scope a hard delete needs.
 */
export function propertiesWhoseValuesDrop(decision: EntityWriteDecision, isRegistered: (urn: string) => boolean): string[] {
  return decision.registry.filter((r) => r.define?.generation === 'new' && r.define.migration === null && isRegistered(r.urn)).map((r) => r.urn);
}

/** The refusal of such a write to a caller who may not drop values, naming what it would drop and what it needs ("a token with admin scope"). */
export function valueDropRefusal(propertyUrn: string, impact: { readonly entities: number; readonly values: number; readonly byEntityType: Readonly<Record<string, number>> }, needs: string): string {
  const types = Object.entries(impact.byEntityType).map(([type, n]) => `${type}: ${n}`).join(', ');
  return (
    `This definition of ${propertyUrn} starts a new version, which would drop its ${impact.values} stored value${impact.values === 1 ? '' : 's'} ` +
    `on ${impact.entities} entit${impact.entities === 1 ? 'y' : 'ies'} (${types}); a change that drops stored values needs ${needs}`
  );
}
