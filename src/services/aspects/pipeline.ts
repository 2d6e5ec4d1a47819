/**
 * The write path behind the one entry point (services/writes/writeService.ts), in three
 * steps: the aspects' rules declare the state a write relies on and one query loads it
 * (store/writeLoad.ts); pure decisions (domain/writes/) compute each new value from what
 * readers see, validate it and say what to store; one statement applies them
 * (store/writeApply.ts). Each entity is decided on its own: a refused entity either
 * refuses the whole write (atomic, nothing written) or only itself.
 *
 * The statement is guarded and runs on its own; when other writers keep getting in
 * between, or when a decision relies on values other entities hold (a definition judged
 * against them), the same steps run in a transaction holding the entities' locks. Hard
 * deletes (an entity with its aspects, or one aspect) are decided the same way, in a
 * transaction holding the locks. A write that changed the property registry is counted
 * (LocalRegistryChanges) once it has committed.
 */
import { ForbiddenError, IncompatibleChangeError, ServiceError, UnavailableError } from '../../domain/errors.js';
import { breakingChangeImpact } from '../../domain/valueImpact.js';
import { dropsValues, type MigrationEffect } from '../../domain/valueMigration.js';
import { propertiesWhoseValuesDrop, valueDropRefusal } from '../../domain/writes/valueDrop.js';
import { propertyImpact } from '../../store/propertyImpact.js';
import type { UrnNamespace } from '../../domain/typeUrns.js';
import { parentUrnOf, type Urn } from '../../domain/urn.js';
import { deletionOf } from '../../domain/aspects/index.js';
import { decideAspectDelete, decideEntityDelete, type DeleteDecision } from '../../domain/writes/entityDelete.js';
import {
  checkPreconditions,
  decideEntityWrite,
  holderQuestions,
  NO_CHANGE,
  requireParent,
  resolveRequests,
  type AspectWriteRequest,
  type ResolvedRequest,
  type RuledRequest,
} from '../../domain/writes/entityWrite.js';
import type { HolderAnswer } from '../../domain/writes/aspectRules.js';
import { changesSomething, type AspectResult, type EntityWriteDecision } from '../../domain/writes/writeDecision.js';
import type { EntityState } from '../../domain/writes/writeState.js';
import type { Tx } from '../../store/database.js';
import { applyDeletes, lockForDelete } from '../../store/deletes.js';
import { countHolders } from '../../store/propertyHolders.js';
import { inTransaction } from '../../store/transaction.js';
import { applyWrites, WriteConflict } from '../../store/writeApply.js';
import { discardCreated, loadPropertyRecords, loadWriteState, queryableOf, type LoadRequest, type WriteState, type WriteStore, type WriteTarget } from '../../store/writeLoad.js';
import { loopTurn } from '../../platform/turns.js';
import type { LocalRegistryChanges } from '../localRegistryChanges.js';
import { handlerFor } from './handlers.js';
import type { GroupCommit } from './groupCommit.js';

export { NO_CHANGE, type AspectWriteRequest, type AspectResult, type WriteStore };

/** What the write path runs on, the count of registry changes it adds its committed ones to, and its group commit (absent: each write alone). */
export interface WritePath extends WriteStore {
  readonly registryChanges: LocalRegistryChanges;
  readonly groupCommit?: GroupCommit<Unit, EntityResult[]>;
}

export type { EntityResult, EntityWrite, EntityWriteOptions } from './entityWriteShapes.js';
import type { EntityResult, EntityWrite, EntityWriteOptions } from './entityWriteShapes.js';

/** Guarded statements tried before taking locks; then locked transactions, each retried when a property it relied on changed. */
const OPTIMISTIC_ATTEMPTS = 2;
const LOCKED_ATTEMPTS = 4;

/** One caller's write: its entities (distinct URNs) with their rules, its author and options. */
interface Unit {
  readonly entities: readonly EntityWrite[];
  readonly ruled: readonly (readonly RuledRequest[])[];
  readonly actor: string;
  readonly options: EntityWriteOptions;
}

function unitOf(entities: readonly EntityWrite[], actor: string, options: EntityWriteOptions): Unit {
  return { entities, ruled: entities.map((e) => e.requests.map((request): RuledRequest => ({ request, rules: handlerFor(e.urn.entityType, request.aspect) }))), actor, options };
}

/**
 * Writes aspects of many entities (distinct URNs); one result per entity, in order.
 * Writes decided on the guarded statement go through the process's group commit when
 * the path has one (groupCommit.ts): those arriving while a statement is in flight share
 * the next one, and its commit.
 */
