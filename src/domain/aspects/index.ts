/**
 * The aspects propgraph knows, collected from their modules (modules/, listed by
 * `npm run codegen` in generated/modules.ts): the registry's lookups of aspects, every
 * one derived from the modules. Code that needs one particular aspect names it through
 * ASPECT (below); what an aspect does is asked of its module here, never switched on by
 * its name elsewhere.
 */
import type { AuditAction } from '../auditActions.js';
import { findEntityType, requireKnownAspect, type EntityTypeInfo } from '../registry/entityTypes.js';
import type { KeyFieldInfo } from '../searchFieldKinds.js';
import { fieldChanges, type StaleChanges } from '../staleWrite.js';
import type { AspectDeletion, AspectRules } from '../writes/aspectRules.js';
import type { DeletionOf } from '../writes/entityDelete.js';
import { keyAspectRules } from '../writes/plainAspectRules.js';
import type { AspectModule } from './aspectModule.js';
import { ASPECT_MODULES } from './generated/modules.js';

export type { AspectModule, FactSpec, TextFields } from './aspectModule.js';

/** Every aspect's general module, in the modules' order (the order text is taken in). */
export const ALL_ASPECTS: readonly AspectModule[] = ASPECT_MODULES.filter((m) => m.only === undefined);

const byName = new Map(ALL_ASPECTS.map((m) => [m.name, m]));
const variantKey = (type: EntityTypeInfo, aspect: string) => `${type.name} ${aspect}`;
const variants = new Map(ASPECT_MODULES.flatMap((m) => (m.only ?? []).map((type) => [variantKey(type, m.name), m] as const)));

export function findAspect(name: string): AspectModule | undefined {
  return byName.get(name);
}

/** The aspect of a name code or the entity types' rows use; a name with no module is a gap in the registry. */
export function aspectInfo(name: string): AspectModule {
  const found = byName.get(name);
  if (!found) throw new Error(`the registry has no aspect ${name}`);
  return found;
}

/**
 * The aspects code refers to by role. Use these (`ASPECT.structuredProperties`), never a
 * spelled name.
 */
export const ASPECT = {
  status: aspectInfo('status').name,
  structuredProperties: aspectInfo('structuredProperties').name,
  propertyDefinition: aspectInfo('propertyDefinition').name,
  structuredPropertySettings: aspectInfo('structuredPropertySettings').name,
  testInfo: aspectInfo('testInfo').name,
  testResults: aspectInfo('testResults').name,
} as const;

/** The module governing `aspect` on entities of `type`; undefined for its key aspect and for aspects it does not carry. */
export function aspectModuleOf(type: EntityTypeInfo, aspect: string): AspectModule | undefined {
  if (aspect === type.keyAspect || !type.aspects.includes(aspect)) return undefined;
  return variants.get(variantKey(type, aspect)) ?? byName.get(aspect);
}

/** The rules of writes of `aspect` to an entity of `type`; refuses an aspect the type does not carry, naming those it does. */
export function rulesOf(type: EntityTypeInfo, aspect: string): AspectRules {
  requireKnownAspect(type, aspect);
  return aspectModuleOf(type, aspect)?.rules ?? keyAspectRules(aspect);
}

/** DataHub's record class of an aspect of `type`. */
export function aspectClassOf(type: EntityTypeInfo, aspect: string): string | undefined {
  if (aspect === type.keyAspect) return type.keyClass;
  return aspectModuleOf(type, aspect)?.pdlClass;
}

/** The aspects the index reads for an entity of `type` (besides the soft delete mark), in the modules' order. */
export function indexedAspects(type: EntityTypeInfo): AspectModule[] {
  return ALL_ASPECTS.filter((a) => (a.text !== undefined || a.facts !== undefined) && type.aspects.includes(a.name));
}

/** What deleting `aspect` of an entity of the type named does beyond removing its rows. */
export const deletionOf: DeletionOf = (entityType: string, aspect: string): AspectDeletion | undefined => {
  const type = findEntityType(entityType);
  return type ? aspectModuleOf(type, aspect)?.rules.deleted : undefined;
};

/** The audit act a write of `value` to `aspect` of an entity of `type` is; undefined for the writes nobody audits (values, documentation). */
export function auditedWrite(type: EntityTypeInfo, aspect: string, value: unknown): AuditAction | undefined {
  return aspectModuleOf(type, aspect)?.audit?.write?.(value);
}

/** The audit act deleting `aspect` of an entity of `type` is: the key aspect is the entity. */
export function auditedDelete(type: EntityTypeInfo, aspect: string): AuditAction {
  if (aspect === type.keyAspect) return 'entity.hardDelete';
  return aspectModuleOf(type, aspect)?.audit?.delete ?? 'aspect.delete';
}

/** What a stale write of `aspect` is told changed since the version it read. */
export function staleChangesOf(aspect: string): StaleChanges {
  return findAspect(aspect)?.staleChanges ?? fieldChanges;
}

function softDeleteMark(): { readonly aspect: string; readonly field: string } {
  const marks = ALL_ASPECTS.flatMap((m) => (m.softDelete ? [{ aspect: m.name, field: m.softDelete.field }] : []));
  if (marks.length !== 1) throw new Error(`one aspect marks an entity soft deleted; the modules name ${marks.length}`);
  return marks[0]!;
}

/** The aspect and its boolean field that mark an entity soft deleted (status.removed): search leaves it out, lists skip it. */
export const SOFT_DELETE = softDeleteMark();

/** Whether a stored soft delete mark (the latest status) says the entity is soft deleted. */
export function isSoftDeleted(mark: unknown): boolean {
  return typeof mark === 'object' && mark !== null && (mark as Record<string, unknown>)[SOFT_DELETE.field] === true;
}

function searchFieldsOfModules(): Readonly<Record<string, KeyFieldInfo>> {
  const fields = new Map<string, KeyFieldInfo>();
  for (const m of ASPECT_MODULES) {
    for (const [name, info] of Object.entries(m.searchFields ?? {})) {
      const before = fields.get(name);
      // Several aspects may fill one field (customProperties), but one definition reads it.
      if (before !== undefined && before !== info) throw new Error(`the search field ${name} is defined twice (aspect ${m.name})`);
      fields.set(name, info);
    }
  }
  return Object.fromEntries(fields);
}

/** The key search fields the aspects' facts fill, each with how callers' values are read (domain/searchFields.ts adds the URN's own). */
export const ASPECT_SEARCH_FIELDS: Readonly<Record<string, KeyFieldInfo>> = searchFieldsOfModules();
