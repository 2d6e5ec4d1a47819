/**
 * Entities and their aspects: reads (one entity, many, a page of one type), writes (set,
 * JSON patch, computed update, several aspects of one entity, a batch of entities of
 * one type) and hard deletes (an entity, one aspect), behind REST's entity routes and
 * GraphQL. Writes go through the aspect write path (aspects/pipeline.ts: all of a
 * request's entities in one guarded statement), then, unless async, wait for the
 * search index.
 */
import { findEntityType, type EntityTypeInfo } from '../domain/registry/entityTypes.js';
import { scopeAllows } from '../domain/accessToken.js';
import { ForbiddenError, NotFoundError, ValidationError } from '../domain/errors.js';
import { applyPatch, type PatchDocument } from '../domain/jsonPatch.js';
import { findAspect } from '../domain/registry/aspects.js';
import { textViolation } from '../domain/inputLimits.js';
import { checkRequestedResults, requireBatchSize } from '../domain/limits.js';
import { referenceRulesFor } from '../domain/references.js';
import { keyAspectOf, parentUrnOf, parseUrn, parseUrnOfType, type Urn } from '../domain/urn.js';
import { aspectTraceOf, lastChangeOfTrace, type AspectTrace } from '../domain/writeTrace.js';
import { laterReplaces, mergeBatchEntries, patchesInOrder, type BatchEntry } from '../domain/writes/batchEntries.js';
import { TurnTaker } from '../time.js';
import { entitiesWithAspectContaining, entityExists, latestAspectNamesOfMany, listLiveEntityUrns, type EntityPageReader } from '../store/aspects.js';
import { entitiesPendingUpTo } from '../store/changeLog.js';
import type { Db } from '../store/database.js';
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
  type EntityWriteOptions,
  type WriteOutcome,
  type AspectResult,
  type AspectWriteRequest,
} from './aspects/pipeline.js';
import { destructiveWritePolicy } from './writePolicy.js';
import type { IndexWaiter } from './indexWaiter.js';
import { addImpacts, NO_IMPACT, type ValueImpact } from '../domain/valueImpact.js';
import { heldValueImpact } from '../store/heldValueImpact.js';
import { propertyImpact } from '../store/propertyImpact.js';
import type { LocalRegistryChanges } from './localRegistryChanges.js';
import { bothWrites, NOTHING_WRITTEN, type WriteReceipt, type Written } from './writeReceipt.js';

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
  /** Pages of entities with named aspects in one read (search pages, batch reads). */
  readonly readEntityPage: EntityPageReader;
  readonly log: Logger;
  readonly indexWaiter: IndexWaiter;
  /** Where the write path counts the registry changes it commits (searches read the count). */
  readonly registryChanges: LocalRegistryChanges;
  /** Earlier versions kept per aspect (HISTORY_VERSIONS_KEPT); absent or 0: all of them. */
  readonly historyVersionsKept?: number;
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
  setAspect(caller: Caller, urnValue: string, aspect: string, input: AspectInput, options?: SetAspectOptions & { entityType?: EntityTypeInfo }): Promise<Written<AspectResult>>;
  /** Applies a JSON patch to what readers currently see of the aspect, then writes it like a set. */
  patchAspect(caller: Caller, urnValue: string, aspect: string, patch: PatchDocument, options?: PatchAspectOptions): Promise<Written<AspectResult>>;
  /** Computes an aspect from its current visible value (GraphQL merge semantics, removals). */
  updateAspect(caller: Caller, urnValue: string, aspect: string, compute: (current: unknown | undefined) => unknown, options?: WriteOptions): Promise<Written<AspectResult>>;
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

/** Whether a caller's writes may drop stored values (policies.ts), as the write path is told. */
function valueDropsOf(caller: Caller): EntityWriteOptions['valueDrops'] {
  const needs = destructiveWritePolicy.dropValues;
  return scopeAllows(caller.scope, needs) ? 'allowed' : { refusedUnless: needs };
}

