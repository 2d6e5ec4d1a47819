/**
 * The write half of the entity service: set, JSON patch, computed update, several
 * aspects of one entity, a batch of entities of one type, hard deletes (an entity, one
 * aspect), taking an entity out of the aspects that name it, and the previews of what a
 * write or a delete would drop. Every write goes through the aspect write path
 * (aspects/pipeline.ts: all of a request's entities in one guarded statement), then,
 * unless async, waits for the search index. DefaultEntityService (entityService.ts)
 * adds the reads.
 */
import type { EntityTypeInfo } from '../domain/registry/entityTypes.js';
import { scopeAllows } from '../domain/accessToken.js';
import { ForbiddenError } from '../domain/errors.js';
import { applyPatch, type PatchDocument } from '../domain/jsonPatch.js';
import { findAspect } from '../domain/registry/aspects.js';
import { checkRequestedResults, requireBatchSize } from '../domain/limits.js';
import { referenceRulesFor } from '../domain/references.js';
import { keyAspectOf, parseUrn, parseUrnOfType, type Urn } from '../domain/urn.js';
import { laterReplaces, mergeBatchEntries, patchesInOrder, type BatchEntry } from '../domain/writes/batchEntries.js';
import { TurnTaker } from '../time.js';
import type { EntityPageReader } from '../store/aspects.js';
import type { Db } from '../store/database.js';
import type { Logger } from '../logger.js';
import { AuditTrail, auditedAspectWrite, failure } from './audit.js';
import type { Caller, WriteOptions } from './caller.js';
import { handlerFor } from './aspects/handlers.js';
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

/** The writes of EntityService, with what they share: the write path, its audit and the wait for the index. */
export abstract class EntityWrites {
  private readonly audit: AuditTrail;

  constructor(protected readonly deps: EntityDeps) {
    this.audit = new AuditTrail(deps.log);
  }

  /** The aspects of other entities that name this entity (the reads' to answer); removeReferences() takes it out of them. */
  abstract references(caller: Caller, urnValue: string): Promise<EntityReference[]>;

  async setAspect(caller: Caller, urnValue: string, aspect: string, input: AspectInput, options: SetAspectOptions & { entityType?: EntityTypeInfo } = {}): Promise<Written<AspectResult>> {
    const urn = options.entityType ? parseUrnOfType(urnValue, options.entityType) : parseUrn(urnValue);
    return onlyResult(await this.write(caller, urn, [setRequest(aspect, input, options.createOnly)], options));
  }

  async patchAspect(caller: Caller, urnValue: string, aspect: string, patch: PatchDocument, options: PatchAspectOptions = {}): Promise<Written<AspectResult>> {
    const urn = options.entityType ? parseUrnOfType(urnValue, options.entityType) : parseUrn(urnValue);
    const request = { ...patchRequest(aspect, caller, patch), ...(options.systemMetadata ? { systemMetadata: options.systemMetadata } : {}) };
    return onlyResult(await this.write(caller, urn, [request], options));
  }

  async updateAspect(caller: Caller, urnValue: string, aspect: string, compute: (current: unknown | undefined) => unknown, options: WriteOptions = {}): Promise<Written<AspectResult>> {
    return onlyResult(await this.write(caller, parseUrn(urnValue), [{ aspect, compute }], options));
  }

  async writeAspects(caller: Caller, urnValue: string, requests: readonly AspectWriteRequest[], options: WriteOptions = {}): Promise<Written<AspectResult[]>> {
    return this.write(caller, parseUrn(urnValue), [...requests], options);
  }

  async batchUpsert(caller: Caller, entityType: EntityTypeInfo, items: readonly BatchItem[], options: BatchOptions = {}): Promise<Written<BatchWritten[]>> {
    return this.writeBatch(caller, entityType, items, laterReplaces, (aspect, input) => setRequest(aspect, input, options.createOnly), options);
  }

