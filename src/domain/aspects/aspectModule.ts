/**
 * An aspect in one place: each module of modules/ exports the whole of what propgraph
 * knows of an aspect (DataHub's record class, its write rules with the request's shape,
 * the state they need, the patch keys and what deleting it does, the search facts it
 * fills, its audit act, and whether it marks the entity soft deleted). The index
 * (index.ts) collects the modules and every layer reads them through it; nothing else
 * switches on an aspect's name. Adding an aspect is a module here, its tests, and
 * schema.graphql when GraphQL shows it (docs/architecture.md, "Aspect modules").
 */
import type { AuditAction } from '../auditActions.js';
import type { EntityTypeInfo } from '../registry/entityTypes.js';
import type { KeyFieldInfo } from '../searchFieldKinds.js';
import type { StaleChanges } from '../staleWrite.js';
import { tryParseUrn } from '../urn.js';
import type { AspectRules } from '../writes/aspectRules.js';

/** Fields of the aspect holding a display name or a description, in the order they are tried. */
export interface TextFields {
  readonly displayName?: readonly string[];
  readonly description?: readonly string[];
}

/**
 * A search field the aspect fills: the value at `path` in the aspect (`*` takes every
 * element of a list), read `as`:
 * - `text` (default): the texts found;
 * - `boolean`: true when the value is true (false when absent, on every entity whose type has the aspect);
 * - `nonEmpty`: true when the path finds anything;
 * - `keyValue`: a map's entries as `key=value` (DataHub's customProperties field);
 * - `dataType` / `entityType`: a type URN read as the type's name;
 * - `cardinality`: SINGLE unless MULTIPLE.
 */
export interface FactSpec {
  readonly field: string;
  readonly path: readonly string[];
  readonly as?: 'text' | 'boolean' | 'nonEmpty' | 'keyValue' | 'dataType' | 'entityType' | 'cardinality';
}

export interface AspectModule {
  /** The aspect's name, as every dialect spells it. */
  readonly name: string;
  /** DataHub's PDL record class: Rest.li answers the aspect wrapped in it, and DataHub's client looks the value up under it. */
  readonly pdlClass: string;
  /**
   * The entity types on which this module, not the aspect's general one, governs the
   * aspect (a structured property's status is its soft delete switch). Absent: the
   * general module, one per name.
   */
  readonly only?: readonly EntityTypeInfo[];
  /** Its writes: the request's shape (checked by decide), the state they need, the decision, the view, patch keys and deletes. */
  readonly rules: AspectRules;
  /** Where the index finds display names and descriptions. */
  readonly text?: TextFields;
  /** The search fields it fills; the indexer reads every aspect with text or facts. */
  readonly facts?: readonly FactSpec[];
  /**
   * The key search fields its facts fill, with how callers' values are read: each field
   * is defined by one module (or by the URN's own fields, domain/searchFields.ts), and
   * becomes filterable and a facet (a new field rebuilds the index once: its format changes).
   */
  readonly searchFields?: Readonly<Record<string, KeyFieldInfo>>;
  /** The audit act a write of a value is (undefined: not audited), and the act deleting it is (default: aspect.delete). */
  readonly audit?: { readonly write?: (value: unknown) => AuditAction | undefined; readonly delete?: AuditAction };
  /**
   * How GraphQL shows it: `field`, on every entity type whose schema.graphql type has
   * that field, answers `view` of the stored aspect (null when absent). Entities it names
   * are answered as entityReference() makes them, which the schema's Entity fields resolve.
   */
  readonly graphql?: { readonly field: string; readonly view: (stored: Readonly<Record<string, unknown>>) => unknown };
  /** What a stale write's refusal shows changed since the version read (default: field by field). */
  readonly staleChanges?: StaleChanges;
  /** The entity is soft deleted while this aspect's boolean `field` is true (status.removed): one aspect says so. */
  readonly softDelete?: { readonly field: string };
}

/** An entity a GraphQL view names, from its URN (null when the value is none): the GraphQL layer's entity model. */
export function entityReference(value: unknown): { readonly urn: string; readonly entityType: EntityTypeInfo } | null {
  if (typeof value !== 'string') return null;
  const parsed = tryParseUrn(value);
  return parsed.ok ? { urn: parsed.urn.value, entityType: parsed.urn.entityType } : null;
}
