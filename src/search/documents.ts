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
import { keyAspectOf, type Urn } from '../domain/urn.js';
import { isDoubleValue, type TypedValue } from '../domain/typedValue.js';

export interface SearchDocument {
  /** Primary key: URNs hold characters Meilisearch ids may not, so a hash of the URN. */
  readonly id: string;
  /** The full URN (returned in hits); filters on URN equality use `id`, which is exact. */
  readonly urn: string;
  /** Sort and keyset key; see sortKey(). */
  readonly _k: string;
  readonly _type: string;
  /** The entity's status.removed: soft-deleted entities stay out of results. */
  readonly _removed: boolean;
  readonly name?: string;
  readonly platform?: string;
  readonly origin?: string;
  readonly sp: Record<string, Array<string | number>>;
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
  readonly removed: boolean;
  /** Visible generations only: rows whose generation is the property's current one. */
  readonly values: ReadonlyArray<{ readonly generation: bigint; readonly values: readonly TypedValue[] }>;
}

/** The platform of an entity: its key's platform URN, or the tool a flow, chart or dashboard key names. */
function platformOf(key: Record<string, string>): string | undefined {
  if (key.platform !== undefined) return key.platform;
  const tool = key.orchestrator ?? key.dashboardTool;
  return tool === undefined ? undefined : `urn:li:dataPlatform:${tool}`;
}

export function buildDocument(src: DocumentSource): SearchDocument {
  const key = keyAspectOf(src.urn);
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
  const platform = platformOf(key);
  const name = key.name ?? src.urn.parts[src.urn.parts.length - 1];
  return {
    id: documentId(src.urn.value),
    urn: src.urn.value,
    _k: sortKey(src.urn.value),
    _type: src.urn.entityType.name,
    _removed: src.removed,
    ...(name !== undefined ? { name: indexText(name) } : {}),
    ...(platform !== undefined ? { platform: indexText(platform) } : {}),
    ...(key.origin !== undefined ? { origin: key.origin } : {}),
    sp,
  };
}
