/**
 * Entities and their aspects, behind REST's entity routes and GraphQL: the service's
 * interface and its reads (one entity, many, a page of one type, a batch, a write's
 * trace, the aspects that name an entity). The writes and hard deletes are the base
 * class's (entityWrites.ts); the listing of one type, with its scroll ids, is
 * entityListing.ts's.
 */
import { findEntityType, type EntityTypeInfo } from '../domain/registry/entityTypes.js';
import { NotFoundError } from '../domain/errors.js';
import type { PatchDocument } from '../domain/jsonPatch.js';
import { checkRequestedResults, requireBatchSize } from '../domain/limits.js';
import { referenceRulesFor } from '../domain/references.js';
import { parentUrnOf, parseUrn, parseUrnOfType, type Urn } from '../domain/urn.js';
import { aspectTraceOf, lastChangeOfTrace, type AspectTrace } from '../domain/writeTrace.js';
import { entitiesWithAspectContaining, entityExists, latestAspectNamesOfMany } from '../store/aspects.js';
import { entitiesPendingUpTo } from '../store/changeLog.js';
import type { Caller, WriteOptions } from './caller.js';
import { existingUrns, readEntityViews } from './entityReads.js';
import { listEntityPage } from './entityListing.js';
import type { AspectValue, EntityView } from './entityView.js';
import type { AspectResult, AspectWriteRequest } from './aspects/pipeline.js';
import {
  EntityWrites,
  type AspectInput,
  type BatchItem,
  type BatchOptions,
  type BatchPatchItem,
  type BatchWritten,
  type EntityCall,
  type EntityReference,
  type PatchAspectOptions,
  type SetAspectOptions,
} from './entityWrites.js';
import type { ValueImpact } from '../domain/valueImpact.js';
import type { WriteReceipt, Written } from './writeReceipt.js';

export type { AspectValue, EntityView } from './entityView.js';
export type {
  AspectInput,
  BatchItem,
  BatchOptions,
  BatchPatchItem,
  BatchWritten,
  EntityCall,
  EntityDeps,
  EntityReference,
  PatchAspectOptions,
  PatchInput,
  SetAspectOptions,
} from './entityWrites.js';

/** Resolves a REST `{entityName}` path segment (case-insensitive). */
export function entityTypeNamed(name: string): EntityTypeInfo {
  const type = findEntityType(name);
  if (!type) throw new NotFoundError(`Unknown entity type ${name}`);
  return type;
}

