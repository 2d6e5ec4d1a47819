/**
 * Entities and their aspects: the use cases behind REST's generic entity routes and
 * behind GraphQL's reads. Every write goes through the aspect pipeline in one
 * transaction per entity, then (unless async) waits for the search index.
 */
import { checkAspectSize } from '../domain/aspectSize.js';
import { findEntityType, type EntityTypeInfo } from '../domain/entityTypes.js';
import { NotFoundError, UnavailableError, ValidationError } from '../domain/errors.js';
import { applyPatch, type PatchDocument } from '../domain/jsonPatch.js';
import { textViolation } from '../domain/inputLimits.js';
import { LIMITS } from '../domain/limits.js';
import { referenceRulesFor } from '../domain/references.js';
import { parentUrnOf, parseUrn, parseUrnOfType, type Urn } from '../domain/urn.js';
import { entitiesWithAspectContaining, entityExists, existingEntities, latestAspectsOfMany, listLiveEntityUrns, type StoredAspect } from '../store/aspects.js';
import type { Db } from '../store/database.js';
import { isConnectionError } from '../store/connectionErrors.js';
import { valuesOfEntities } from '../store/propertyValues.js';
import { inTransaction } from '../store/transaction.js';
import type { Logger } from '../logger.js';
import type { Caller, WriteOptions } from './caller.js';
import { handlerFor, isKnownAspect } from './aspects/handlers.js';
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

export interface AspectValue {
  readonly value: unknown;
  readonly systemMetadata: Record<string, unknown> | null;
}

export interface EntityView {
  readonly urn: string;
  readonly entityType: EntityTypeInfo;
  readonly aspects: ReadonlyMap<string, AspectValue>;
}

export interface AspectInput {
  readonly value: unknown;
  readonly systemMetadata?: Record<string, unknown>;
  readonly ifVersionMatch?: string;
}

export interface SetAspectOptions extends WriteOptions {
  readonly createOnly?: boolean;
}

export interface BatchItem {
  readonly urn: string;
  readonly aspects: ReadonlyMap<string, AspectInput>;
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
  readonly log: Logger;
  readonly indexWaiter: IndexWaiter;
}

/** Resolves a REST `{entityName}` path segment (case-insensitive). */
export function entityTypeNamed(name: string): EntityTypeInfo {
  const type = findEntityType(name);
  if (!type) throw new NotFoundError(`Unknown entity type ${name}`);
  return type;
}

export class EntityService {
  constructor(private readonly deps: EntityDeps) {}

  /** Reads an entity's latest aspects (all, or those named) as readers see them. */
  async getEntity(_caller: Caller, urnValue: string, options: { entityType?: EntityTypeInfo; aspects?: readonly string[] } = {}): Promise<EntityView> {
    const urn = options.entityType ? parseUrnOfType(urnValue, options.entityType) : parseUrn(urnValue);
    const views = await this.readEntities([urn], options.aspects);
    const view = views.get(urn.value);
    if (!view) throw new NotFoundError(`Entity ${urn.value} does not exist`);
    return view;
  }

  /** Reads one aspect; 404 when the entity or the aspect does not exist. */
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

  /** Which of the entities exist (a schema field when its dataset does), in one query. */
  async existing(urns: readonly Urn[]): Promise<Set<string>> {
    const parents = urns.map((u) => parentUrnOf(u));
    const found = await existingEntities(this.deps.db, [...urns.map((u) => u.value), ...parents.filter((p): p is string => p !== undefined)]);
    return new Set(urns.filter((u, i) => found.has(u.value) || (parents[i] !== undefined && found.has(parents[i]!))).map((u) => u.value));
  }

