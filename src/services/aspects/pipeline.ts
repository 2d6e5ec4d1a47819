/**
 * The one write path for aspects, used by REST, GraphQL, the CLI's routes, metadata
 * test results and background jobs alike. Inside the caller's transaction it locks
 * the entity, reads the current aspects, lets the caller compute each new value from
 * what readers currently see, validates it through the aspect's handler, writes it
 * (history + change log), and returns what readers will see afterwards.
 */
import { AlreadyExistsError, NotFoundError, PreconditionError } from '../../domain/errors.js';
import { jsonEqual } from '../../domain/json.js';
import { parentUrnOf, parseUrn, type Urn } from '../../domain/urn.js';
import {
  aspectNames,
  deleteAspect,
  deleteEntity,
  entitiesExistLocked,
  lockEntity,
  schemaFieldsOf,
  type StoredAspect,
} from '../../store/aspects.js';
import type { Db, Tx } from '../../store/database.js';
import { loadForWrite, lockEntitiesForWrite, writeAspectsBulk, type AspectWrite, type EntityToLock, type WriteBatch, type WriteState } from '../../store/entityWrites.js';
import { findProperties, type RegisteredProperty } from '../../store/propertyRegistry.js';
import type { ValueRow } from '../../store/propertyValues.js';
import type { AspectHandler, Queryable } from './handler.js';
import { handlerFor } from './handlers.js';

export const NO_CHANGE: unique symbol = Symbol('no-change');

export interface AspectWriteRequest {
  readonly aspect: string;
  /** The new value, computed from the current visible one (undefined when absent). */
  readonly compute: (current: unknown | undefined) => unknown;
  /** Refuse when the aspect already exists (REST createIfNotExists=true). */
  readonly createOnly?: boolean;
  /** The aspect's current revision must be this (v3 If-Version-Match); "-1" means absent. */
  readonly ifVersionMatch?: string;
  /** Caller-supplied system metadata to keep beside the aspect (runId, properties, ...). */
  readonly systemMetadata?: Record<string, unknown>;
}

export interface AspectResult {
  readonly aspect: string;
  readonly value: unknown;
  readonly systemMetadata: Record<string, unknown> | null;
}

export interface WriteOutcome {
  readonly results: AspectResult[];
  /** Change log ids written; the caller may wait for the index to pass them. */
  readonly changeIds: bigint[];
}

export interface EntityWriteOptions {
  /** Refuse when the entity already exists (REST createEntityIfNotExists=true). */
  readonly createEntityOnly?: boolean;
}

function revisionOf(a: StoredAspect | undefined): number {
  const v = a?.systemMetadata?.version;
  return a ? Number(v ?? 1) || 1 : 0;
}

export interface EntityWrite {
  readonly urn: Urn;
  /** At most one request per aspect. */
  readonly requests: readonly AspectWriteRequest[];
}

/** Writes aspects of one entity. */
export async function writeAspects(
  tx: Tx,
  urn: Urn,
  requests: readonly AspectWriteRequest[],
  actor: string,
  options: EntityWriteOptions = {},
): Promise<WriteOutcome> {
  return (await writeEntities(tx, [{ urn, requests }], actor, options))[0]!;
}

interface Planned {
  readonly entity: EntityWrite;
  readonly handlers: AspectHandler[];
  readonly state: WriteState;
  readonly ctx: { valueStates: WriteState['valueStates']; properties: Map<string, RegisteredProperty> };
  /** Per request: the current view and the computed next value. */
  readonly steps: Array<{ prev: StoredAspect | undefined; currentView: unknown; next: unknown }>;
}

/** Everything a batch will write, computed and validated, not yet written. */
interface WritePlan {
  readonly batch: WriteBatch;
  readonly afterWrites: Array<(t: Tx) => Promise<void>>;
  readonly outcomes: Array<{ urn: string; results: AspectResult[]; changed: boolean }>;
}

function handlersFor(entities: readonly EntityWrite[]): AspectHandler[][] {
  return entities.map((e) => e.requests.map((r) => handlerFor(e.urn.entityType, r.aspect)));
}

function entitiesToLoad(entities: readonly EntityWrite[], handlersOf: AspectHandler[][]): EntityToLock[] {
  return entities.map((e, i) => ({
    urn: e.urn.value,
    entityType: e.urn.entityType.name,
    // A schema field exists exactly when its dataset does.
    create: parentUrnOf(e.urn) !== undefined || handlersOf[i]!.some((h) => h.createsEntity),
    withValues: handlersOf[i]!.some((h) => h.needsValueStates),
  }));
}

function parentsOf(entities: readonly EntityWrite[]): string[] {
  return [...new Set(entities.map((e) => parentUrnOf(e.urn)).filter((p): p is string => p !== undefined))];
}