  async batchPatch(caller: Caller, entityType: EntityTypeInfo, items: readonly BatchPatchItem[], options: WriteOptions = {}): Promise<Written<BatchWritten[]>> {
    return this.writeBatch(caller, entityType, items, patchesInOrder, (aspect, input) => ({
      ...patchRequest(aspect, caller, ...input.patches),
      ...(input.systemMetadata ? { systemMetadata: input.systemMetadata } : {}),
    }), options);
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
    const entities = merged.map(({ urn, aspects }) => ({ urn: parsed.get(urn)!, requests: withKeyIf(options.createsEntity, parsed.get(urn)!, [...aspects].map(([aspect, input]) => requestOf(aspect, input))) }));
    const outcomes = await this.writeMany(entities, caller, { createEntityOnly: options.createEntityOnly ?? false });
    const receipt = await this.receiptOf(outcomes.flatMap((o) => o.changeIds), options);
    // The key aspect a batch added to create its entities is not among what was asked.
    return { result: merged.map(({ urn, aspects }, i) => ({ urn, results: outcomes[i]!.results.slice(entities[i]!.requests.length - aspects.size) })), receipt };
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
    const request: AspectWriteRequest = call.method === 'setAspect' ? { aspect: call.aspect, value: call.input.value } : patchRequest(call.aspect, caller, call.patch);
    await this.writeMany([{ urn: parseUrn(call.urn), requests: [request] }], caller, { dryRun: true }).catch((err: unknown) => {
      if (err instanceof ForbiddenError) throw err;
    });
  }

  async previewWrite(caller: Caller, urnValue: string, aspect: string, input: AspectInput, options: SetAspectOptions & { entityType?: EntityTypeInfo } = {}): Promise<ValueImpact> {
    const urn = options.entityType ? parseUrnOfType(urnValue, options.entityType) : parseUrn(urnValue);
    // The system metadata goes along as a set sends it; only stored rows carry it, and a dry run stores none.
    const [outcome] = await this.writeMany([{ urn, requests: [setRequest(aspect, input, options.createOnly)] }], caller, { dryRun: true });
    let impact = NO_IMPACT;
    for (const property of outcome!.valuesDropped) impact = addImpacts(impact, await propertyImpact(this.deps.db, property));
    return impact;
  }

  async previewDelete(_caller: Caller, urnValue: string, options: { entityType?: EntityTypeInfo } = {}): Promise<ValueImpact> {
    const urn = options.entityType ? parseUrnOfType(urnValue, options.entityType) : parseUrn(urnValue);
    return urn.entityType.definitionAspect ? propertyImpact(this.deps.db, urn.value) : heldValueImpact(this.deps.db, urn.value);
  }

  private async write(caller: Caller, urn: Urn, requests: AspectWriteRequest[], options: WriteOptions): Promise<Written<AspectResult[]>> {
    const withKey = withKeyIf(options.createsEntity, urn, requests);
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
    for (const warning of outcomes.flatMap((o) => o.warnings ?? [])) this.deps.log.warn({ actor: caller.actor }, `write ${warning} (DROP_UNDEFINED_PROPERTY_VALUES)`);
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

/** A set of one aspect as a write request: its value, and the createOnly, version match and system metadata asked for. */
function setRequest(aspect: string, input: AspectInput, createOnly: boolean | undefined): AspectWriteRequest {
  return {
    aspect,
    value: input.value,
    ...(createOnly ? { createOnly: true } : {}),
    ...(input.ifVersionMatch !== undefined ? { ifVersionMatch: input.ifVersionMatch } : {}),
    ...(input.systemMetadata ? { systemMetadata: input.systemMetadata } : {}),
  };
}

/** The requests with the entity's key aspect first when the write creates its entity (and does not write the key itself). */
function withKeyIf(createsEntity: boolean | undefined, urn: Urn, requests: AspectWriteRequest[]): AspectWriteRequest[] {
  const keyAspect = urn.entityType.keyAspect;
  return createsEntity && !requests.some((r) => r.aspect === keyAspect) ? [{ aspect: keyAspect, value: keyAspectOf(urn) }, ...requests] : requests;
}

/** The one aspect result of a single-aspect write. */
function onlyResult(written: Written<AspectResult[]>): Written<AspectResult> {
  return { result: written.result[0]!, receipt: written.receipt };
}

/**
 * JSON patches as one write: applied in order to what readers see of the aspect, or to an
 * empty one when it is absent. An attribution a patch's path alone names is the writer's, now.
 */
function patchRequest(aspect: string, caller: Caller, ...patches: readonly PatchDocument[]): AspectWriteRequest {
  const info = findAspect(aspect);
  const start = info?.empty ?? {};
  return {
    aspect,
    compute: (current) => {
      const fill = { attribution: { time: Date.now(), actor: caller.actor } };
      return patches.reduce<unknown>((doc, patch) => applyPatch(doc, patch, info?.patchKeys, fill), current ?? structuredClone(start));
    },
  };
}
