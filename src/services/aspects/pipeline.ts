/**
 * The one write path for aspects, behind every service that writes them (entities,
 * properties, values, metadata test results, background jobs), in three steps: the
 * aspects' rules declare the state a write relies on and one query loads it
 * (store/writeLoad.ts); pure decisions (domain/writes/) compute each new value from
 * what readers see, validate it and say what to store; one statement applies them
 * (store/writeApply.ts). That statement is guarded and runs on its own; when other
 * writers keep getting in between, the same steps run in a transaction holding the
 * entities' locks. Hard deletes (an entity with its aspects, or one aspect) are decided
 * the same way, in a transaction holding the locks. A write that changed the property
 * registry is counted (LocalRegistryChanges) once it has committed.
 */
import { ForbiddenError, IncompatibleChangeError, UnavailableError } from '../../domain/errors.js';
import { breakingChangeImpact } from '../../domain/valueImpact.js';
import { propertiesWhoseValuesDrop, valueDropRefusal } from '../../domain/writes/propertyDefinitionRules.js';
import { propertyImpact } from '../../store/propertyImpact.js';
import type { Scope } from '../caller.js';
import { parentUrnOf, type Urn } from '../../domain/urn.js';
import { decideAspectDelete, decideEntityDelete, type DeleteDecision } from '../../domain/writes/entityDelete.js';
import {
  checkPreconditions,
  decideEntityWrite,
  NO_CHANGE,
  requireParent,
  resolveRequests,
  type AspectWriteRequest,
  type ResolvedRequest,
  type RuledRequest,
} from '../../domain/writes/entityWrite.js';
import { changesSomething, type AspectResult, type EntityWriteDecision } from '../../domain/writes/writeDecision.js';
import type { EntityState } from '../../domain/writes/writeState.js';
import type { Tx } from '../../store/database.js';
import { applyDeletes, lockForDelete } from '../../store/deletes.js';
import { inTransaction } from '../../store/transaction.js';
import { applyWrites, WriteConflict } from '../../store/writeApply.js';
import { loadPropertyRecords, loadWriteState, queryableOf, type LoadRequest, type WriteState, type WriteStore, type WriteTarget } from '../../store/writeLoad.js';
import { TurnTaker } from '../../time.js';
import type { LocalRegistryChanges } from '../localRegistryChanges.js';
import { handlerFor } from './handlers.js';

export { NO_CHANGE, type AspectWriteRequest, type AspectResult, type WriteStore };

/** What the write path runs on, and the count of registry changes it adds its committed ones to. */
export interface WritePath extends WriteStore {
  readonly registryChanges: LocalRegistryChanges;
}

export interface WriteOutcome {
  readonly results: AspectResult[];
  /** Change log ids written; the caller may wait for the index to pass them. */
  readonly changeIds: bigint[];
  /** Properties whose stored values the write drops (a new version of a property that has some). */
  readonly valuesDropped: readonly string[];
  /** What the decisions left out of the write (values of properties that do not exist, when dropped). */
  readonly warnings?: readonly string[];
}

export interface EntityWriteOptions {
  /** Refuse when the entity already exists (REST createEntityIfNotExists=true). */
  readonly createEntityOnly?: boolean;
  /**
   * Whether the writer may drop stored values (a new version of a property that has
   * some); when not, such a write is refused naming what it would drop. The scope this
   * needs is services/policies.ts's.
   */
  readonly valueDrops: 'allowed' | { readonly refusedUnless: Scope };
  /** The interface the write came through, stored with each aspect version beside the actor. */
  readonly via?: string | undefined;
  /** Earlier versions kept per aspect (HISTORY_VERSIONS_KEPT); absent or 0: all of them. */
  readonly historyVersionsKept?: number | undefined;
  /** Decide and check everything, then write nothing (REST dryRun=true; a batch authorized before its first write). */
  readonly dryRun?: boolean;
  /**
   * Leave out entities that do not exist (deleted since the caller listed them) instead
   * of refusing the batch; their outcomes are empty. For writes that describe entities
   * and never create them (metadata-test results).
   */
  readonly skipMissing?: boolean;
}

export interface EntityWrite {
  readonly urn: Urn;
  /** At most one request per aspect. */
  readonly requests: readonly AspectWriteRequest[];
}

/** Guarded statements tried before taking locks; then locked transactions, each retried when a property it relied on changed. */
const OPTIMISTIC_ATTEMPTS = 2;
const LOCKED_ATTEMPTS = 4;

/**
 * Writes aspects of many entities (distinct URNs). Any rule broken anywhere throws
 * before anything is written.
 */
