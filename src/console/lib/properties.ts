/**
 * How the console reads definitions and values: labels, the input a value type calls
 * for, search field names. Entity types and type URNs come from the server's own
 * domain tables, so the console names them exactly as the API does.
 */
import { ENTITY_TYPES, entityTypeByGraphql } from '../../domain/entityTypes.js';
import type { DefinitionFragment, EntityType, ValueFragment } from '../generated/graphql';

export type StdType = DefinitionFragment['valueType']['info']['type'];

/** Entity types that can hold structured property values. */
export const ASSET_TYPES = ENTITY_TYPES.filter((t) => t.aspects.includes('structuredProperties'));

export const VALUE_TYPES: ReadonlyArray<{ readonly id: string; readonly label: string }> = [
  { id: 'string', label: 'Text' },
  { id: 'rich_text', label: 'Rich text' },
  { id: 'number', label: 'Number' },
  { id: 'date', label: 'Date' },
  { id: 'urn', label: 'Entity (URN)' },
];

const STD_LABELS: Record<string, string> = { STRING: 'Text', RICH_TEXT: 'Rich text', NUMBER: 'Number', DATE: 'Date', URN: 'Entity (URN)', OTHER: 'Other' };

export const typeLabel = (t: StdType): string => STD_LABELS[t] ?? t;

const ENTITY_LABELS: Record<string, string> = { corpuser: 'User', corpGroup: 'Group', mlModel: 'ML model' };

/** `dataset` → `Dataset`, `schemaField` → `Schema field`. */
export function entityTypeLabel(graphql: string): string {
  const name = entityTypeByGraphql(graphql)?.name ?? graphql.toLowerCase();
  if (ENTITY_LABELS[name]) return ENTITY_LABELS[name];
  const words = name.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
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
  return d?.valueType.info.type === 'NUMBER' && value !== '' && !Number.isNaN(Number(value)) ? String(Number(value)) : value;
}

export const holderTypes = (d: DefinitionFragment): EntityType[] => d.entityTypes.map((t) => t.info.type);

export const isRanged = (d: DefinitionFragment): boolean => !d.allowedValues?.length && (d.valueType.info.type === 'NUMBER' || d.valueType.info.type === 'DATE');

/** yyyyMMddhhmmss of now (UTC), for a new version. */
export function versionNow(): string {
  return new Date().toISOString().replace(/[-:T]/g, '').slice(0, 14);
}

export const formatTime = (ms: number): string => new Date(ms).toISOString().replace('T', ' ').slice(0, 16) + ' UTC';

/** `1 test`, `2 tests`. */
export const counted = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;