  /**
   * Batched read for many entities (search results): three queries (existence,
   * aspects, and the value rows that views of structured properties need), whatever
   * the number of entities. Entities that do not exist are absent from the map.
   */
  async readEntities(urns: readonly Urn[], aspects?: readonly string[]): Promise<Map<string, EntityView>> {
    const out = new Map<string, EntityView>();
    const db = this.deps.db;
    if (aspects) for (const urn of urns) for (const a of aspects) if (!isKnownAspect(urn.entityType, a)) handlerFor(urn.entityType, a);
    // A schema field exists exactly when its dataset does, aspects or not.
    const existing = await this.existing(urns);
    const live = urns.filter((u) => existing.has(u.value));
    const stored = await latestAspectsOfMany(db, live.map((u) => u.value), aspects);
    const shown = live.map((urn) => {
      const type = urn.entityType;
      const own = stored.get(urn.value) ?? new Map<string, StoredAspect>();
      const names = (aspects ?? [type.keyAspect, ...own.keys()]).filter((name) => name === type.keyAspect || own.has(name));
      return { urn, own, views: names.map((name) => ({ name, rules: handlerFor(type, name) })) };
    });
    const needValues = shown.filter((s) => s.views.some((v) => v.rules.needs(s.urn, undefined).values)).map((s) => s.urn.value);
    const values = await valuesOfEntities(db, needValues);
    for (const { urn, own, views } of shown) {
      const context = { urn, values: values.get(urn.value) ?? [] };
      const result = new Map<string, AspectValue>();
      for (const { name, rules } of views) {
        const aspect = name === urn.entityType.keyAspect ? undefined : own.get(name);
        result.set(name, { value: rules.view(aspect?.metadata, context), systemMetadata: aspect?.systemMetadata ?? null });
      }
      out.set(urn.value, { urn: urn.value, entityType: urn.entityType, aspects: result });
    }
    return out;
  }

  /**
   * Lists entities of one type from the database in URN order. The scroll id is an
   * opaque cursor (the last URN returned); null when there is nothing more.
   */
  async listEntities(_caller: Caller, entityType: EntityTypeInfo, options: { count: number; scrollId?: string; aspects?: readonly string[] }): Promise<{ scrollId: string | null; entities: EntityView[] }> {
    const after = options.scrollId ? decodeScrollId(options.scrollId) : null;
    // Soft-deleted entities are not listed, as searches do not show them (one rule for REST and GraphQL listings).
    const urns = await listLiveEntityUrns(this.deps.db, entityType.name, after, options.count + 1);
    const page = urns.slice(0, options.count);
    const views = await this.readEntities(page.map((u) => parseUrn(u)), options.aspects);
    const entities = page.map((u) => views.get(u)).filter((v): v is EntityView => v !== undefined);
    return { scrollId: urns.length > options.count ? encodeScrollId(page[page.length - 1]!) : null, entities };
  }

  /** Writes (replaces) one aspect. */
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

  /** Applies a JSON patch to what readers currently see of the aspect, then writes it like a set. */
  async patchAspect(caller: Caller, urnValue: string, aspect: string, patch: PatchDocument, options: WriteOptions & { entityType?: EntityTypeInfo } = {}): Promise<AspectResult> {
    const urn = options.entityType ? parseUrnOfType(urnValue, options.entityType) : parseUrn(urnValue);
    const [result] = await this.write(caller, urn, [patchRequest(aspect, patch)], options);
    return result!;
  }

  /** Computes an aspect from its current visible value (GraphQL merge semantics, removals). */
  async updateAspect(caller: Caller, urnValue: string, aspect: string, compute: (current: unknown | undefined) => unknown, options: WriteOptions = {}): Promise<AspectResult> {
    const [result] = await this.write(caller, parseUrn(urnValue), [{ aspect, compute }], options);
    return result!;
  }

  /** Writes several aspects of one entity together: all of them or none. */
  async writeAspects(caller: Caller, urnValue: string, requests: readonly AspectWriteRequest[], options: WriteOptions = {}): Promise<AspectResult[]> {
    return this.write(caller, parseUrn(urnValue), [...requests], options);
  }

  /**
   * Creates or updates several entities of one type. Everything is validated before
   * anything is written, so a bad entry fails the batch without partial writes.
   */
  async batchUpsert(caller: Caller, entityType: EntityTypeInfo, items: readonly BatchItem[], options: BatchOptions = {}): Promise<Array<{ urn: string; results: AspectResult[] }>> {
    if (items.length > LIMITS.batchEntities) {
      throw new ValidationError(`a batch may hold at most ${LIMITS.batchEntities} entities`, 'body');
    }
    const parsed = items.map((item) => ({ urn: parseUrnOfType(item.urn, entityType), item }));
    const seen = new Set<string>();
    for (const { urn, item } of parsed) {
      if (seen.has(urn.value)) throw new ValidationError(`Entity ${urn.value} is listed more than once in the batch`, 'urn');
      seen.add(urn.value);
      for (const name of item.aspects.keys()) handlerFor(urn.entityType, name);
    }
    const entities = parsed.map(({ urn, item }) => ({
      urn,
      requests: [...item.aspects].map(([aspect, input]): AspectWriteRequest => ({
        aspect,
        value: input.value,
        ...(options.createOnly ? { createOnly: true } : {}),
        ...(input.ifVersionMatch !== undefined ? { ifVersionMatch: input.ifVersionMatch } : {}),
        ...(input.systemMetadata ? { systemMetadata: input.systemMetadata } : {}),
      })),
    }));
    const outcomes = await this.writeMany(entities, caller.actor, { createEntityOnly: options.createEntityOnly ?? false });
    await this.afterCommit(outcomes.flatMap((o) => o.changeIds), options);
    return parsed.map(({ urn }, i) => ({ urn: urn.value, results: outcomes[i]!.results }));
  }