export interface EntityService {
  /** Reads an entity's latest aspects (all, or those named) as readers see them. */
  getEntity(caller: Caller, urnValue: string, options?: { entityType?: EntityTypeInfo; aspects?: readonly string[] }): Promise<EntityView>;
  /** Reads one aspect; 404 when the entity or the aspect does not exist. */
  getAspect(caller: Caller, urnValue: string, aspect: string, entityType?: EntityTypeInfo): Promise<AspectValue>;
  /** Whether the entity exists (a schema field when its dataset does). */
  exists(urnValue: string): Promise<boolean>;
  /** Which of the entities exist (a schema field when its dataset does), in one query. */
  existing(urns: readonly Urn[]): Promise<Set<string>>;
  /**
   * Batched read for many entities (search results): three queries (existence,
   * aspects, and the value rows that views of structured properties need), whatever
   * the number of entities. Entities that do not exist are absent from the map.
   */
  readEntities(urns: readonly Urn[], aspects?: readonly string[]): Promise<Map<string, EntityView>>;
  /**
   * Lists entities of one type from the database in URN order. The scroll id is an
   * opaque cursor (the last URN returned); null when there is nothing more.
   */
  listEntities(caller: Caller, entityType: EntityTypeInfo, options: { count: number; scrollId?: string; aspects?: readonly string[] }): Promise<{ scrollId: string | null; entities: EntityView[] }>;
  /** Writes (replaces) one aspect. */
  setAspect(caller: Caller, urnValue: string, aspect: string, input: AspectInput, options?: SetAspectOptions & { entityType?: EntityTypeInfo }): Promise<Written<AspectResult>>;
  /** Applies a JSON patch to what readers currently see of the aspect, then writes it like a set. */
  patchAspect(caller: Caller, urnValue: string, aspect: string, patch: PatchDocument, options?: PatchAspectOptions): Promise<Written<AspectResult>>;
  /** Computes an aspect from its current visible value (GraphQL merge semantics, removals). */
  updateAspect(caller: Caller, urnValue: string, aspect: string, compute: (current: unknown | undefined) => unknown, options?: WriteOptions): Promise<Written<AspectResult>>;
  /**
   * Computes one aspect of each of several entities (distinct URNs) from what readers
   * see of it, in one write: all of them or none (a value import's rows).
   */
  updateAspects(caller: Caller, aspect: string, updates: readonly { urn: string; compute: (current: unknown | undefined) => unknown }[], options?: WriteOptions): Promise<Written<AspectResult[]>>;
  /** Writes several aspects of one entity together: all of them or none. */
  writeAspects(caller: Caller, urnValue: string, requests: readonly AspectWriteRequest[], options?: WriteOptions): Promise<Written<AspectResult[]>>;
  /**
   * Creates or updates several entities of one type. Everything is validated before
   * anything is written, so a bad entry fails the batch without partial writes. One
   * URN may come in several items (DataHub's clients send one per aspect): they are
   * merged in order, and the answer has one entry per entity, in first-appearance order.
   */
  batchUpsert(caller: Caller, entityType: EntityTypeInfo, items: readonly BatchItem[], options?: BatchOptions): Promise<Written<BatchWritten[]>>;
  /**
   * Patches aspects of several entities of one type (DataHub's entity-level PATCH):
   * each patch applies to what readers see of the aspect (an empty one when absent,
   * which creates it), patches of one aspect in the order sent; all or nothing.
   */
  batchPatch(caller: Caller, entityType: EntityTypeInfo, items: readonly BatchPatchItem[], options?: WriteOptions): Promise<Written<BatchWritten[]>>;
  /**
   * Reads the named aspects of several entities of one type (DataHub's batchGet); an
   * item naming no aspect gets all of them. Entities that do not exist are left out.
   */
  batchGet(caller: Caller, entityType: EntityTypeInfo, items: readonly { urn: string; aspects: readonly string[] }[]): Promise<EntityView[]>;
  /**
   * DataHub's write trace: for each entity and aspect asked about, whether the write the
   * trace id stands for is stored and searchable (domain/writeTrace.ts). Exactly the
   * entities and aspects asked about are answered; the client rejects any other.
   */
  traceWrites(caller: Caller, traceId: string, asked: ReadonlyMap<string, readonly string[]>): Promise<Map<string, Map<string, AspectTrace>>>;
  /** Hard-deletes an entity; idempotent. */
  deleteEntity(caller: Caller, urnValue: string, options?: WriteOptions & { entityType?: EntityTypeInfo }): Promise<WriteReceipt>;
  /** The aspects of other entities that name this entity (a tag in a dataset's globalTags, ...). */
  references(caller: Caller, urnValue: string): Promise<EntityReference[]>;
  /**
   * Takes this entity out of every aspect that names it, each through the write path
   * as an edit of that aspect; answers what it changed.
   */
  removeReferences(caller: Caller, urnValue: string, options?: WriteOptions): Promise<Written<EntityReference[]>>;
  /** Deletes one aspect; idempotent. */
  deleteAspect(caller: Caller, urnValue: string, aspect: string, options?: WriteOptions & { entityType?: EntityTypeInfo }): Promise<WriteReceipt>;
  /**
   * Whether the caller may make a call, without making it: a batch of calls (Rest.li's
   * proposal batch) is authorized whole before its first write. The authorization
   * wrapper answers; the service itself allows everything.
   */
  authorize(caller: Caller, call: EntityCall): Promise<void>;
  /**
   * What writing the aspect would drop of the values entities hold (a definition that
   * starts a new version drops its property's values), deciding everything and writing
   * nothing; a write the rules refuse throws as the write would (REST dryRun=true).
   */
  previewWrite(caller: Caller, urnValue: string, aspect: string, input: AspectInput, options?: SetAspectOptions & { entityType?: EntityTypeInfo }): Promise<ValueImpact>;
  /** What hard-deleting the entity would remove of the values entities hold: a property's values everywhere, an entity's own (REST dryRun=true). */
  previewDelete(caller: Caller, urnValue: string, options?: { entityType?: EntityTypeInfo }): Promise<ValueImpact>;
}

export class DefaultEntityService extends EntityWrites implements EntityService {
  async getEntity(_caller: Caller, urnValue: string, options: { entityType?: EntityTypeInfo; aspects?: readonly string[] } = {}): Promise<EntityView> {
    const urn = options.entityType ? parseUrnOfType(urnValue, options.entityType) : parseUrn(urnValue);
    const views = await this.readEntities([urn], options.aspects);
    const view = views.get(urn.value);
    if (!view) throw new NotFoundError(`Entity ${urn.value} does not exist`);
    return view;
  }