/** A write call of this service, as authorize() is asked about it (with what it writes, for what only the decision shows). */
export type EntityCall =
  | { readonly method: 'setAspect'; readonly urn: string; readonly aspect: string; readonly input: AspectInput }
  | { readonly method: 'patchAspect'; readonly urn: string; readonly aspect: string; readonly patch: PatchDocument }
  | { readonly method: 'batchUpsert'; readonly entityType: EntityTypeInfo }
  | { readonly method: 'deleteAspect'; readonly urn: string; readonly aspect: string };

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

  async setAspect(caller: Caller, urnValue: string, aspect: string, input: AspectInput, options: SetAspectOptions & { entityType?: EntityTypeInfo } = {}): Promise<Written<AspectResult>> {
    const urn = options.entityType ? parseUrnOfType(urnValue, options.entityType) : parseUrn(urnValue);
    const request: AspectWriteRequest = {
      aspect,
      value: input.value,
      ...(options.createOnly ? { createOnly: true } : {}),
      ...(input.ifVersionMatch !== undefined ? { ifVersionMatch: input.ifVersionMatch } : {}),
      ...(input.systemMetadata ? { systemMetadata: input.systemMetadata } : {}),
    };
    return onlyResult(await this.write(caller, urn, [request], options));
  }

  async patchAspect(caller: Caller, urnValue: string, aspect: string, patch: PatchDocument, options: PatchAspectOptions = {}): Promise<Written<AspectResult>> {
    const urn = options.entityType ? parseUrnOfType(urnValue, options.entityType) : parseUrn(urnValue);
    const request = { ...patchRequest(aspect, patch), ...(options.systemMetadata ? { systemMetadata: options.systemMetadata } : {}) };
    return onlyResult(await this.write(caller, urn, [request], options));
  }

  async updateAspect(caller: Caller, urnValue: string, aspect: string, compute: (current: unknown | undefined) => unknown, options: WriteOptions = {}): Promise<Written<AspectResult>> {
    return onlyResult(await this.write(caller, parseUrn(urnValue), [{ aspect, compute }], options));
  }

  async writeAspects(caller: Caller, urnValue: string, requests: readonly AspectWriteRequest[], options: WriteOptions = {}): Promise<Written<AspectResult[]>> {
    return this.write(caller, parseUrn(urnValue), [...requests], options);
  }

  async batchUpsert(caller: Caller, entityType: EntityTypeInfo, items: readonly BatchItem[], options: BatchOptions = {}): Promise<Written<BatchWritten[]>> {
    return this.writeBatch(caller, entityType, items, laterReplaces, (aspect, input) => ({
      aspect,
      value: input.value,
      ...(options.createOnly ? { createOnly: true } : {}),
      ...(input.ifVersionMatch !== undefined ? { ifVersionMatch: input.ifVersionMatch } : {}),
      ...(input.systemMetadata ? { systemMetadata: input.systemMetadata } : {}),
    }), options);
  }

  async batchPatch(caller: Caller, entityType: EntityTypeInfo, items: readonly BatchPatchItem[], options: WriteOptions = {}): Promise<Written<BatchWritten[]>> {
    return this.writeBatch(caller, entityType, items, patchesInOrder, (aspect, input) => ({
      ...patchRequest(aspect, ...input.patches),
      ...(input.systemMetadata ? { systemMetadata: input.systemMetadata } : {}),
    }), options);
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

  private async writeBatch<T>(
    caller: Caller,
    entityType: EntityTypeInfo,
    items: readonly { urn: string; aspects: ReadonlyMap<string, T> }[],
    combine: (earlier: T, later: T) => T,
    requestOf: (aspect: string, input: T) => AspectWriteRequest,
    options: BatchOptions,
  ): Promise<Written<BatchWritten[]>> {
    requireBatchSize(items.length);
    checkRequestedResults(items.reduce((n, item) => n + item.aspects.size, 0), 'This batch', 'body');
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
    const receipt = await this.receiptOf(outcomes.flatMap((o) => o.changeIds), options);
    return { result: merged.map(({ urn }, i) => ({ urn, results: outcomes[i]!.results })), receipt };
  }

  async deleteEntity(caller: Caller, urnValue: string, options: WriteOptions & { entityType?: EntityTypeInfo } = {}): Promise<WriteReceipt> {
    const changeIds = await this.audit.around(
      { action: 'entity.hardDelete', actor: caller.actor, target: urnValue },
      () => {
        const urn = options.entityType ? parseUrnOfType(urnValue, options.entityType) : parseUrn(urnValue);
        return deleteEntityAndAspects(this.deps, urn);
      },
      (ids) => ({ existed: ids.length > 0 }),
    );
    return this.receiptOf(changeIds, options);
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

  async removeReferences(caller: Caller, urnValue: string, options: WriteOptions = {}): Promise<Written<EntityReference[]>> {
    const urn = parseUrn(urnValue);
    const found = await this.references(caller, urnValue);
    const rules = new Map(referenceRulesFor(urn.entityType.name).map((r) => [r.aspect, r]));
    let removed = 0;
    let receipt = NOTHING_WRITTEN;
    try {
      for (const ref of found) {
        const rule = rules.get(ref.aspect)!;
        const written = await this.write(caller, parseUrn(ref.entity), [{ aspect: ref.aspect, compute: (current) => (current === undefined ? NO_CHANGE : rule.remove(current, urn.value)) }], options);
        receipt = bothWrites(receipt, written.receipt);
        removed++;
      }
    } catch (err) {
      this.audit.record({ action: 'references.remove', actor: caller.actor, target: urn.value, ...failure(err, { found: found.length, removed }) });
      throw err;
    }
    this.audit.record({ action: 'references.remove', actor: caller.actor, target: urn.value, outcome: 'done', detail: { removed } });
    return { result: found, receipt };
  }

  async deleteAspect(caller: Caller, urnValue: string, aspect: string, options: WriteOptions & { entityType?: EntityTypeInfo } = {}): Promise<WriteReceipt> {
    const urn = options.entityType ? parseUrnOfType(urnValue, options.entityType) : parseUrn(urnValue);
    // Removing a structured property's status brings the property back (REST's restore).
    const action = aspect === 'status' && urn.entityType.name === 'structuredProperty' ? 'entity.restore' : 'aspect.delete';
    const changeIds = await this.audit.around(
      { action, actor: caller.actor, target: urn.value, detail: { aspect } },
      () => deleteOneAspect(this.deps, urn, aspect),
      (ids) => ({ existed: ids.length > 0 }),
    );
    return this.receiptOf(changeIds, options);
  }

  /**
   * The scope of the call is the wrapper's to check; what only the write's decision
   * shows is checked here: a definition that would drop stored values, decided without
   * writing, for a caller who may not drop them. Other errors are left to the call.
   */
  async authorize(caller: Caller, call: EntityCall): Promise<void> {
    if ((call.method !== 'setAspect' && call.method !== 'patchAspect') || call.aspect !== 'propertyDefinition' || valueDropsOf(caller) === 'allowed') return;
    const request: AspectWriteRequest = call.method === 'setAspect' ? { aspect: call.aspect, value: call.input.value } : patchRequest(call.aspect, call.patch);
    await this.writeMany([{ urn: parseUrn(call.urn), requests: [request] }], caller, { dryRun: true }).catch((err: unknown) => {
      if (err instanceof ForbiddenError) throw err;
    });
  }

  async previewWrite(caller: Caller, urnValue: string, aspect: string, input: AspectInput, options: SetAspectOptions & { entityType?: EntityTypeInfo } = {}): Promise<ValueImpact> {
    const urn = options.entityType ? parseUrnOfType(urnValue, options.entityType) : parseUrn(urnValue);
    const request: AspectWriteRequest = {
      aspect,
      value: input.value,
      ...(options.createOnly ? { createOnly: true } : {}),
      ...(input.ifVersionMatch !== undefined ? { ifVersionMatch: input.ifVersionMatch } : {}),
    };
    const [outcome] = await this.writeMany([{ urn, requests: [request] }], caller, { dryRun: true });
    let impact = NO_IMPACT;
    for (const property of outcome!.valuesDropped) impact = addImpacts(impact, await propertyImpact(this.deps.db, property));
    return impact;
  }

  async previewDelete(_caller: Caller, urnValue: string, options: { entityType?: EntityTypeInfo } = {}): Promise<ValueImpact> {
    const urn = options.entityType ? parseUrnOfType(urnValue, options.entityType) : parseUrn(urnValue);
    return urn.entityType.definitionAspect ? propertyImpact(this.deps.db, urn.value) : heldValueImpact(this.deps.db, urn.value);
  }

  private async write(caller: Caller, urn: Urn, requests: AspectWriteRequest[], options: WriteOptions): Promise<Written<AspectResult[]>> {
    const keyAspect = urn.entityType.keyAspect;
    const withKey =
      options.createsEntity && !requests.some((r) => r.aspect === keyAspect) ? [{ aspect: keyAspect, value: keyAspectOf(urn) }, ...requests] : requests;
    const [outcome] = await this.writeMany([{ urn, requests: withKey }], caller, {});
    const results = withKey === requests ? outcome!.results : outcome!.results.slice(1);
    return { result: results, receipt: await this.receiptOf(outcome!.changeIds, options) };
  }

  /** Writes through the one write path; definitions and soft deletes among the writes are audited, done or refused. */
  private async writeMany(entities: readonly EntityWrite[], caller: Caller, options: { createEntityOnly?: boolean; dryRun?: boolean }): Promise<WriteOutcome[]> {
    let outcomes: WriteOutcome[];
    try {
      outcomes = await writeEntities(this.deps, entities, caller.actor, { ...options, via: caller.via, historyVersionsKept: this.deps.historyVersionsKept, valueDrops: valueDropsOf(caller) });
    } catch (err) {
      // A dry run is a question, not an act: only a refusal of the caller is audited; other errors are the real write's to report.
      if (options.dryRun && !(err instanceof ForbiddenError)) throw err;
      for (const { urn, requests } of entities) {
        for (const request of requests) {
          const action = auditedAspectWrite(request.aspect, 'value' in request ? request.value : undefined, urn.entityType.name);
          if (action) this.audit.record({ action, actor: caller.actor, target: urn.value, ...failure(err) });
        }
      }
      throw err;
    }
    if (options.dryRun) return outcomes;
    for (let i = 0; i < entities.length; i++) {
      const urn = entities[i]!.urn;
      for (const result of outcomes[i]!.results) {
        const action = auditedAspectWrite(result.aspect, result.value, urn.entityType.name);
        if (action) this.audit.record({ action, actor: caller.actor, target: urn.value, outcome: 'done' });
      }
    }
    return outcomes;
  }

  /** Waits for the index unless asked not to; the receipt says whether the changes were indexed (docs/contract.md §12). */
  private async receiptOf(changeIds: readonly bigint[], options: WriteOptions): Promise<WriteReceipt> {
    if (changeIds.length === 0) return { indexStatus: 'indexed', lastChange: 0n };
    const indexStatus = options.async ? 'pending' : await this.deps.indexWaiter.waitFor(changeIds);
    return { indexStatus, lastChange: changeIds.reduce((a, b) => (b > a ? b : a)) };
  }
}

/** The one aspect result of a single-aspect write. */
function onlyResult(written: Written<AspectResult[]>): Written<AspectResult> {
  return { result: written.result[0]!, receipt: written.receipt };
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
