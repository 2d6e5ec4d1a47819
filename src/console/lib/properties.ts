/**
 * How the console reads definitions and values: labels, the input a value type calls
 * for, search field names. Entity types and type URNs come from the server's own
 * domain tables, so the console names them exactly as the API does.
 */
import { ENTITY_TYPES, entityTypeByGraphql, holdsValues } from '../../domain/registry/entityTypes.js';
import { VALUE_TYPES as REGISTRY_VALUE_TYPES, valueTypeOfStd } from '../../domain/registry/valueTypes.js';
import type { DefinitionFragment, EntityType, ValueFragment } from '../generated/graphql.js';

export type StdType = DefinitionFragment['valueType']['info']['type'];

/** Entity types that can hold structured property values. */
export const ASSET_TYPES = ENTITY_TYPES.filter(holdsValues);

/** What a URN value may name: any entity type, those that hold values (people, tags, domains, ...) first. */
export const URN_TARGET_TYPES = [...ASSET_TYPES, ...ENTITY_TYPES.filter((t) => !holdsValues(t))];

export const VALUE_TYPES: ReadonlyArray<{ readonly id: string; readonly label: string }> = REGISTRY_VALUE_TYPES;

export const typeLabel = (t: StdType): string => valueTypeOfStd(t)?.label ?? (t === 'OTHER' ? 'Other' : t);

/** `DATASET` → `Dataset`, `SCHEMA_FIELD` → `Schema field`. */
export function entityTypeLabel(graphql: string): string {
  return entityTypeByGraphql(graphql)?.label ?? graphql;
}

export const entityTypeName = (graphql: string): string => entityTypeByGraphql(graphql)?.name ?? graphql.toLowerCase();

export function valueText(v: ValueFragment | null): string {
  if (!v) return '';
  if ('numberValue' in v) return String(v.numberValue);
  if ('stringValue' in v) return v.stringValue;
  return '';
}

export const propertyLabel = (d: Pick<DefinitionFragment, 'displayName' | 'qualifiedName'>): string => d.displayName || d.qualifiedName;

/** The search field of a property in GraphQL filters and facets. */
export const searchField = (qualifiedName: string): string => `structuredProperties.${qualifiedName}`;

/** The description of an allowed value, when the definition gives one. */
export function allowedDescription(d: DefinitionFragment, value: string): string | null {
  return d.allowedValues?.find((a) => valueText(a.value) === value || Number(valueText(a.value)) === Number(value))?.description ?? null;
}

/** Numbers in facets come as decimal strings ("60.0"); shown as numbers. */
export function facetValueText(d: DefinitionFragment | null, value: string): string {
  return d !== null && valueTypeOfStd(d.valueType.info.type)?.numeric === true && value !== '' && !Number.isNaN(Number(value)) ? String(Number(value)) : value;
}

export const holderTypes = (d: DefinitionFragment): EntityType[] => d.entityTypes.map((t) => t.info.type);

export const isRanged = (d: DefinitionFragment): boolean => !d.allowedValues?.length && valueTypeOfStd(d.valueType.info.type)?.scale !== undefined;

/** yyyyMMddhhmmss of now (UTC), for a new version. */
export function versionNow(): string {
  return new Date().toISOString().replace(/[-:T]/g, '').slice(0, 14);
}

export const formatTime = (ms: number): string => new Date(ms).toISOString().replace('T', ' ').slice(0, 16) + ' UTC';

/** `1 test`, `2 tests`. */
export const counted = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;
