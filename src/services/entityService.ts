/**
 * Entities and their aspects: reads (one entity, many, a page of one type), writes (set,
 * JSON patch, computed update, several aspects of one entity, a batch of entities of
 * one type) and hard deletes (an entity, one aspect), behind REST's entity routes and
 * GraphQL. Writes go through the aspect write path (aspects/pipeline.ts: all of a
 * request's entities in one guarded statement), then, unless async, wait for the
 * search index.
 */
import { findEntityType, type EntityTypeInfo } from '../domain/registry/entityTypes.js';
import { NotFoundError, UnavailableError, ValidationError } from '../domain/errors.js';
import { applyPatch, type PatchDocument } from '../domain/jsonPatch.js';
import { findAspect } from '../domain/registry/aspects.js';
import { textViolation } from '../domain/inputLimits.js';
import { requireBatchSize } from '../domain/limits.js';
import { referenceRulesFor } from '../domain/references.js';
import { keyAspectOf, parentUrnOf, parseUrn, parseUrnOfType, type Urn } from '../domain/urn.js';
import { aspectTraceOf, lastChangeOfTrace, type AspectTrace } from '../domain/writeTrace.js';
import { laterReplaces, mergeBatchEntries, patchesInOrder, type BatchEntry } from '../domain/writes/batchEntries.js';
import { TurnTaker } from '../time.js';
import { entitiesWithAspectContaining, entityExists, latestAspectsOfMany, listLiveEntityUrns, type EntityPageReader } from '../store/aspects.js';
import { entitiesPendingUpTo } from '../store/changeLog.js';
import type { Db, DriverStatement } from '../store/database.js';
import { isConnectionError } from '../store/connectionErrors.js';
import { inTransaction } from '../store/transaction.js';
import type { Logger } from '../logger.js';
import { AuditTrail, auditedAspectWrite, failure } from './audit.js';
import type { Caller, WriteOptions } from './caller.js';
import { handlerFor } from './aspects/handlers.js';
import { existingUrns, readEntityViews } from './entityReads.js';
import type { AspectValue, EntityView } from './entityView.js';
import {
  deleteEntityAndAspects,
  deleteOneAspect,
  writeEntities,
  NO_CHANGE,
  type EntityWrite,
  type WriteOutcome,
  type AspectResult,
  type AspectWriteRequest,
} from './aspects/pipeline.js';
import { noteIndexStatus } from './indexStatus.js';
import type { IndexWaiter } from './indexWaiter.js';

export type { AspectValue, EntityView } from './entityView.js';

export interface AspectInput {
  readonly value: unknown;
  readonly systemMetadata?: Record<string, unknown>;
  readonly ifVersionMatch?: string;
}

export interface SetAspectOptions extends WriteOptions {
  readonly createOnly?: boolean;
}

export interface PatchAspectOptions extends WriteOptions {
  readonly entityType?: EntityTypeInfo;
  /** Stored with the patched aspect, as a set stores it. */
  readonly systemMetadata?: Record<string, unknown>;
}

export interface BatchItem {
  readonly urn: string;
  readonly aspects: ReadonlyMap<string, AspectInput>;
}

/** Patches of one aspect, applied in order; DataHub sends `{patch, arrayPrimaryKeys}` per item. */
export interface PatchInput {
  readonly patches: readonly PatchDocument[];
  readonly systemMetadata?: Record<string, unknown>;
}

export interface BatchPatchItem {
  readonly urn: string;
  readonly aspects: ReadonlyMap<string, PatchInput>;
}

export interface BatchWritten {
  readonly urn: string;
  readonly results: AspectResult[];
}

export interface BatchOptions extends WriteOptions {
  readonly createOnly?: boolean;
  readonly createEntityOnly?: boolean;
}

/** An aspect of another entity that names an entity (DataHub's relationship name). */
export interface EntityReference {
  readonly entity: string;
  readonly aspect: string;
  readonly relationship: string;
}

