/**
 * The propertyDefinition aspect (docs/contract.md §2): parsed and canonicalised, checked for
 * backwards compatibility against the stored definition and the values entities hold
 * (a breaking change no stored value breaks is accepted), refused while the property is
 * soft deleted or migrating, or when its search field name is taken. The registry row
 * follows in the same statement:
 * - a new property, or a new `version`, starts a new lineage and a new generation, which
 *   hides every older value at once; a cleanup job then deletes those values;
 * - a migration (domain/valueMigration.ts) draws a new generation in the same lineage:
 *   readers see the older values through its rules until its job has rewritten them.
 */
import { breakingChangeList, checkCompatibility, describeChange, type CountedChange } from '../compatibility.js';
import { ConflictError, SoftDeletedError, ValidationError } from '../errors.js';
import { CLEANUP_PROPERTY_VALUES, MIGRATE_PROPERTY_VALUES } from '../jobKinds.js';
import { effectiveDefinition, inCanonicalNamespace, parsePropertyDefinition, searchFieldName, type PropertyDefinition } from '../propertyDefinition.js';
import { dataTypeOf } from '../typeUrns.js';
import { activeMigrationJson, migrationEffect, migrationTargetOf, uncoveredRefusal, type ActiveMigration, type MigrationRules } from '../valueMigration.js';
import { type AspectRules, type AspectState, type HolderQuestion } from './aspectRules.js';
import type { AspectDecision, EntityWriteDecision, LifecycleNote, RegistryDefinition } from './writeDecision.js';

/** What a definition write may carry beside the definition. */
export interface DefinitionDirective {
  readonly migration?: MigrationRules;
}

function migrationOf(directive: unknown): MigrationRules | undefined {
  return (directive as DefinitionDirective | undefined)?.migration;
}

/** The stored definition and the registry record a change of it is judged against; undefined for a new property. */
function storedOf(state: AspectState): { stored: PropertyDefinition; generation: bigint; migration: ActiveMigration | null } | undefined {
  const registered = state.properties.get(state.urn.value);
  if (state.stored === undefined || !registered) return undefined;
  return { stored: inCanonicalNamespace(state.stored as PropertyDefinition, state.urnNamespace), generation: registered.generation, migration: registered.migration };
}

function refuseWhileMigrating(state: AspectState): void {
  const registered = state.properties.get(state.urn.value);
  if (registered?.migration) {
    throw new ConflictError(`A migration of ${state.urn.value}'s values is in progress; change the definition again once its job is done (GET /openapi/v3/jobs)`, { propertyUrn: state.urn.value });
  }
}

export function decidePropertyDefinition(next: unknown, state: AspectState): AspectDecision {
  const urn = state.urn.value;
  const parsed = parsePropertyDefinition(next, state.urn.id, state.urnNamespace);
  const registered = state.properties.get(urn);
  if (registered?.removed) {
    throw new SoftDeletedError('Cannot mutate a soft deleted Structured Property Definition', 'propertyDefinition');
  }
  const rules = migrationOf(state.directive);
  const before = storedOf(state);
  let definition: PropertyDefinition = parsed;
  let registry: Pick<RegistryDefinition, 'generation' | 'lineage' | 'migration'> = { generation: 'new', lineage: 'new', migration: null };
  const jobs: AspectDecision['jobs'][number][] = [];
  const events: LifecycleNote[] = [];
  let report: Record<string, unknown> | undefined;
  if (!before) {
    events.push({ event: 'created' });
  } else {
    refuseWhileMigrating(state);
    const counted: readonly CountedChange[] | undefined = state.holders?.counted;
    const update = checkCompatibility(before.stored, parsed, counted, rules !== undefined);
    definition = update.definition;
    report = { breaking: update.breaking.map((c) => ({ change: describeChange(c.change), kind: c.change.kind, holders: c.holders ?? null })) };
    if (update.versionChanged) {
      // Values under an older generation (a previous version) are now invisible; remove them.
      jobs.push({ kind: CLEANUP_PROPERTY_VALUES, payload: { propertyUrn: urn } });
      events.push({ event: 'versionChanged', detail: { from: before.stored.version ?? null, to: definition.version ?? null } });
    } else if (rules && update.breaking.length > 0) {
      const target = migrationTargetOf(effectiveDefinition(urn, definition));
      const effect = migrationEffect(state.holders?.entries ?? [], rules, target);
      if (effect.refused.values > 0) throw uncoveredRefusal(urn, effect);
      const migration: ActiveMigration = { fromGeneration: before.generation, rules, target };
      registry = { generation: 'new', lineage: 'keep', migration };
      jobs.push({ kind: MIGRATE_PROPERTY_VALUES, payload: { propertyUrn: urn, migration: activeMigrationJson(migration) } });
      report = { ...report, migration: effect };
      events.push({ event: 'migrationStarted', detail: { entities: effect.changed, holders: effect.holders, rules: effect.rules.map((r) => r.rule.split(' ')[0]).join(',') } });
    } else {
      registry = { generation: before.generation, lineage: 'keep', migration: null };
      events.push({ event: 'changed' });
    }
  }
  const searchField = searchFieldName(definition.qualifiedName);
  const owner = state.searchFieldOwners.get(searchField);
  if (owner !== undefined && owner !== urn) {
    throw new ValidationError(
      `Structured property ${urn} would share the search field structuredProperties.${searchField} with ${owner}; ` +
        'qualified names that differ only by "." and "_" cannot both exist',
      'qualifiedName',
    );
  }
  return {
    stored: definition,
    visible: definition,
    store: 'if-changed',
    valueRows: null,
    registry: {
      urn,
      define: { qualifiedName: definition.qualifiedName, searchField, valueType: dataTypeOf(definition.valueType), version: definition.version ?? null, ...registry },
      removed: null,
    },
    jobs,
    reliesOn: [],
    events,
    ...(report ? { report } : {}),
  };
}

/** The breaking changes of a definition write whose holders must be counted first (and every entry read, for a migration). */
function holdersToCount(next: unknown, state: AspectState): HolderQuestion | null {
  const before = storedOf(state);
  if (!before || state.properties.get(state.urn.value)?.removed || before.migration) return null;
  let parsed: PropertyDefinition;
  try {
    parsed = parsePropertyDefinition(next, state.urn.id, state.urnNamespace);
  } catch {
    // The decision refuses it, with the reason.
    return null;
  }
  const changes = breakingChangeList(before.stored, parsed);
  if (changes.length === 0) return null;
  return { propertyUrn: state.urn.value, generation: before.generation, changes, entries: migrationOf(state.directive) !== undefined };
}

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

export const propertyDefinitionRules: AspectRules = {
  createsEntity: true,
  // The qualified name must equal the urn id, so the search field is known before the value.
  needs: (urn) => ({ aspects: [], values: false, properties: [urn.value], searchFields: [searchFieldName(urn.id)] }),
  view: (stored, context) => (stored === undefined ? stored : inCanonicalNamespace(stored as PropertyDefinition, context.urnNamespace)),
  decide: decidePropertyDefinition,
  // Judged against the values entities hold, which value writers change without touching this entity.
  decidedUnderLock: true,
  changesRegistry: true,
  acceptsDirective: true,
  holdersToCount,
};