  /** Hard-deletes an entity; idempotent. */
  async deleteEntity(_caller: Caller, urnValue: string, options: WriteOptions & { entityType?: EntityTypeInfo } = {}): Promise<void> {
    const urn = options.entityType ? parseUrnOfType(urnValue, options.entityType) : parseUrn(urnValue);
    const changeIds = await inTransaction(this.deps.db, (tx) => deleteEntityAndAspects(tx, urn));
    await this.afterCommit(changeIds, options);
  }

  /** The aspects of other entities that name this entity (a tag in a dataset's globalTags, ...). */
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

  /**
   * Takes this entity out of every aspect that names it, each through the write path
   * as an edit of that aspect; answers what it changed.
   */
  async removeReferences(caller: Caller, urnValue: string, options: WriteOptions = {}): Promise<EntityReference[]> {
    const urn = parseUrn(urnValue);
    const found = await this.references(caller, urnValue);
    const rules = new Map(referenceRulesFor(urn.entityType.name).map((r) => [r.aspect, r]));
    for (const ref of found) {
      const rule = rules.get(ref.aspect)!;
      await this.write(caller, parseUrn(ref.entity), [{ aspect: ref.aspect, compute: (current) => (current === undefined ? NO_CHANGE : rule.remove(current, urn.value)) }], options);
    }
    return found;
  }

  /** Deletes one aspect; idempotent. */
  async deleteAspect(_caller: Caller, urnValue: string, aspect: string, options: WriteOptions & { entityType?: EntityTypeInfo } = {}): Promise<void> {
    const urn = options.entityType ? parseUrnOfType(urnValue, options.entityType) : parseUrn(urnValue);
    const changeIds = await inTransaction(this.deps.db, (tx) => deleteOneAspect(tx, urn, aspect));
    await this.afterCommit(changeIds, options);
  }

  private async write(caller: Caller, urn: Urn, requests: AspectWriteRequest[], options: WriteOptions): Promise<AspectResult[]> {
    const [outcome] = await this.writeMany([{ urn, requests }], caller.actor, {});
    await this.afterCommit(outcome!.changeIds, options);
    return outcome!.results;
  }

  private async writeMany(entities: readonly EntityWrite[], actor: string, options: { createEntityOnly?: boolean }): Promise<WriteOutcome[]> {
    try {
      return await writeEntities(this.deps.db, entities, actor, options);
    } catch (err) {
      if (isConnectionError(err)) throw new UnavailableError('The database is not reachable right now; retry later');
      throw err;
    }
  }

  /** Waits for the index unless asked not to, and notes whether the changes were indexed (SPEC 12). */
  private async afterCommit(changeIds: readonly bigint[], options: WriteOptions): Promise<void> {
    if (changeIds.length === 0) noteIndexStatus('indexed');
    else noteIndexStatus(options.async ? 'pending' : await this.deps.indexWaiter.waitFor(changeIds));
  }
}

/** A JSON patch as a write: applied to what readers see of the aspect, or to an empty one when it is absent. */
export function patchRequest(aspect: string, patch: PatchDocument): AspectWriteRequest {
  return { aspect, compute: (current) => applyPatch(current ?? emptyAspect(aspect), patch) };
}

function emptyAspect(aspect: string): unknown {
  return aspect === 'structuredProperties' ? { properties: [] } : {};
}

export function encodeScrollId(lastUrn: string): string {
  return Buffer.from(lastUrn, 'utf8').toString('base64url');
}

export function decodeScrollId(scrollId: string): string {
  const urn = Buffer.from(scrollId, 'base64url').toString('utf8');
  // What it decodes to is input too (SPEC 12): U+0000 would reach the database.
  if (!urn.startsWith('urn:li:') || textViolation(urn)) {
    throw new ValidationError('scrollId is not a valid cursor; pass the scrollId of the previous page unchanged', 'scrollId');
  }
  return urn;
}