export async function writeEntities(path: WritePath, entities: readonly EntityWrite[], actor: string, options: EntityWriteOptions): Promise<EntityResult[]> {
  const ruled: RuledRequest[][] = [];
  for (const e of entities) {
    ruled.push(e.requests.map((request): RuledRequest => ({ request, rules: handlerFor(e.urn.entityType, request.aspect) })));
    await loopTurn();
  }
  const unit: Unit = { entities, ruled, actor, options };
  const underLock = ruled.some((r) => r.some((x) => x.rules.decidedUnderLock));
  if (!underLock && !options.dryRun && path.groupCommit) return path.groupCommit.write(unit, (units) => writeTogether(path, units));
  return writeAlone(path, unit, underLock);
}

/** One unit: guarded statements first (unless it must be decided under a lock), then locked transactions. */
async function writeAlone(path: WritePath, unit: Unit, underLock: boolean): Promise<EntityResult[]> {
  for (let attempt = 0; !underLock && attempt < OPTIMISTIC_ATTEMPTS; attempt++) {
    const done = await attemptUnits({ kind: 'optimistic', db: path.db }, [unit]);
    if (done) return committed(path, { results: done.results[0]!, registryChanged: done.registryChanged });
  }
  for (let attempt = 1; ; attempt++) {
    try {
      return committed(
        path,
        await inTransaction(path.db, async (tx) => {
          const done = (await attemptUnits({ kind: 'locked', tx }, [unit]))!;
          return { results: done.results[0]!, registryChanged: done.registryChanged };
        }),
      );
    } catch (err) {
      if (err instanceof RolledBack) return err.results;
      if (!(err instanceof WriteConflict)) throw err;
      if (attempt >= LOCKED_ATTEMPTS) throw new UnavailableError('Concurrent changes to the properties this write uses kept getting in its way; retry');
    }
  }
}

/**
 * Several units (no entity in two of them) in one guarded statement; when that statement
 * is refused (something one of them relied on moved), each unit goes on alone, as it
 * would have without company.
 */
async function writeTogether(path: WritePath, units: readonly Unit[]): Promise<EntityResult[][]> {
  if (units.length === 1) return [await writeAlone(path, units[0]!, false)];
  const done = await attemptUnits({ kind: 'optimistic', db: path.db }, units);
  if (done) return committed(path, done);
  return Promise.all(units.map((u) => writeAlone(path, u, false)));
}

/**
 * Thrown out of a locked transaction that must leave nothing behind (a dry run, or an
 * all-or-nothing write with a refused entity: the load may have created entities), so
 * that it rolls back; it carries the results the caller is answered.
 */
export class RolledBack extends Error {
  constructor(readonly results: EntityResult[]) {
    super('the write decided to write nothing');
  }
}

/**
 * The same, inside a transaction the caller holds (a plan that deletes as well as writes
 * runs whole in one): the locked steps, once; a conflict is the caller's to retry.
 */
export async function writeEntitiesIn(tx: Tx, entities: readonly EntityWrite[], actor: string, options: EntityWriteOptions): Promise<{ results: EntityResult[]; registryChanged: boolean }> {
  const done = (await attemptUnits({ kind: 'locked', tx }, [unitOf(entities, actor, options)]))!;
  return { results: done.results[0]!, registryChanged: done.registryChanged };
}

/** A write that has committed: counted when it changed the registry, before anyone is told of it. */
export function committed<T>(path: WritePath, done: { readonly results: T; readonly registryChanged: boolean }): T {
  if (done.registryChanged) path.registryChanges.noteCommitted();
  return done.results;
}

/** A refusal by the rules or the caller's rights is the entity's; anything else breaks the whole write. */
function refusal(err: unknown): EntityResult {
  if (err instanceof ServiceError && !(err instanceof UnavailableError)) return { status: 'refused', error: err };
  throw err;
}

/**
 * Load, decide, apply: every unit's entities in one load and one statement, each entity
 * decided for its own unit (author, options); a unit that is all or nothing and has a
 * refused entity writes none of its entities. Null when the optimistic statement was refused.
 */