function requireParents(entities: readonly EntityWrite[], live: ReadonlySet<string>): void {
  for (const e of entities) {
    const parent = parentUrnOf(e.urn);
    if (parent !== undefined && !live.has(parent)) throw new NotFoundError(`Entity ${parent} does not exist`);
  }
}

/**
 * Writes aspects of many entities in one transaction: all locks, loads and writes are
 * set-based (a handful of statements for the whole batch). Entities must be distinct.
 * Any rule broken anywhere throws before anything is written.
 */
export async function writeEntities(tx: Tx, entities: readonly EntityWrite[], actor: string, options: EntityWriteOptions = {}): Promise<WriteOutcome[]> {
  const handlersOf = handlersFor(entities);
  const parents = parentsOf(entities);
  requireParents(entities, parents.length > 0 ? await entitiesExistLocked(tx, parents) : new Set());
  const states = await lockEntitiesForWrite(tx, entitiesToLoad(entities, handlersOf), aspectNamesOf(entities));
  const plan = await planWrites(tx, entities, handlersOf, states, actor, options);
  const ids = hasWrites(plan) ? await writeAspectsBulk(tx, plan.batch) : new Map<string, bigint>();
  for (const after of plan.afterWrites) await after(tx);
  return outcomesOf(plan, ids);
}

/**
 * The same writes without a transaction: read without locks, plan, then one guarded
 * statement that applies only if no entity changed meanwhile. Returns null when the
 * batch needs a transaction (a handler has follow-up work) or when other writers kept
 * getting in between; the caller then uses writeEntities.
 */
export async function writeEntitiesOptimistically(db: Db, entities: readonly EntityWrite[], actor: string, options: EntityWriteOptions = {}, attempts = 2): Promise<WriteOutcome[] | null> {
  const handlersOf = handlersFor(entities);
  const parents = parentsOf(entities);
  const toLoad = entitiesToLoad(entities, handlersOf);
  for (let attempt = 0; attempt < attempts; attempt++) {
    const { states, existing } = await loadForWrite(db, toLoad, aspectNamesOf(entities), parents);
    requireParents(entities, existing);
    const plan = await planWrites(db, entities, handlersOf, states, actor, options);
    if (plan.afterWrites.length > 0) return null;
    if (!hasWrites(plan)) return outcomesOf(plan, new Map());
    const guard = { entities: entities.map((e) => ({ urn: e.urn.value, entityType: e.urn.entityType.name, version: states.get(e.urn.value)!.version })), parents };
    const ids = await writeAspectsBulk(db, plan.batch, guard);
    if (ids) return outcomesOf(plan, ids);
  }
  return null;
}

function aspectNamesOf(entities: readonly EntityWrite[]): string[] {
  return [...new Set(entities.flatMap((e) => e.requests.map((r) => r.aspect)))];
}

function hasWrites(plan: WritePlan): boolean {
  return plan.batch.writes.length + (plan.batch.logOnly?.length ?? 0) > 0;
}

function outcomesOf(plan: WritePlan, ids: ReadonlyMap<string, bigint>): WriteOutcome[] {
  return plan.outcomes.map((o) => ({ results: o.results, changeIds: o.changed ? [ids.get(o.urn)!] : [] }));
}