export interface EntityDeps {
  readonly db: Db;
  /** The write path's applying statement runs on the driver (store/writeApply.ts). */
  readonly statement: DriverStatement;
  /** Pages of entities with named aspects in one read (search pages, batch reads). */
  readonly readEntityPage: EntityPageReader;
  readonly log: Logger;
  readonly indexWaiter: IndexWaiter;
}

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
  setAspect(caller: Caller, urnValue: string, aspect: string, input: AspectInput, options?: SetAspectOptions & { entityType?: EntityTypeInfo }): Promise<AspectResult>;
  /** Applies a JSON patch to what readers currently see of the aspect, then writes it like a set. */
  patchAspect(caller: Caller, urnValue: string, aspect: string, patch: PatchDocument, options?: PatchAspectOptions): Promise<AspectResult>;
  /** Computes an aspect from its current visible value (GraphQL merge semantics, removals). */
  updateAspect(caller: Caller, urnValue: string, aspect: string, compute: (current: unknown | undefined) => unknown, options?: WriteOptions): Promise<AspectResult>;
  /** Writes several aspects of one entity together: all of them or none. */
  writeAspects(caller: Caller, urnValue: string, requests: readonly AspectWriteRequest[], options?: WriteOptions): Promise<AspectResult[]>;
  /**
   * Creates or updates several entities of one type. Everything is validated before
   * anything is written, so a bad entry fails the batch without partial writes. One
   * URN may come in several items (DataHub's clients send one per aspect): they are
   * merged in order, and the answer has one entry per entity, in first-appearance order.
   */
  batchUpsert(caller: Caller, entityType: EntityTypeInfo, items: readonly BatchItem[], options?: BatchOptions): Promise<BatchWritten[]>;
  /**
   * Patches aspects of several entities of one type (DataHub's entity-level PATCH):
   * each patch applies to what readers see of the aspect (an empty one when absent,
   * which creates it), patches of one aspect in the order sent; all or nothing.
   */
  batchPatch(caller: Caller, entityType: EntityTypeInfo, items: readonly BatchPatchItem[], options?: WriteOptions): Promise<BatchWritten[]>;
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
  deleteEntity(caller: Caller, urnValue: string, options?: WriteOptions & { entityType?: EntityTypeInfo }): Promise<void>;
  /** The aspects of other entities that name this entity (a tag in a dataset's globalTags, ...). */
  references(caller: Caller, urnValue: string): Promise<EntityReference[]>;
  /**
   * Takes this entity out of every aspect that names it, each through the write path
   * as an edit of that aspect; answers what it changed.
   */
  removeReferences(caller: Caller, urnValue: string, options?: WriteOptions): Promise<EntityReference[]>;
  /** Deletes one aspect; idempotent. */
  deleteAspect(caller: Caller, urnValue: string, aspect: string, options?: WriteOptions & { entityType?: EntityTypeInfo }): Promise<void>;
}

export class DefaultEntityService implements EntityService {
  private readonly audit: AuditTrail;

  constructor(private readonly deps: EntityDeps) {
    this.audit = new AuditTrail(deps.log);
  }

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

  async listEntities(_caller: Caller, entityType: EntityTypeInfo, options: { count: number; scrollId?: string; aspects?: readonly string[] }): Promise<{ scrollId: string | null; entities: EntityView[] }> {
    const after = options.scrollId ? decodeScrollId(options.scrollId) : null;
    // Soft-deleted entities are not listed, as searches do not show them (one rule for REST and GraphQL listings).
    const urns = await listLiveEntityUrns(this.deps.db, entityType.name, after, options.count + 1);
    const page = urns.slice(0, options.count);
    const views = await this.readEntities(page.map((u) => parseUrn(u)), options.aspects);
    const entities = page.map((u) => views.get(u)).filter((v): v is EntityView => v !== undefined);
    return { scrollId: urns.length > options.count ? encodeScrollId(page[page.length - 1]!) : null, entities };
  }

  async setAspect(caller: Caller, urnValue: string, aspect: string, input: AspectInput, options: SetAspectOptions & { entityType?: EntityTypeInfo } = {}): Promise<AspectResult> {
    const urn = options.entityType ? parseUrnOfType(urnValue, options.entityType) : parseUrn(urnValue);
    const request: AspectWriteRequest = {
      aspect,
      value: input.value,
      ...(options.createOnly ? { createOnly: true } : {}),
      ...(input.ifVersionMatch !== undefined ? { ifVersionMatch: input.ifVersionMatch } : {}),
      ...(input.systemMetadata ? { systemMetadata: input.systemMetadata } : {}),
    };
    const [result] = await this.write(caller, urn, [request], options);
    return result!;
  }

  async patchAspect(caller: Caller, urnValue: string, aspect: string, patch: PatchDocument, options: PatchAspectOptions = {}): Promise<AspectResult> {
    const urn = options.entityType ? parseUrnOfType(urnValue, options.entityType) : parseUrn(urnValue);
    const request = { ...patchRequest(aspect, patch), ...(options.systemMetadata ? { systemMetadata: options.systemMetadata } : {}) };
    const [result] = await this.write(caller, urn, [request], options);
    return result!;
  }

  async updateAspect(caller: Caller, urnValue: string, aspect: string, compute: (current: unknown | undefined) => unknown, options: WriteOptions = {}): Promise<AspectResult> {
    const [result] = await this.write(caller, parseUrn(urnValue), [{ aspect, compute }], options);
    return result!;
  }