export async function writeEntities(path: WritePath, entities: readonly EntityWrite[], actor: string, options: EntityWriteOptions): Promise<WriteOutcome[]> {
  const ruled: RuledRequest[][] = [];
  const turns = new TurnTaker();
  for (const e of entities) {
    ruled.push(e.requests.map((request): RuledRequest => ({ request, rules: handlerFor(e.urn.entityType, request.aspect) })));
    await turns.turn();
  }
  for (let attempt = 0; attempt < OPTIMISTIC_ATTEMPTS; attempt++) {
    const done = await attemptWrites({ kind: 'optimistic', db: path.db }, entities, ruled, actor, options);
    if (done) return committed(path, done);
  }
  for (let attempt = 1; ; attempt++) {
    try {
      return committed(path, await inTransaction(path.db, async (tx) => (await attemptWrites({ kind: 'locked', tx }, entities, ruled, actor, options))!));
    } catch (err) {
      if (!(err instanceof WriteConflict)) throw err;
      if (attempt >= LOCKED_ATTEMPTS) throw new UnavailableError('Concurrent changes to the properties this write uses kept getting in its way; retry');
    }
  }
}

/** A write that has committed: counted when it changed the registry, before anyone is told of it. */
function committed<T>(path: WritePath, done: { readonly outcome: T; readonly registryChanged: boolean }): T {
  if (done.registryChanged) path.registryChanges.noteCommitted();
  return done.outcome;
}

/** Load, decide, apply. Null when the optimistic statement was refused. */
async function attemptWrites(
  target: WriteTarget,
  all: readonly EntityWrite[],
  allRuled: readonly (readonly RuledRequest[])[],
  actor: string,
  options: EntityWriteOptions,
): Promise<{ outcome: WriteOutcome[]; registryChanged: boolean } | null> {
  if (all.length === 0) return { outcome: [], registryChanged: false };
  // A large batch's steps take turns with the rest of the server (src/time.ts).
  const turns = new TurnTaker();
  const request = loadRequestOf(all, allRuled);
  await turns.turn();
  let state = await loadWriteState(target, request);
  const entityOf = (e: EntityWrite): EntityState => state.entities.get(e.urn.value)!;
  if (options.skipMissing) {
    const present = all.flatMap((e, i) => {
      const found = entityOf(e);
      return found.existence !== 'missing' && (!found.parent || found.parent.exists) ? [i] : [];
    });
    if (present.length < all.length) {
      const done = await attemptWrites(target, present.map((i) => all[i]!), present.map((i) => allRuled[i]!), actor, options);
      if (!done) return null;
      const byUrn = new Map(present.map((i, k) => [all[i]!.urn.value, done.outcome[k]!]));
      return { outcome: all.map((e) => byUrn.get(e.urn.value) ?? { results: [], changeIds: [], valuesDropped: [] }), registryChanged: done.registryChanged };
    }
  }
  const entities = all;
  const ruled = allRuled;
  for (const e of entities) requireParent(entityOf(e));
  entities.forEach((e, i) => checkPreconditions(e.urn, entityOf(e), ruled[i]!, options));
  const resolved: ResolvedRequest[][] = [];
  for (const [i, e] of entities.entries()) {
    resolved.push(resolveRequests(e.urn, entityOf(e), ruled[i]!, (aspect) => handlerFor(e.urn.entityType, aspect)));
    await turns.turn();
  }
  const more = propertiesStillNeeded(entities, resolved, request, state);
  if (more.length > 0) state = { ...state, properties: new Map([...state.properties, ...(await loadPropertyRecords(target, more))]) };
  const now = Date.now();
  const decisions: EntityWriteDecision[] = [];
  for (const [i, e] of entities.entries()) {
    try {
      decisions.push(decideEntityWrite(e.urn, entityOf(e), state, resolved[i]!, { actor, now, via: options.via }));
    } catch (err) {
      throw await withImpact(target, e.urn, err);
    }
    await turns.turn();
  }
  if (options.valueDrops !== 'allowed') await refuseValueDrops(target, decisions, state, options.valueDrops.refusedUnless);
  const dropped = (d: EntityWriteDecision) => propertiesWhoseValuesDrop(d, (p) => state.properties.has(p));
  if (options.dryRun) return { outcome: decisions.map((d) => ({ results: [...d.results], changeIds: [], valuesDropped: dropped(d) })), registryChanged: false };
  const ids = await applyWrites(target, decisions, state, { versionsKept: options.historyVersionsKept ?? 0 });
  if (!ids) return null;
  return {
    outcome: decisions.map((d) => ({ results: [...d.results], changeIds: ids.has(d.urn) ? [ids.get(d.urn)!] : [], valuesDropped: dropped(d), ...(d.warnings ? { warnings: d.warnings } : {}) })),
    registryChanged: decisions.some((d) => changesSomething(d) && d.registry.length > 0),
  };
}

