/**
 * What the search index knows of an entity besides its property values: the key
 * fields of searchFields.ts, taken from its URN and the latest aspects that hold a
 * display name or a description. Pure: the indexer reads the aspects named by
 * searchAspects() and hands them here.
 */
import { ALL_ASPECTS, indexedAspects, type FactSpec } from './aspects/index.js';
import { findEntityType, type EntityTypeInfo } from './registry/entityTypes.js';
import type { KeyField } from './searchFields.js';
import { tryParseDataType, tryParseEntityType } from './typeUrns.js';
import { keyAspectOf, tryParseUrn, type Urn } from './urn.js';

/** Key fields, and the description (searched by keyword, never filtered). */
export type SearchFacts = Partial<Record<KeyField | 'description', string | readonly string[] | boolean>>;

/** The aspects (besides the soft delete mark) the index reads for an entity of `type`. */
export function searchAspects(type: EntityTypeInfo): string[] {
  return indexedAspects(type).map((a) => a.name);
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** Editable aspects come after the ingested ones: a description edited by a person wins. */
function firstText(aspects: ReadonlyMap<string, unknown>, which: 'displayName' | 'description'): string | undefined {
  let found: string | undefined;
  for (const { name, text: fields } of ALL_ASPECTS) {
    const aspect = aspects.get(name);
    if (aspect === undefined || fields === undefined) continue;
    for (const field of fields[which] ?? []) {
      const value = text(record(aspect)[field]);
      if (value !== undefined) found = value;
    }
  }
  return found;
}

/** The platform of an entity: its key's platform URN, or the tool a flow, chart or dashboard key names. */
function platformOf(urn: Urn): string | undefined {
  const key = keyAspectOf(urn);
  if (key.platform !== undefined) return key.platform;
  const tool = key.orchestrator ?? key.dashboardTool;
  if (tool !== undefined) return `urn:li:dataPlatform:${tool}`;
  if (key.parent !== undefined) {
    const parent = tryParseUrn(key.parent);
    return parent.ok ? platformOf(parent.urn) : undefined;
  }
  return undefined;
}

/** Every value at `path` (`*` steps into each element of a list). */
function valuesAt(value: unknown, path: readonly string[]): unknown[] {
  let found: unknown[] = [value];
  for (const step of path) {
    found = found.flatMap((v) => (step === '*' ? (Array.isArray(v) ? v : []) : v !== null && typeof v === 'object' && !Array.isArray(v) ? [(v as Record<string, unknown>)[step]] : []));
  }
  return found.filter((v) => v !== undefined && v !== null);
}

/** What one fact spec of the registry makes of an aspect (absent: undefined), as the spec reads it. */
function factOf(spec: FactSpec, aspect: unknown): string | string[] | boolean | undefined {
  const found = aspect === undefined ? [] : valuesAt(aspect, spec.path);
  switch (spec.as) {
    case 'boolean':
      return found[0] === true;
    case 'nonEmpty':
      return found.length > 0;
    case 'cardinality':
      return aspect === undefined ? undefined : found[0] === 'MULTIPLE' ? 'MULTIPLE' : 'SINGLE';
    case 'dataType':
      return found.map((v) => tryParseDataType(v)).find((t) => t !== undefined);
    case 'entityType':
      return aspect === undefined ? undefined : found.map((t) => tryParseEntityType(t)?.name ?? findEntityType(String(t))?.name).filter((t): t is string => t !== undefined);
    case 'keyValue': {
      const map = record(found[0]);
      const entries = Object.entries(map).filter(([, v]) => typeof v === 'string').map(([k, v]) => `${k}=${v as string}`);
      return entries.length > 0 ? entries : undefined;
    }
    default: {
      const texts = found.filter((v): v is string => typeof v === 'string' && v !== '');
      if (texts.length === 0) return undefined;
      // A path through a list gives a list; a path to one field gives its text.
      return spec.path.includes('*') ? texts : texts[0];
    }
  }
}

/** The index's facts about one entity, from its URN, whether it is soft deleted and the aspects of searchAspects(). */
export function searchFacts(urn: Urn, removed: boolean, aspects: ReadonlyMap<string, unknown>): SearchFacts {
  const key = keyAspectOf(urn);
  const facts: SearchFacts = { urn: urn.value, _entityType: urn.entityType.name, removed };
  facts.name = key.name ?? key.fieldPath ?? urn.parts[urn.parts.length - 1];
  const platform = platformOf(urn);
  if (platform !== undefined) facts.platform = platform;
  if (key.origin !== undefined) facts.origin = key.origin;
  if (key.parent !== undefined) {
    facts.parent = key.parent;
    facts.fieldPath = key.fieldPath!;
  }
  const displayName = firstText(aspects, 'displayName');
  if (displayName !== undefined) facts.displayName = displayName;
  const description = firstText(aspects, 'description');
  if (description !== undefined) facts.description = description;
  for (const aspect of indexedAspects(urn.entityType)) {
    for (const spec of aspect.facts ?? []) {
      const value = factOf(spec, aspects.get(aspect.name));
      if (value === undefined) continue;
      // Two aspects may fill one field (a container and the browse path): their values are joined.
      const field = spec.field as KeyField;
      const before = facts[field];
      facts[field] = before === undefined || typeof value === 'boolean' || typeof before === 'boolean' ? value : [...new Set([...[before].flat(), ...[value].flat()])];
    }
  }
  return facts;
}
