/**
 * Entities and their aspects: the use cases behind REST's generic entity routes and
 * behind GraphQL's reads. Every write goes through the aspect pipeline in one
 * transaction per entity, then (unless async) waits for the search index.
 */
import { checkAspectSize } from '../domain/aspectSize.js';
import { findEntityType, type EntityTypeInfo } from '../domain/entityTypes.js';
import { NotFoundError, UnavailableError, ValidationError } from '../domain/errors.js';
import { applyPatch, type PatchDocument } from '../domain/jsonPatch.js';
import { LIMITS } from '../domain/limits.js';
import { parentUrnOf, parseUrn, parseUrnOfType, type Urn } from '../domain/urn.js';
import { entityExists, existingEntities, latestAspectsOfMany, listEntityUrns, type StoredAspect } from '../store/aspects.js';
import type { Db } from '../store/database.js';
import { isConnectionError } from '../store/connectionErrors.js';
import { inTransaction } from '../store/transaction.js';
import type { Logger } from '../logger.js';
import type { Caller, WriteOptions } from './caller.js';
import { handlerFor, isKnownAspect } from './aspects/handlers.js';
import {
  deleteEntityAndAspects,
  deleteOneAspect,
  writeEntities,
  writeEntitiesOptimistically,
  NO_CHANGE,
  type EntityWrite,
  type WriteOutcome,
  type AspectResult,
  type AspectWriteRequest,
} from './aspects/pipeline.js';
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
   * Batched read for many entities (search results): three queries for existence and
   * aspects, then one view per entity type and aspect, not per entity. Entities that
   * do not exist are absent from the map.
   */
  async readEntities(urns: readonly Urn[], aspects?: readonly string[]): Promise<Map<string, EntityView>> {
    const out = new Map<string, EntityView>();
    const db = this.deps.db;
    if (aspects) for (const urn of urns) for (const a of aspects) if (!isKnownAspect(urn.entityType, a)) handlerFor(urn.entityType, a);
    // A schema field exists exactly when its dataset does, aspects or not.
    const existing = await this.existing(urns);
    const live = urns.filter((u) => existing.has(u.value));
    const stored = await latestAspectsOfMany(db, live.map((u) => u.value), aspects);
    // Every (entity, aspect) to show, grouped so that each handler views its items at once.
    const groups = new Map<string, { type: EntityTypeInfo; name: string; items: Array<{ urn: string; stored: StoredAspect | undefined }> }>();
    const plan = live.map((urn) => {
      const type = urn.entityType;
      const own = stored.get(urn.value) ?? new Map<string, StoredAspect>();
      const names = (aspects ?? [type.keyAspect, ...own.keys()]).filter((name) => name === type.keyAspect || own.has(name));
      for (const name of names) {
        const key = `${type.name}/${name}`;
        const group = groups.get(key) ?? { type, name, items: [] };
        group.items.push({ urn: urn.value, stored: name === type.keyAspect ? undefined : own.get(name) });
        groups.set(key, group);
      }
      return { urn, names };
    });
    const views = new Map<string, AspectValue>();
    for (const [key, group] of groups) {
      const handler = handlerFor(group.type, group.name);
      const values = await handler.view(db, group.items.map((i) => ({ urn: i.urn, stored: i.stored?.metadata })));
      group.items.forEach((item, i) => views.set(`${key}/${item.urn}`, { value: values[i], systemMetadata: item.stored?.systemMetadata ?? null }));
    }
    for (const { urn, names } of plan) {
      const result = new Map<string, AspectValue>();
      for (const name of names) result.set(name, views.get(`${urn.entityType.name}/${name}/${urn.value}`)!);
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
    const urns = await listEntityUrns(this.deps.db, entityType.name, after, options.count + 1);
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
      compute: () => input.value,
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
    const [result] = await this.write(caller, urn, [{ aspect, compute: (current) => applyPatch(current ?? emptyAspect(aspect), patch) }], options);
    return result!;
  }

  /** Computes an aspect from its current visible value (GraphQL merge semantics, removals). */
  async updateAspect(caller: Caller, urnValue: string, aspect: string, compute: (current: unknown | undefined) => unknown, options: WriteOptions = {}): Promise<AspectResult> {
    const [result] = await this.write(caller, parseUrn(urnValue), [{ aspect, compute }], options);
    return result!;
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
        compute: () => input.value,
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

  /**
   * Optimistically first (two statements, no transaction); in a locking transaction
   * when the write needs one or other writers keep getting in between.
   */
  private async writeMany(given: readonly EntityWrite[], actor: string, options: { createEntityOnly?: boolean }): Promise<WriteOutcome[]> {
    const entities = given.map((e) => ({ ...e, requests: e.requests.map(withSizeBound) }));
    try {
      const done = await writeEntitiesOptimistically(this.deps.db, entities, actor, options);
      if (done) return done;
    } catch (err) {
      if (isConnectionError(err)) throw new UnavailableError('The database is not reachable right now; retry later');
      throw err;
    }
    return inTransaction(this.deps.db, (tx) => writeEntities(tx, entities, actor, options));
  }

  private async afterCommit(changeIds: readonly bigint[], options: WriteOptions): Promise<void> {
    if (!options.async && changeIds.length > 0) await this.deps.indexWaiter.waitFor(changeIds);
  }
}

/** Every new aspect value, whatever computed it (set, patch, merge), is held to the aspect size limit. */
function withSizeBound(request: AspectWriteRequest): AspectWriteRequest {
  return {
    ...request,
    compute: (current) => {
      const next = request.compute(current);
      if (next !== NO_CHANGE) checkAspectSize(request.aspect, next);
      return next;
    },
  };
}

function emptyAspect(aspect: string): unknown {
  return aspect === 'structuredProperties' ? { properties: [] } : {};
}

export function encodeScrollId(lastUrn: string): string {
  return Buffer.from(lastUrn, 'utf8').toString('base64url');
}

export function decodeScrollId(scrollId: string): string {
  const urn = Buffer.from(scrollId, 'base64url').toString('utf8');
  if (!urn.startsWith('urn:li:')) throw new ValidationError('scrollId is not a valid cursor', 'scrollId');
  return urn;
}
