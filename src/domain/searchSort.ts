/**
 * The fields a search may be sorted on, by the names clients send: the URN (every
 * scroll's default, paged by keyset), the creation time, the last write, and the name.
 * DataHub's clients spell these several ways (its web app sorts definitions on
 * `createdTime`, its search page on `lastOperationTime` and `_entityName`); each
 * spelling is a row here.
 */
import { quoteInput } from './inputLimits.js';
import { ValidationError } from './errors.js';

export type SortKey = 'urn' | 'created' | 'modified' | 'name';

export const SORT_FIELDS: Readonly<Record<string, SortKey>> = {
  urn: 'urn',
  createdTime: 'created',
  created: 'created',
  lastModifiedTime: 'modified',
  lastModified: 'modified',
  lastModifiedAt: 'modified',
  lastOperationTime: 'modified',
  _entityName: 'name',
  name: 'name',
  displayName: 'name',
};

/** The sort key a field names, or a 400 naming the field and the ones there are. */
export function sortKeyOf(field: string, name: string): SortKey {
  const key = Object.hasOwn(SORT_FIELDS, field) ? SORT_FIELDS[field] : undefined;
  if (key === undefined) throw new ValidationError(`${name} cannot sort on ${quoteInput(field)}; sort on one of ${Object.keys(SORT_FIELDS).join(', ')}`, name);
  return key;
}