async function attemptUnits(target: WriteTarget, units: readonly Unit[]): Promise<{ results: EntityResult[][]; registryChanged: boolean } | null> {
  const entities = units.flatMap((u) => u.entities);
  const ruled = units.flatMap((u) => u.ruled);
  const owner = units.flatMap((u, k) => u.entities.map(() => k));
  const optionsOf = (i: number) => units[owner[i]!]!.options;
  const split = (flat: readonly EntityResult[]): EntityResult[][] => {
    let at = 0;
    return units.map((u) => flat.slice(at, (at += u.entities.length)));
  };
  if (entities.length === 0) return { results: units.map(() => []), registryChanged: false };
  // A large batch's steps take turns with the rest of the server (src/platform/turns.ts).
  const request = loadRequestOf(entities, ruled, entities.map((_, i) => optionsOf(i).authorizeNeeds));
  await loopTurn();
  let state = await loadWriteState(target, request);
  const entityOf = (e: EntityWrite): EntityState => state.entities.get(e.urn.value)!;
  const results: (EntityResult | undefined)[] = entities.map(() => undefined);
  const open = () => entities.flatMap((_, i) => (results[i] === undefined ? [i] : []));

  const now = Date.now();
  const resolved: ResolvedRequest[][] = [];
  for (const [i, e] of entities.entries()) {
    const found = entityOf(e);
    const options = optionsOf(i);
    if (options.skipMissing && (found.existence === 'missing' || (found.parent && !found.parent.exists))) {
      results[i] = { status: 'skipped' };
    } else {
      try {
        requireParent(found);
        checkPreconditions(e.urn, found, ruled[i]!, { createEntityOnly: e.createEntityOnly ?? options.createEntityOnly ?? false });
        resolved[i] = resolveRequests(e.urn, found, ruled[i]!, options.urnNamespace, (aspect) => handlerFor(e.urn.entityType, aspect), { actor: units[owner[i]!]!.actor, time: now });
      } catch (err) {
        results[i] = refusal(err);
      }
    }
    await loopTurn();
  }
  const more = propertiesStillNeeded(entities, resolved, request, state);
  if (more.length > 0) state = { ...state, properties: new Map([...state.properties, ...(await loadPropertyRecords(target, more))]) };

  const holders = await answerHolderQuestions(target, entities, resolved, open(), state, (i) => optionsOf(i).urnNamespace);
  const decisions: (EntityWriteDecision | undefined)[] = entities.map(() => undefined);
  for (const i of open()) {
    const e = entities[i]!;
    const options = optionsOf(i);
    try {
      decisions[i] = decideEntityWrite(e.urn, entityOf(e), state, resolved[i]!, { actor: units[owner[i]!]!.actor, now, via: options.via, urnNamespace: options.urnNamespace, undefinedPropertyValues: options.undefinedPropertyValues }, holders.get(i));
      options.authorize?.(decisions[i]!, entityOf(e));
    } catch (err) {
      results[i] = refusal(await withImpact(target, e.urn, err));
    }
    await loopTurn();
  }
  for (const i of open()) {
    const refused = await valueDropRefused(target, decisions[i]!, state, optionsOf(i).valueDrops);
    if (refused) results[i] = { status: 'refused', error: refused };
  }
  // An all-or-nothing unit with a refused entity writes none of its entities.
  for (const [k, u] of units.entries()) {
    if (!u.options.atomic) continue;
    const mine = entities.flatMap((_, i) => (owner[i] === k ? [i] : []));
    if (mine.some((i) => results[i] !== undefined && results[i]!.status !== 'skipped')) for (const i of mine) results[i] ??= { status: 'withheld' };
  }
  const decided = open();
  const dropped = (d: EntityWriteDecision) => propertiesWhoseValuesDrop(d, (p) => state.properties.has(p));
  const answer = (i: number, changeIds: readonly bigint[]): EntityResult => {
    const d = decisions[i]!;
    return { status: 'decided', results: d.results, changeIds, changed: changesSomething(d), valuesDropped: dropped(d), reports: d.reports };
  };
  // Only a unit on its own may be a dry run, or leave nothing to write on the locked path.
  const only = units.length === 1 ? units[0]!.options : undefined;
  const nothing = (finalResults: EntityResult[]) => {
    // The locked load creates the entities a write may create: they must not outlive it.
    if (target.kind === 'locked') throw new RolledBack(finalResults);
    return { results: [finalResults], registryChanged: false };
  };
  if (only?.atomic && results.some((r) => r?.status === 'refused')) return nothing(entities.map((_, i) => results[i] ?? { status: 'withheld' }));
  if (only?.dryRun) {
    for (const i of decided) results[i] = answer(i, []);
    return nothing(results as EntityResult[]);
  }
  if (target.kind === 'locked') {
    const created = entities.flatMap((e, i) => (results[i] !== undefined && entityOf(e).existence === 'created' ? [e.urn.value] : []));
    if (created.length > 0) await discardCreated(target.tx, created);
  }
  const toApply = decided.map((i) => decisions[i]!);
  const ids = await applyWrites(target, toApply, state, { versionsKept: units[0]!.options.historyVersionsKept ?? 0 });
  if (!ids) return null;
  for (const i of decided) results[i] = answer(i, ids.has(entities[i]!.urn.value) ? [ids.get(entities[i]!.urn.value)!] : []);
  return { results: split(results as EntityResult[]), registryChanged: toApply.some((d) => changesSomething(d) && d.registry.length > 0) };
}

