/**
 * Search documents: one per entity of a searchable type, in the index of its type.
 *
 * Structured property values live under `sp`, one field per property *generation*:
 * `sp.g<generation>` holds the values (numbers as numbers, everything else as text)
 * and `sp.r<generation>` the same texts reversed (END_WITH is a prefix match on them).
 * Generations come from one database sequence and change when a property is
 * re-created or takes a breaking version change, so a value written under an older
 * generation sits in a field that no filter or facet can name any more: it is hidden
 * from the moment the registry moves on, before any document is rewritten.
 *
 * Meilisearch normalises filterable strings (lower case) and truncates long ones, so
 * ids, the sort key and long texts get engine-safe forms here.
 */
import { createHash } from 'node:crypto';
import type { SearchFacts } from '../domain/searchFacts.js';
import type { KeyField } from '../domain/searchFields.js';
import type { Urn } from '../domain/urn.js';
import { isDoubleValue, type TypedValue } from '../domain/typedValue.js';

export interface SearchDocument {
  /** Primary key: URNs hold characters Meilisearch ids may not, so a hash of the URN. */
  readonly id: string;
  /** The full URN (returned in hits); filters on URN equality use `id`, which is exact. */
  readonly urn: string;
  /** Sort and keyset key; see sortKey(). */
  readonly _k: string;
  readonly _type: string;
  /** The entity's status.removed: soft-deleted entities stay out of results unless asked for. */
  readonly _removed: boolean;
  readonly name?: string;
  /** The words of the name, so that `name:clicks` matches `analytics.daily_clicks`. */
  readonly _nw?: string[];
  readonly sp: Record<string, Array<string | number>>;
  /** Sort keys (searchSort.ts): created and last written, ms since the epoch; the name as people read it, lower case. */
  readonly _ct?: number;
  readonly _mt?: number;
  readonly _nm?: string;
  /** The other key fields (platform, origin, displayName, description, valueType, ...). */
  readonly [field: string]: unknown;
}

/** Longest text (in UTF-8 bytes) kept in a filterable field; Meilisearch cuts facet strings near 470 bytes. */
export const MAX_TEXT_BYTES = 400;
/** Longest sort key; longer URNs are keyed by a prefix plus a hash. */
const MAX_KEY_HEX = 400;
const KEY_PREFIX_BYTES = 168;

export function documentId(urn: string): string {
  return createHash('sha256').update(urn, 'utf8').digest('hex');
}

/**
 * A string that sorts like the URN's UTF-8 bytes and survives Meilisearch's
 * normalisation (lower-case hex is already normal). URNs longer than 200 bytes use
 * their first 168 bytes and a hash of the whole, which keeps keys unique and short
 * enough to be compared exactly; such URNs sort by prefix, then arbitrarily.
 */
export function sortKey(urn: string): string {
  const hex = Buffer.from(urn, 'utf8').toString('hex');
  if (hex.length <= MAX_KEY_HEX) return hex;
  return hex.slice(0, KEY_PREFIX_BYTES * 2) + documentId(urn);
}

export function valueField(generation: bigint): string {
  return `sp.g${generation}`;
}

export function reversedField(generation: bigint): string {
  return `sp.r${generation}`;
}

/** The text as stored in a filterable field: cut at MAX_TEXT_BYTES on a character boundary. */
export function indexText(text: string): string {
  if (Buffer.byteLength(text, 'utf8') <= MAX_TEXT_BYTES) return text;
  let bytes = 0;
  let out = '';
  for (const ch of text) {
    bytes += Buffer.byteLength(ch, 'utf8');
    if (bytes > MAX_TEXT_BYTES) break;
    out += ch;
  }
  return out;
}

export function reverseText(text: string): string {
  return [...text].reverse().join('');
}

export interface DocumentSource {
  readonly urn: Urn;
  /** Key fields (domain/searchFacts.ts): what filters, facets and keywords see besides values. */
  readonly facts: SearchFacts;
  /** Visible generations only: rows whose generation is the property's current one. */
  readonly values: ReadonlyArray<{ readonly generation: bigint; readonly values: readonly TypedValue[] }>;
  /** When the entity was created and last written (ms since the epoch), for the sorts on them; absent for a schema field. */
  readonly times?: { readonly created: number; readonly modified: number } | undefined;
}

/** Index attributes of key fields whose name differs from the field's. */
const RENAMED: Partial<Record<KeyField, string>> = { removed: '_removed', _entityType: '_type' };

/** The index attribute holding a key field. */
export function keyAttribute(field: KeyField): string {
  return RENAMED[field] ?? field;
}

/** Words of a name, lower case: split at anything but letters and digits. */
export function nameWords(name: string): string[] {
  return [...new Set(name.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((w) => w !== ''))];
}

/** Long descriptions are searched, never filtered: only their start is indexed. */
const MAX_DESCRIPTION_CHARS = 4000;

export function buildDocument(src: DocumentSource): SearchDocument {
  const sp: Record<string, Array<string | number>> = {};
  for (const row of src.values) {
    const values: Array<string | number> = [];
    const reversed: string[] = [];
    for (const v of row.values) {
      if (isDoubleValue(v)) values.push(v.double);
      else {
        values.push(indexText(v.string));
        reversed.push(indexText(reverseText(v.string)));
      }
    }
    if (values.length === 0) continue;
    sp[`g${row.generation}`] = values;
    if (reversed.length > 0) sp[`r${row.generation}`] = reversed;
  }
  const doc: Record<string, unknown> = {
    id: documentId(src.urn.value),
    urn: src.urn.value,
    _k: sortKey(src.urn.value),
    _type: src.urn.entityType.name,
    _removed: src.facts.removed === true,
    sp,
  };
  for (const [field, value] of Object.entries(src.facts) as Array<[KeyField | 'description', string | readonly string[] | boolean]>) {
    if (field === 'urn' || field === 'removed' || field === '_entityType' || field === 'description') continue;
    doc[keyAttribute(field)] = typeof value === 'string' ? indexText(value) : Array.isArray(value) ? value.map(indexText) : value;
  }
  if (typeof src.facts.description === 'string') doc.description = src.facts.description.slice(0, MAX_DESCRIPTION_CHARS);
  if (typeof src.facts.name === 'string') doc._nw = nameWords(src.facts.name);
  if (src.times) {
    doc._ct = src.times.created;
    doc._mt = src.times.modified;
  }
  doc._nm = sortName(src);
  return doc as unknown as SearchDocument;
}

/** The name a sort by name orders on: the display name, else the name, else the URN; lower case, cut to a sort key's length. */
function sortName(src: DocumentSource): string {
  const { displayName, name, qualifiedName } = src.facts as Record<string, unknown>;
  const shown = [displayName, name, qualifiedName].find((v): v is string => typeof v === 'string' && v !== '') ?? src.urn.value;
  return indexText(shown.toLowerCase());
}