  async writeAspects(caller: Caller, urnValue: string, requests: readonly AspectWriteRequest[], options: WriteOptions = {}): Promise<AspectResult[]> {
    return this.write(caller, parseUrn(urnValue), [...requests], options);
  }

  async batchUpsert(caller: Caller, entityType: EntityTypeInfo, items: readonly BatchItem[], options: BatchOptions = {}): Promise<BatchWritten[]> {
    return this.writeBatch(caller, entityType, items, laterReplaces, (aspect, input) => ({
      aspect,
      value: input.value,
      ...(options.createOnly ? { createOnly: true } : {}),
      ...(input.ifVersionMatch !== undefined ? { ifVersionMatch: input.ifVersionMatch } : {}),
      ...(input.systemMetadata ? { systemMetadata: input.systemMetadata } : {}),
    }), options);
  }

  async batchPatch(caller: Caller, entityType: EntityTypeInfo, items: readonly BatchPatchItem[], options: WriteOptions = {}): Promise<BatchWritten[]> {
    return this.writeBatch(caller, entityType, items, patchesInOrder, (aspect, input) => ({
      ...patchRequest(aspect, ...input.patches),
      ...(input.systemMetadata ? { systemMetadata: input.systemMetadata } : {}),
    }), options);
  }

  async batchGet(_caller: Caller, entityType: EntityTypeInfo, items: readonly { urn: string; aspects: readonly string[] }[]): Promise<EntityView[]> {
    requireBatchSize(items.length);
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
    const urns = [...asked.keys()].map((u) => parseUrn(u));
    const existing = await this.existing(urns);
    const [stored, pending] = await Promise.all([
      latestAspectsOfMany(this.deps.db, urns.map((u) => u.value)),
      entitiesPendingUpTo(this.deps.db, urns.map((u) => u.value), upTo),
    ]);
    const out = new Map<string, Map<string, AspectTrace>>();
    for (const [text, aspects] of asked) {
      const urn = parseUrn(text);
      const own = stored.get(urn.value);
      const exists = (aspect: string) => existing.has(urn.value) && (aspect === urn.entityType.keyAspect || own?.has(aspect) === true);
      out.set(text, new Map(aspects.map((aspect) => [aspect, aspectTraceOf({ exists: exists(aspect), searchPending: pending.has(urn.value), searchEnabled: this.deps.indexWaiter.indexing })])));
    }
    return out;
  }

  private async writeBatch<T>(
    caller: Caller,
    entityType: EntityTypeInfo,
    items: readonly { urn: string; aspects: ReadonlyMap<string, T> }[],
    combine: (earlier: T, later: T) => T,
    requestOf: (aspect: string, input: T) => AspectWriteRequest,
    options: BatchOptions,
  ): Promise<BatchWritten[]> {
    requireBatchSize(items.length);
    const parsed = new Map<string, Urn>();
    const entries: BatchEntry<T>[] = [];
    const turns = new TurnTaker();
    for (const item of items) {
      const urn = parseUrnOfType(item.urn, entityType);
      parsed.set(urn.value, urn);
      for (const name of item.aspects.keys()) handlerFor(urn.entityType, name);
      entries.push({ urn: urn.value, aspects: item.aspects });
      await turns.turn();
    }
    const merged = mergeBatchEntries(entries, combine);
    const entities = merged.map(({ urn, aspects }) => ({ urn: parsed.get(urn)!, requests: [...aspects].map(([aspect, input]) => requestOf(aspect, input)) }));
    const outcomes = await this.writeMany(entities, caller, { createEntityOnly: options.createEntityOnly ?? false });
    await this.afterCommit(outcomes.flatMap((o) => o.changeIds), options);
    return merged.map(({ urn }, i) => ({ urn, results: outcomes[i]!.results }));
  }

