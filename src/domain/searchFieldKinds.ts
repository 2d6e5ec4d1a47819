/**
 * How a key search field's values are held and read (docs/contract.md §6): the kinds
 * the vocabulary of searchFields.ts is made of, shared by its own fields (the URN's) and
 * by the fields aspect modules fill (domain/aspects/).
 */
import { ValidationError } from './errors.js';
import { entityTypeByGraphql, findEntityType } from './registry/entityTypes.js';
import { tryParseEntityType, type UrnNamespace } from './typeUrns.js';

/** How a key field's values are held and compared. */
export type KeyValueKind = 'text' | 'boolean';

export interface KeyFieldInfo {
  readonly kind: KeyValueKind;
  /** Shown as a facet's displayName. */
  readonly displayName: string;
  /** A caller's value in the form the index holds; throws ValidationError when it cannot be one. */
  readonly normalize?: (value: string) => string;
  /** A stored value as facets show it (type URNs in the server's namespace). */
  readonly display?: (value: string, urnNamespace: UrnNamespace) => string;
}

function booleanText(value: string): string {
  const v = value.trim().toLowerCase();
  if (v !== 'true' && v !== 'false') throw new ValidationError(`${JSON.stringify(value)} is not a boolean; use true or false`, 'values');
  return v;
}

/** A text field, matched exactly. */
export const textField = (displayName: string, normalize?: (value: string) => string): KeyFieldInfo => ({ kind: 'text', displayName, ...(normalize ? { normalize } : {}) });

/** A true/false field; callers write `true` or `false`, in any case. */
export const booleanField = (displayName: string): KeyFieldInfo => ({ kind: 'boolean', displayName, normalize: booleanText });

/** A field of URNs of one entity type, where a bare name (`pii`) stands for its URN (`urn:li:tag:pii`). */
export const urnField = (displayName: string, entityType: string): KeyFieldInfo => textField(displayName, (v) => (v.startsWith('urn:') ? v : `urn:li:${entityType}:${v}`));

/** An entity type as its name (`dataset`), from its name, GraphQL value (`DATASET`) or URN. */
export function entityTypeName(value: string): string {
  const type = findEntityType(value) ?? entityTypeByGraphql(value) ?? tryParseEntityType(value, true);
  if (!type) throw new ValidationError(`${JSON.stringify(value)} is not an entity type; use a name such as dataset or DATASET`, 'values');
  return type.name;
}