/**
 * A breaking definition change refused for want of a new version says what that
 * version would drop (docs/contract.md §13): the values the property holds now.
 */
async function withImpact(target: WriteTarget, urn: Urn, err: unknown): Promise<unknown> {
  if (!(err instanceof IncompatibleChangeError)) return err;
  const impact = await propertyImpact(queryableOf(target), urn.value);
  return new IncompatibleChangeError(`${err.message} ${breakingChangeImpact(impact)}`);
}

/** Throws a ForbiddenError naming what the first write that drops stored values would drop; one that finds none stored goes on. */
async function refuseValueDrops(target: WriteTarget, decisions: readonly EntityWriteDecision[], state: WriteState, needs: Scope): Promise<void> {
  for (const decision of decisions) {
    for (const urn of propertiesWhoseValuesDrop(decision, (p) => state.properties.has(p))) {
      const impact = await propertyImpact(queryableOf(target), urn);
      if (impact.values > 0) throw new ForbiddenError(valueDropRefusal(urn, impact, needs));
    }
  }
}

/** What the aspects' rules declare they rely on, for the whole batch. */
function loadRequestOf(entities: readonly EntityWrite[], ruled: readonly (readonly RuledRequest[])[]): LoadRequest {
  const aspects = new Set<string>();
  const properties = new Set<string>();
  const searchFields = new Set<string>();
  const toLoad = entities.map((e, i) => {
    let values = false;
    for (const { request, rules } of ruled[i]!) {
      // A computed value's reads are loaded as a read of them would be, with what their rules need to show them.
      const reads = 'compute' in request ? (request.reads ?? []) : [];
      for (const needs of [rules.needs(e.urn, 'value' in request ? request.value : undefined), ...reads.map((a) => handlerFor(e.urn.entityType, a).needs(e.urn, undefined))]) {
        for (const a of needs.aspects) aspects.add(a);
        for (const p of needs.properties) properties.add(p);
        for (const f of needs.searchFields) searchFields.add(f);
        values ||= needs.values;
      }
      aspects.add(request.aspect);
      for (const a of reads) aspects.add(a);
    }
    const parent = parentUrnOf(e.urn) ?? null;
    // A schema field exists exactly when its dataset does.
    return { urn: e.urn.value, entityType: e.urn.entityType.name, create: parent !== null || ruled[i]!.some((r) => r.rules.createsEntity), values, parent };
  });
  return { entities: toLoad, aspects: [...aspects], properties: [...properties], searchFields: [...searchFields] };
}

/** Properties named by values computed from the current view, which the load could not know of. */
function propertiesStillNeeded(entities: readonly EntityWrite[], resolved: readonly ResolvedRequest[][], loaded: LoadRequest, state: WriteState): string[] {
  const asked = new Set([...loaded.properties, ...state.properties.keys()]);
  const more = new Set<string>();
  entities.forEach((e, i) => {
    for (const r of resolved[i]!) {
      if (r.next === NO_CHANGE || 'value' in r.request) continue;
      for (const p of r.rules.needs(e.urn, r.next).properties) if (!asked.has(p)) more.add(p);
    }
  });
  return [...more];
}

/** Hard-deletes an entity with all its aspects (a dataset with its schema fields), in a transaction of its own; a missing entity is not an error. Returns the change-log ids. */
export async function deleteEntityAndAspects(path: WritePath, urn: Urn): Promise<bigint[]> {
  return committed(path, await inTransaction(path.db, (tx) => deleteEntityIn(tx, urn)));
}

/** Deletes one aspect (all versions), in a transaction of its own; deleting the key aspect deletes the entity. */
export async function deleteOneAspect(path: WritePath, urn: Urn, aspect: string): Promise<bigint[]> {
  handlerFor(urn.entityType, aspect);
  if (aspect === urn.entityType.keyAspect) return deleteEntityAndAspects(path, urn);
  return committed(
    path,
    await inTransaction(path.db, async (tx) => {
      const [entity] = await lockForDelete(tx, { urn: urn.value, entityType: urn.entityType.name }, {});
      return entity ? appliedDeletes(tx, decideAspectDelete(entity, aspect)) : { outcome: [], registryChanged: false };
    }),
  );
}

async function deleteEntityIn(tx: Tx, urn: Urn): Promise<{ outcome: bigint[]; registryChanged: boolean }> {
  const found = await lockForDelete(tx, { urn: urn.value, entityType: urn.entityType.name }, { childType: urn.entityType.childType });
  return appliedDeletes(tx, decideEntityDelete(found));
}

async function appliedDeletes(tx: Tx, decision: DeleteDecision): Promise<{ outcome: bigint[]; registryChanged: boolean }> {
  return { outcome: await applyDeletes(tx, decision), registryChanged: decision.registry.length > 0 };
}