  async getAspect(caller: Caller, urnValue: string, aspect: string, entityType?: EntityTypeInfo): Promise<AspectValue> {
    const view = await this.getEntity(caller, urnValue, { ...(entityType ? { entityType } : {}), aspects: [aspect] });
    const value = view.aspects.get(aspect);
    if (!value) throw new NotFoundError(`Aspect ${aspect} of ${view.urn} does not exist`);
    return value;
  }

  async exists(urnValue: string): Promise<boolean> {
    const urn = parseUrn(urnValue);
    const parent = parentUrnOf(urn);
    return (await entityExists(this.deps.db, urn.value)) || (parent !== undefined && (await entityExists(this.deps.db, parent)));
  }

  existing(urns: readonly Urn[]): Promise<Set<string>> {
    return existingUrns(this.deps.db, urns);
  }

  readEntities(urns: readonly Urn[], aspects?: readonly string[]): Promise<Map<string, EntityView>> {
    return readEntityViews(this.deps, urns, aspects);
  }

  listEntities(_caller: Caller, entityType: EntityTypeInfo, options: { count: number; scrollId?: string; aspects?: readonly string[] }): Promise<{ scrollId: string | null; entities: EntityView[] }> {
    return listEntityPage(this.deps, entityType, options);
  }

  async batchGet(_caller: Caller, entityType: EntityTypeInfo, items: readonly { urn: string; aspects: readonly string[] }[]): Promise<EntityView[]> {
    requireBatchSize(items.length);
    // An item naming no aspect reads every aspect its type has, the key aspect included.
    checkRequestedResults(items.reduce((n, item) => n + (item.aspects.length || entityType.aspects.length + 1), 0), 'This batchGet', 'body');
    const parsed = items.map((item) => ({ urn: parseUrnOfType(item.urn, entityType), aspects: item.aspects }));
    const everything = parsed.some((p) => p.aspects.length === 0);
    const views = await this.readEntities(parsed.map((p) => p.urn), everything ? undefined : [...new Set(parsed.flatMap((p) => p.aspects))]);
    return parsed.flatMap(({ urn, aspects }) => {
      const view = views.get(urn.value);
      if (!view) return [];
      if (aspects.length === 0) return [view];
      return [{ ...view, aspects: new Map([...view.aspects].filter(([name]) => aspects.includes(name))) }];
    });
  }

  async traceWrites(_caller: Caller, traceId: string, asked: ReadonlyMap<string, readonly string[]>): Promise<Map<string, Map<string, AspectTrace>>> {
    const upTo = lastChangeOfTrace(traceId);
    // Bounded as a batch is: the answer holds one status per entity and aspect asked about.
    requireBatchSize(asked.size);
    checkRequestedResults([...asked.values()].reduce((n, aspects) => n + aspects.length, 0), 'This write trace', 'body');
    const entries = [...asked].map(([text, aspects]) => ({ text, urn: parseUrn(text), aspects }));
    const urns = entries.map((e) => e.urn);
    const [existing, stored, pending] = await Promise.all([
      this.existing(urns),
      latestAspectNamesOfMany(this.deps.db, urns.map((u) => u.value)),
      entitiesPendingUpTo(this.deps.db, urns.map((u) => u.value), upTo),
    ]);
    const out = new Map<string, Map<string, AspectTrace>>();
    for (const { text, urn, aspects } of entries) {
      const own = stored.get(urn.value);
      const exists = (aspect: string) => existing.has(urn.value) && (aspect === urn.entityType.keyAspect || own?.has(aspect) === true);
      out.set(text, new Map(aspects.map((aspect) => [aspect, aspectTraceOf({ exists: exists(aspect), searchPending: pending.has(urn.value), searchEnabled: this.deps.indexWaiter.indexing })])));
    }
    return out;
  }

  async references(_caller: Caller, urnValue: string): Promise<EntityReference[]> {
    const urn = parseUrn(urnValue);
    const found: EntityReference[] = [];
    for (const rule of referenceRulesFor(urn.entityType.name)) {
      for (const entity of await entitiesWithAspectContaining(this.deps.db, rule.aspect, rule.patterns(urn.value))) {
        found.push({ entity, aspect: rule.aspect, relationship: rule.relationship });
      }
    }
    return found;
  }
}
