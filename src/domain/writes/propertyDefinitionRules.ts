/**
 * The propertyDefinition aspect (docs/contract.md §2): parsed and canonicalised, checked for
 * backwards compatibility against the stored definition, refused while the property
 * is soft deleted or when its search field name is taken. The registry row follows in
 * the same statement: a new version (or a new property) draws a new generation, which
 * hides every older value at once, and a cleanup job then deletes those values.
 */
import { checkCompatibility } from '../compatibility.js';
import { SoftDeletedError, ValidationError } from '../errors.js';
import { CLEANUP_PROPERTY_VALUES } from '../jobKinds.js';
import { inCanonicalNamespace, parsePropertyDefinition, searchFieldName, type PropertyDefinition } from '../propertyDefinition.js';
import { parseDataTypeUrn } from '../typeUrns.js';
import { type AspectRules, type AspectState } from './aspectRules.js';
import type { AspectDecision, EntityWriteDecision } from './writeDecision.js';

export function decidePropertyDefinition(next: unknown, state: AspectState): AspectDecision {
  const urn = state.urn.value;
  const parsed = parsePropertyDefinition(next, state.urn.id);
  const registered = state.properties.get(urn);
  if (registered?.removed) {
    throw new SoftDeletedError('Cannot mutate a soft deleted Structured Property Definition', 'propertyDefinition');
  }
  let definition: PropertyDefinition = parsed;
  let newGeneration = registered === undefined;
  if (state.stored !== undefined && registered) {
    const update = checkCompatibility(inCanonicalNamespace(state.stored as PropertyDefinition), parsed);
    definition = update.definition;
    newGeneration = update.versionChanged;
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
      define: {
        qualifiedName: definition.qualifiedName,
        searchField,
        valueType: parseDataTypeUrn(definition.valueType),
        version: definition.version ?? null,
        generation: newGeneration ? 'new' : registered!.generation,
      },
      removed: null,
    },
    // Values under an older generation (a previous version) are now invisible; remove them.
    jobs: newGeneration && registered ? [{ kind: CLEANUP_PROPERTY_VALUES, payload: { propertyUrn: urn } }] : [],
    reliesOn: [],
  };
}

/**
 * The properties whose stored values a write drops (issue #29): a definition that draws
 * a new generation for a property that already has one (a new version, breaking or not)
 * hides every value written before, and the cleanup job then deletes them. That is as
 * destructive as a hard delete of the values, so it needs the scope a hard delete needs.
 */
export function propertiesWhoseValuesDrop(decision: EntityWriteDecision, isRegistered: (urn: string) => boolean): string[] {
  return decision.registry.filter((r) => r.define?.generation === 'new' && isRegistered(r.urn)).map((r) => r.urn);
}

/** The refusal of such a write to a caller who may not drop values, naming what it would drop. */
export function valueDropRefusal(propertyUrn: string, impact: { readonly entities: number; readonly values: number; readonly byEntityType: Readonly<Record<string, number>> }, needs: string): string {
  const types = Object.entries(impact.byEntityType).map(([type, n]) => `${type}: ${n}`).join(', ');
  return (
    `This definition of ${propertyUrn} starts a new version, which would drop its ${impact.values} stored value${impact.values === 1 ? '' : 's'} ` +
    `on ${impact.entities} entit${impact.entities === 1 ? 'y' : 'ies'} (${types}); a change that drops stored values needs a token with ${needs} scope`
  );
}

export const propertyDefinitionRules: AspectRules = {
  createsEntity: true,
  // The qualified name must equal the urn id, so the search field is known before the value.
  needs: (urn) => ({ aspects: [], values: false, properties: [urn.value], searchFields: [searchFieldName(urn.id)] }),
  view: (stored) => (stored === undefined ? stored : inCanonicalNamespace(stored as PropertyDefinition)),
  decide: decidePropertyDefinition,
};