/** The rules' questions about values other entities hold, answered (on the locked path, under the entity's lock), by entity. */
async function answerHolderQuestions(target: WriteTarget, entities: readonly EntityWrite[], resolved: readonly ResolvedRequest[][], open: readonly number[], state: WriteState, namespaceOf: (i: number) => UrnNamespace): Promise<Map<number, Map<string, HolderAnswer>>> {
  const out = new Map<number, Map<string, HolderAnswer>>();
  for (const i of open) {
    const e = entities[i]!;
    for (const { aspect, question } of holderQuestions(e.urn, state.entities.get(e.urn.value)!, state, resolved[i]!, namespaceOf(i))) {
      const answers = out.get(i) ?? new Map<string, HolderAnswer>();
      answers.set(aspect, await countHolders(queryableOf(target), question));
      out.set(i, answers);
    }
  }
  return out;
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

/** The refusal of a write that drops stored values (a new version, a migration dropping some) for a caller who may not; undefined when it drops none. */
async function valueDropRefused(target: WriteTarget, decision: EntityWriteDecision, state: WriteState, drops: EntityWriteOptions['valueDrops']): Promise<ForbiddenError | undefined> {
  for (const urn of propertiesWhoseValuesDrop(decision, (p) => state.properties.has(p))) {
    const allowed = drops(urn);
    if (allowed === 'allowed') continue;
    const impact = await propertyImpact(queryableOf(target), urn);
    if (impact.values > 0) return new ForbiddenError(valueDropRefusal(urn, impact, allowed.refusedUnless));
  }
  const migration = decision.reports.propertyDefinition?.migration as MigrationEffect | undefined;
  const allowed = migration && dropsValues(migration) ? drops(decision.urn) : 'allowed';
  if (migration && allowed !== 'allowed') {
    const dropped = migration.rules.find((r) => r.rule === 'dropInvalid')!;
    return new ForbiddenError(
      `This migration of ${decision.urn} drops ${dropped.values} stored value${dropped.values === 1 ? '' : 's'} on ${dropped.entities} entit${dropped.entities === 1 ? 'y' : 'ies'} (dropInvalid); a change that drops stored values needs ${allowed.refusedUnless}`,
    );
  }
  return undefined;
}

/** What the aspects' rules declare they rely on, for the whole batch. */
function loadRequestOf(entities: readonly EntityWrite[], ruled: readonly (readonly RuledRequest[])[], authorizeNeeds: ReadonlyArray<EntityWriteOptions['authorizeNeeds']>): LoadRequest {
  const aspects = new Set<string>(authorizeNeeds.flatMap((n) => n?.aspects ?? []));
  const properties = new Set<string>();
  const searchFields = new Set<string>();
  const toLoad = entities.map((e, i) => {
    let values = authorizeNeeds[i]?.values ?? false;
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
function propertiesStillNeeded(entities: readonly EntityWrite[], resolved: readonly (ResolvedRequest[] | undefined)[], loaded: LoadRequest, state: WriteState): string[] {
  const asked = new Set([...loaded.properties, ...state.properties.keys()]);
  const more = new Set<string>();
  entities.forEach((e, i) => {
    for (const r of resolved[i] ?? []) {
      if (r.next === NO_CHANGE || 'value' in r.request) continue;
      for (const p of r.rules.needs(e.urn, r.next).properties) if (!asked.has(p)) more.add(p);
    }
  });
  return [...more];
}

/** Who deletes: named by the lifecycle events a delete of a definition leaves. */
export interface DeleteAuthor {
  readonly actor: string;
  readonly via: string | null;
}

/** Hard-deletes an entity with all its aspects (a dataset with its schema fields) inside `tx`; a missing entity is not an error. */
export async function deleteEntityIn(tx: Tx, urn: Urn, author: DeleteAuthor): Promise<{ results: bigint[]; registryChanged: boolean }> {
  const found = await lockForDelete(tx, { urn: urn.value, entityType: urn.entityType.name }, { childType: urn.entityType.childType });
  return appliedDeletes(tx, decideEntityDelete(found, deletionOf), author);
}

/** Deletes one aspect (all versions) inside `tx`; deleting the key aspect deletes the entity. */
export async function deleteAspectIn(tx: Tx, urn: Urn, aspect: string, author: DeleteAuthor): Promise<{ results: bigint[]; registryChanged: boolean }> {
  handlerFor(urn.entityType, aspect);
  if (aspect === urn.entityType.keyAspect) return deleteEntityIn(tx, urn, author);
  const [entity] = await lockForDelete(tx, { urn: urn.value, entityType: urn.entityType.name }, {});
  return entity ? appliedDeletes(tx, decideAspectDelete(entity, aspect, deletionOf), author) : { results: [], registryChanged: false };
}

async function appliedDeletes(tx: Tx, decision: DeleteDecision, author: DeleteAuthor): Promise<{ results: bigint[]; registryChanged: boolean }> {
  return { results: await applyDeletes(tx, decision, author), registryChanged: decision.registry.length > 0 };
}
