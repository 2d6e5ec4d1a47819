/**
 * Resolves the field names of a search against the property registry (docs/contract.md §6, §12):
 * key fields stand for themselves (their values put into the form the index holds);
 * `structuredProperties.<name>` stands for the current generation of a live property.
 * A name that is no property (never was, or hard deleted) is a 400 naming the closest
 * existing one; a soft-deleted property is refused; a `_versioned` name whose version
 * is no longer current matches nothing.
 */
import { findValueType } from '../domain/registry/valueTypes.js';
import { ValidationError } from '../domain/errors.js';
import { closestName } from '../domain/closestWord.js';
import { keyFieldInfo, parseSearchField, PROPERTY_FIELD_PREFIX, type SearchField } from '../domain/searchFields.js';
import { and, fieldsOf, mapLeaves, NONE, simplify, type FilterNode } from '../domain/searchFilter.js';
import type { ResolvedField } from '../search/request.js';
import type { RegisteredProperty } from '../store/propertyRegistry.js';
import type { LookupEpoch, SearchRegistry } from './searchRegistry.js';

export interface ResolvedFields {
  /** The filter with key-field values normalised and leaves on stale versions folded to `none`. */
  readonly filter: FilterNode;
  readonly fields: Map<string, ResolvedField>;
  /** The property each property field name resolved to. */
  readonly properties: Map<string, RegisteredProperty>;
}

/**
 * Resolves the filter's fields and `extra` (facets). With `lenientExtra`, an extra
 * name that is no live property is left unresolved instead of refused.
 */
export async function resolveFields(registry: SearchRegistry, filter: FilterNode, extra: readonly string[], used: LookupEpoch, lenientExtra = false): Promise<ResolvedFields> {
  const inFilter = new Set(fieldsOf(filter));
  const names = [...new Set([...inFilter, ...extra])];
  const parsed = new Map(names.map((n) => [n, parseSearchField(n)]));
  const searchFields = [...new Set([...parsed.values()].flatMap((f) => (f.kind === 'property' ? [f.searchField] : [])))];
  const found = await registry.lookup(searchFields, used);
  const fields = new Map<string, ResolvedField>();
  const properties = new Map<string, RegisteredProperty>();
  const stale = new Set<string>();
  for (const [name, field] of parsed) {
    if (field.kind === 'key') {
      fields.set(name, { kind: 'key', name: field.name });
      continue;
    }
    const property = found.get(field.searchField);
    if (lenientExtra && !inFilter.has(name) && (!property || property.removed)) continue;
    if (!property) throw await unknownProperty(registry, name, field);
    if (property.removed) throw new ValidationError(`Cannot filter on deleted Structured Property [${property.urn}]`, 'field');
    if (field.versioned && (property.version !== field.versioned.version || property.valueType !== field.versioned.valueType)) {
      stale.add(name);
      continue;
    }
    fields.set(name, { kind: 'property', generation: property.generation, numeric: findValueType(property.valueType)?.numeric === true });
    properties.set(name, property);
  }
  const resolved = mapLeaves(filter, (leaf) => {
    if (stale.has(leaf.field)) return NONE;
    const field = fields.get(leaf.field);
    const normalize = field?.kind === 'key' ? keyFieldInfo(field.name).normalize : undefined;
    return normalize && leaf.kind === 'equals' ? { ...leaf, values: leaf.values.map(normalize) } : leaf;
  });
  return { filter: resolved, fields, properties };
}

async function unknownProperty(registry: SearchRegistry, name: string, field: SearchField & { kind: 'property' }): Promise<ValidationError> {
  const known = await registry.knownSearchFields();
  // Suggest in the caller's spelling: qualified names with dots, or search fields with underscores.
  const rest = name.slice(PROPERTY_FIELD_PREFIX.length);
  const dotted = !field.versioned && rest.includes('.');
  const candidates = new Map(known.map((k) => [dotted ? k.qualifiedName : k.searchField, k]));
  const typed = dotted ? rest : field.searchField;
  const closest = closestName(typed, candidates.keys());
  const hint = closest === undefined ? 'no structured property exists yet' : `the closest existing one is ${PROPERTY_FIELD_PREFIX}${closest}`;
  return new ValidationError(`Unknown structured property in search field ${name}: ${hint}`, 'field');
}

/**
 * Resolves a filter the caller did not write (what the policies let them read, domain/
 * policies/readFilter.ts): a property it names that does not exist, is soft deleted or
 * was re-versioned matches nothing, instead of being refused.
 */
export async function resolveQuietly(registry: SearchRegistry, filter: FilterNode, used: LookupEpoch): Promise<ResolvedFields> {
  const names = fieldsOf(filter);
  const parsed = new Map(names.map((n) => [n, parseSearchField(n)]));
  const searchFields = [...new Set([...parsed.values()].flatMap((f) => (f.kind === 'property' ? [f.searchField] : [])))];
  const found = await registry.lookup(searchFields, used);
  const fields = new Map<string, ResolvedField>();
  const properties = new Map<string, RegisteredProperty>();
  for (const [name, field] of parsed) {
    if (field.kind === 'key') {
      fields.set(name, { kind: 'key', name: field.name });
      continue;
    }
    const property = found.get(field.searchField);
    if (!property || property.removed) continue;
    fields.set(name, { kind: 'property', generation: property.generation, numeric: findValueType(property.valueType)?.numeric === true });
    properties.set(name, property);
  }
  const resolved = mapLeaves(filter, (leaf) => {
    const field = fields.get(leaf.field);
    if (!field) return NONE;
    const normalize = field.kind === 'key' ? keyFieldInfo(field.name).normalize : undefined;
    return normalize && leaf.kind === 'equals' ? { ...leaf, values: leaf.values.map(normalize) } : leaf;
  });
  return { filter: resolved, fields, properties };
}

/** A caller's resolved filter, narrowed to what they may read (`restriction` resolved quietly). */
export function narrowed(resolved: ResolvedFields, restriction: ResolvedFields | null): ResolvedFields {
  if (!restriction) return resolved;
  return { filter: simplify(and([resolved.filter, restriction.filter])), fields: new Map([...resolved.fields, ...restriction.fields]), properties: resolved.properties };
}