/** Checks preconditions, computes every new value from what readers see, validates it. */
async function planWrites(
  q: Queryable,
  entities: readonly EntityWrite[],
  handlersOf: AspectHandler[][],
  states: ReadonlyMap<string, WriteState>,
  actor: string,
  options: EntityWriteOptions,
): Promise<WritePlan> {
  const planned: Planned[] = entities.map((entity, i) => {
    const state = states.get(entity.urn.value)!;
    if (state.lock === 'missing') throw new NotFoundError(`Entity ${entity.urn.value} does not exist`);
    if (state.lock === 'existed' && options.createEntityOnly) throw new AlreadyExistsError('Cannot perform CREATE since the entity already exists.');
    const ctx = { valueStates: state.valueStates, properties: new Map<string, RegisteredProperty>() };
    const handlers = handlersOf[i]!;
    const steps = entity.requests.map((request, k) => {
      const prev = state.aspects.get(request.aspect);
      if (request.createOnly && prev) throw new AlreadyExistsError();
      if (request.ifVersionMatch !== undefined) {
        const current = prev ? String(revisionOf(prev)) : '-1';
        if (current !== request.ifVersionMatch) {
          throw new PreconditionError(`Expected version ${request.ifVersionMatch} of ${request.aspect}, actual version ${current}`);
        }
      }
      const handler = handlers[k]!;
      const currentView = !prev ? undefined : handler.viewForWrite ? handler.viewForWrite(prev.metadata, ctx) : VIEW_LATER;
      return { prev, currentView, next: undefined as unknown };
    });
    return { entity, handlers, state, ctx, steps };
  });
  for (const p of planned) {
    for (const [k, step] of p.steps.entries()) {
      if (step.currentView === VIEW_LATER) step.currentView = (await p.handlers[k]!.view(q, [{ urn: p.entity.urn.value, stored: step.prev!.metadata }]))[0];
      const request = p.entity.requests[k]!;
      step.next = request.compute(step.currentView);
    }
  }

  // The structured properties the new values name, looked up once for the batch.
  // (Those an entity already holds came with its value rows.)
  const named = new Set<string>();
  for (const p of planned) {
    const held = new Set(p.state.valueStates.filter((v) => v.definition !== null).map((v) => v.propertyUrn));
    p.steps.forEach((step, k) => {
      if (step.next === NO_CHANGE) return;
      for (const u of p.handlers[k]!.propertiesNamedBy?.(step.next) ?? []) if (!held.has(u)) named.add(u);
    });
  }
  const properties = named.size > 0 ? await findProperties(q, [...named]) : new Map<string, RegisteredProperty>();
  for (const p of planned) for (const [u, r] of properties) p.ctx.properties.set(u, r);

  const writes: AspectWrite[] = [];
  const valueRows = new Map<string, { entityType: string; rows: readonly ValueRow[] }>();
  const logOnly: Array<{ urn: string; entityType: string; aspect: string }> = [];
  const afterWrites: Array<(t: Tx) => Promise<void>> = [];
  const outcomes: WritePlan['outcomes'] = [];
  for (const p of planned) {
    const { urn, requests } = p.entity;
    let changed = p.state.lock === 'created';
    if (changed) logOnly.push({ urn: urn.value, entityType: urn.entityType.name, aspect: urn.entityType.keyAspect });
    const results: AspectResult[] = [];
    for (const [k, request] of requests.entries()) {
      const { prev, currentView, next } = p.steps[k]!;
      if (next === NO_CHANGE) {
        results.push({ aspect: request.aspect, value: currentView, systemMetadata: prev?.systemMetadata ?? null });
        continue;
      }
      const prepared = await p.handlers[k]!.prepare(q, urn, next, prev?.metadata, p.ctx);
      const visible = prepared.visible ?? prepared.stored;
      if (prepared.skipWrite || (prev && !prepared.forceWrite && jsonEqual(prev.metadata, prepared.stored))) {
        results.push({ aspect: request.aspect, value: visible, systemMetadata: prev?.systemMetadata ?? null });
        continue;
      }
      const systemMetadata: Record<string, unknown> = {
        ...request.systemMetadata,
        lastObserved: Date.now(),
        runId: request.systemMetadata?.runId ?? 'no-run-id-provided',
        version: String(revisionOf(prev) + 1),
      };
      writes.push({ urn: urn.value, entityType: urn.entityType.name, aspect: request.aspect, metadata: prepared.stored, systemMetadata, createdBy: actor });
      if (prepared.valueRows) valueRows.set(urn.value, { entityType: urn.entityType.name, rows: prepared.valueRows });
      if (prepared.afterWrite) afterWrites.push(prepared.afterWrite);
      changed = true;
      results.push({ aspect: request.aspect, value: visible, systemMetadata });
    }
    outcomes.push({ urn: urn.value, results, changed });
  }
  return { batch: { writes, valueRows, logOnly }, afterWrites, outcomes };
}

/** Marks a current view that only the handler's (asynchronous) view can produce. */
const VIEW_LATER: unique symbol = Symbol('view-later');

/** Hard-deletes an entity with all its aspects; a missing entity is not an error. */
export async function deleteEntityAndAspects(tx: Tx, urn: Urn): Promise<bigint[]> {
  const type = urn.entityType;
  if ((await lockEntity(tx, urn.value, type.name, false)) === 'missing') return [];
  const changeIds: bigint[] = [];
  if (type.name === 'dataset') {
    // A dataset's schema fields go with it.
    for (const field of await schemaFieldsOf(tx, urn.value)) changeIds.push(...(await deleteEntityAndAspects(tx, parseUrn(field))));
  }
  const names = new Set(await aspectNames(tx, urn.value));
  if (type.aspects.includes('structuredProperties')) names.add('structuredProperties');
  for (const name of names) {
    if (type.aspects.includes(name)) await handlerFor(type, name).onDelete?.(tx, urn);
  }
  const id = await deleteEntity(tx, urn.value, type.name);
  if (id !== undefined) changeIds.push(id);
  return changeIds;
}

/** Deletes one aspect (all versions); deleting the key aspect deletes the entity. */
export async function deleteOneAspect(tx: Tx, urn: Urn, aspect: string): Promise<bigint[]> {
  const type = urn.entityType;
  const handler = handlerFor(type, aspect);
  if (aspect === type.keyAspect) return deleteEntityAndAspects(tx, urn);
  if ((await lockEntity(tx, urn.value, type.name, false)) === 'missing') return [];
  const id = await deleteAspect(tx, urn.value, type.name, aspect);
  if (id === undefined) return [];
  await handler.onDelete?.(tx, urn);
  return [id];
}
