/**
 * References to an entity from other entities' aspects, as DataHub's graph edges name
 * them (a tag in a dataset's `globalTags` is `TaggedWith`): what
 * `POST /entities?action=deleteReferences` counts and removes. Each rule says which
 * entity types it points at, how to find aspects naming a urn (JSON containment
 * patterns, so the store can look them up), and how to take the urn out of one.
 */
import { ENTITY } from './registry/entityTypes.js';
import { requireObject } from './writes/plainAspectRules.js';

export interface ReferenceRule {
  readonly aspect: string;
  readonly relationship: string;
  /** Entity types whose urns this aspect may name. */
  readonly targets: readonly string[];
  /** JSON values an aspect naming `urn` contains (PostgreSQL `@>`); any one suffices. */
  patterns(urn: string): readonly unknown[];
  /** The aspect without `urn`. */
  remove(value: unknown, urn: string): unknown;
}

type Json = Record<string, unknown>;

const listWithout = (list: unknown, keep: (item: unknown) => boolean): unknown => (Array.isArray(list) ? list.filter(keep) : list);

/** `{tags: [{tag}]}` without the tag; `{terms: [{urn}]}` without the term. */
const withoutTag = (value: Json, urn: string): Json => ({ ...value, tags: listWithout(value.tags, (t) => (t as Json | null)?.tag !== urn) });
const withoutTerm = (value: Json, urn: string): Json => ({ ...value, terms: listWithout(value.terms, (t) => (t as Json | null)?.urn !== urn) });

/** A schema's fields (`fields` or `editableSchemaFieldInfo`) with the tag and the term removed from each. */
function fieldsWithout(value: unknown, listName: string, urn: string): unknown {
  const aspect = requireObject(value, listName);
  const fields = listWithout(aspect[listName], () => true);
  if (!Array.isArray(fields)) return aspect;
  return {
    ...aspect,
    [listName]: fields.map((field) => {
      if (!field || typeof field !== 'object') return field;
      const f = { ...(field as Json) };
      if (f.globalTags && typeof f.globalTags === 'object') f.globalTags = withoutTag(f.globalTags as Json, urn);
      if (f.glossaryTerms && typeof f.glossaryTerms === 'object') f.glossaryTerms = withoutTerm(f.glossaryTerms as Json, urn);
      return f;
    }),
  };
}

function schemaRule(aspect: string, listName: string, relationship: string): ReferenceRule {
  return {
    aspect,
    relationship,
    targets: ['tag', 'glossaryTerm'],
    patterns: (urn) => [{ [listName]: [{ globalTags: { tags: [{ tag: urn }] } }] }, { [listName]: [{ glossaryTerms: { terms: [{ urn }] } }] }],
    remove: (value, urn) => fieldsWithout(value, listName, urn),
  };
}

export const REFERENCE_RULES: readonly ReferenceRule[] = [
  { aspect: 'globalTags', relationship: 'TaggedWith', targets: ['tag'], patterns: (urn) => [{ tags: [{ tag: urn }] }], remove: (v, urn) => withoutTag(requireObject(v, 'globalTags'), urn) },
  { aspect: 'glossaryTerms', relationship: 'TermedWith', targets: ['glossaryTerm'], patterns: (urn) => [{ terms: [{ urn }] }], remove: (v, urn) => withoutTerm(requireObject(v, 'glossaryTerms'), urn) },
  {
    aspect: 'ownership',
    relationship: 'OwnedBy',
    targets: [ENTITY.corpuser.name, ENTITY.corpGroup.name],
    patterns: (urn) => [{ owners: [{ owner: urn }] }],
    remove: (v, urn) => {
      const value = requireObject(v, 'ownership');
      return { ...value, owners: listWithout(value.owners, (o) => (o as Json | null)?.owner !== urn) };
    },
  },
  {
    aspect: 'domains',
    relationship: 'AssociatedWith',
    targets: ['domain'],
    patterns: (urn) => [{ domains: [urn] }],
    remove: (v, urn) => {
      const value = requireObject(v, 'domains');
      return { ...value, domains: listWithout(value.domains, (d) => d !== urn) };
    },
  },
  schemaRule('schemaMetadata', 'fields', 'SchemaFieldTaggedWith'),
  schemaRule('editableSchemaMetadata', 'editableSchemaFieldInfo', 'EditableSchemaFieldTaggedWith'),
];

/** The rules that can point at entities of this type. */
export function referenceRulesFor(entityType: string): ReferenceRule[] {
  return REFERENCE_RULES.filter((r) => r.targets.includes(entityType));
}