  async deleteEntity(caller: Caller, urnValue: string, options: WriteOptions & { entityType?: EntityTypeInfo } = {}): Promise<void> {
    const changeIds = await this.audit.around(
      { action: 'entity.hardDelete', actor: caller.actor, target: urnValue },
      () => {
        const urn = options.entityType ? parseUrnOfType(urnValue, options.entityType) : parseUrn(urnValue);
        return inTransaction(this.deps.db, (tx) => deleteEntityAndAspects(tx, urn));
      },
      (ids) => ({ existed: ids.length > 0 }),
    );
    await this.afterCommit(changeIds, options);
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

  async removeReferences(caller: Caller, urnValue: string, options: WriteOptions = {}): Promise<EntityReference[]> {
    const urn = parseUrn(urnValue);
    const found = await this.references(caller, urnValue);
    const rules = new Map(referenceRulesFor(urn.entityType.name).map((r) => [r.aspect, r]));
    let removed = 0;
    try {
      for (const ref of found) {
        const rule = rules.get(ref.aspect)!;
        await this.write(caller, parseUrn(ref.entity), [{ aspect: ref.aspect, compute: (current) => (current === undefined ? NO_CHANGE : rule.remove(current, urn.value)) }], options);
        removed++;
      }
    } catch (err) {
      this.audit.record({ action: 'references.remove', actor: caller.actor, target: urn.value, ...failure(err, { found: found.length, removed }) });
      throw err;
    }
    this.audit.record({ action: 'references.remove', actor: caller.actor, target: urn.value, outcome: 'done', detail: { removed } });
    return found;
  }

  async deleteAspect(caller: Caller, urnValue: string, aspect: string, options: WriteOptions & { entityType?: EntityTypeInfo } = {}): Promise<void> {
    const urn = options.entityType ? parseUrnOfType(urnValue, options.entityType) : parseUrn(urnValue);
    // Removing a structured property's status brings the property back (REST's restore).
    const action = aspect === 'status' && urn.entityType.name === 'structuredProperty' ? 'entity.restore' : 'aspect.delete';
    const changeIds = await this.audit.around(
      { action, actor: caller.actor, target: urn.value, detail: { aspect } },
      () => inTransaction(this.deps.db, (tx) => deleteOneAspect(tx, urn, aspect)),
      (ids) => ({ existed: ids.length > 0 }),
    );
    await this.afterCommit(changeIds, options);
  }

  private async write(caller: Caller, urn: Urn, requests: AspectWriteRequest[], options: WriteOptions): Promise<AspectResult[]> {
    const keyAspect = urn.entityType.keyAspect;
    const withKey =
      options.createsEntity && !requests.some((r) => r.aspect === keyAspect) ? [{ aspect: keyAspect, value: keyAspectOf(urn) }, ...requests] : requests;
    const [outcome] = await this.writeMany([{ urn, requests: withKey }], caller, {});
    const results = withKey === requests ? outcome!.results : outcome!.results.slice(1);
    await this.afterCommit(outcome!.changeIds, options);
    return results;
  }

  /** Writes through the one write path; definitions and soft deletes among the writes are audited, done or refused. */
  private async writeMany(entities: readonly EntityWrite[], caller: Caller, options: { createEntityOnly?: boolean }): Promise<WriteOutcome[]> {
    let outcomes: WriteOutcome[];
    try {
      outcomes = await writeEntities(this.deps, entities, caller.actor, options);
    } catch (err) {
      const thrown = isConnectionError(err) ? new UnavailableError('The database is not reachable right now; retry later') : err;
      for (const { urn, requests } of entities) {
        for (const request of requests) {
          const action = auditedAspectWrite(request.aspect, 'value' in request ? request.value : undefined, urn.entityType.name);
          if (action) this.audit.record({ action, actor: caller.actor, target: urn.value, ...failure(thrown) });
        }
      }
      throw thrown;
    }
    for (let i = 0; i < entities.length; i++) {
      const urn = entities[i]!.urn;
      for (const result of outcomes[i]!.results) {
        const action = auditedAspectWrite(result.aspect, result.value, urn.entityType.name);
        if (action) this.audit.record({ action, actor: caller.actor, target: urn.value, outcome: 'done' });
      }
    }
    return outcomes;
  }

  /** Waits for the index unless asked not to, and notes whether the changes were indexed (docs/contract.md §12). */
  private async afterCommit(changeIds: readonly bigint[], options: WriteOptions): Promise<void> {
    if (changeIds.length === 0) noteIndexStatus('indexed');
    else noteIndexStatus(options.async ? 'pending' : await this.deps.indexWaiter.waitFor(changeIds), changeIds);
  }
}

/** JSON patches as one write: applied in order to what readers see of the aspect, or to an empty one when it is absent. */
function patchRequest(aspect: string, ...patches: readonly PatchDocument[]): AspectWriteRequest {
  const info = findAspect(aspect);
  const start = info?.empty ?? {};
  return { aspect, compute: (current) => patches.reduce<unknown>((doc, patch) => applyPatch(doc, patch, info?.patchKeys), current ?? structuredClone(start)) };
}

export function encodeScrollId(lastUrn: string): string {
  return Buffer.from(lastUrn, 'utf8').toString('base64url');
}

export function decodeScrollId(scrollId: string): string {
  const urn = Buffer.from(scrollId, 'base64url').toString('utf8');
  // What it decodes to is input too (docs/contract.md §12): U+0000 would reach the database.
  if (!urn.startsWith('urn:li:') || textViolation(urn)) {
    throw new ValidationError('scrollId is not a valid cursor; pass the scrollId of the previous page unchanged', 'scrollId');
  }
  return urn;
}
