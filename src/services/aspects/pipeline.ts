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
  entityExistsLocked,
  lockEntity,
  lockForWrite,
  schemaFieldsOf,
  writeAspect,
  type StoredAspect,
} from '../../store/aspects.js';
import { appendChange } from '../../store/changeLog.js';
import type { Tx } from '../../store/database.js';
import type { WriteContext } from './handler.js';
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

export async function writeAspects(
  tx: Tx,
  urn: Urn,
  requests: readonly AspectWriteRequest[],
  actor: string,
  options: EntityWriteOptions = {},
): Promise<WriteOutcome> {
  const type = urn.entityType;
  const handlers = requests.map((r) => handlerFor(type, r.aspect));
  let mayCreate = handlers.some((h) => h.createsEntity);
  const parent = parentUrnOf(urn);
  if (parent !== undefined) {
    // A schema field exists exactly when its dataset does.
    if (!(await entityExistsLocked(tx, parent))) throw new NotFoundError(`Entity ${parent} does not exist`);
    mayCreate = true;
  }
  const state = await lockForWrite(tx, urn.value, type.name, mayCreate, requests.map((r) => r.aspect), handlers.some((h) => h.needsValueStates));
  const lock = state.lock;
  if (lock === 'missing') throw new NotFoundError(`Entity ${urn.value} does not exist`);
  if (lock === 'existed' && options.createEntityOnly) {
    throw new AlreadyExistsError('Cannot perform CREATE since the entity already exists.');
  }
  const changeIds: bigint[] = [];
  if (lock === 'created') changeIds.push(await appendChange(tx, urn.value, type.name, type.keyAspect, 'UPSERT'));

  const stored = state.aspects;
  const ctx: WriteContext = { valueStates: state.valueStates ?? [] };
  const results: AspectResult[] = [];
  for (let i = 0; i < requests.length; i++) {
    const request = requests[i]!;
    const handler = handlers[i]!;
    const prev = stored.get(request.aspect);
    if (request.createOnly && prev) throw new AlreadyExistsError();
    if (request.ifVersionMatch !== undefined) {
      const current = prev ? String(revisionOf(prev)) : '-1';
      if (current !== request.ifVersionMatch) {
        throw new PreconditionError(`Expected version ${request.ifVersionMatch} of ${request.aspect}, actual version ${current}`);
      }
    }
    const currentView = !prev
      ? undefined
      : handler.viewForWrite
        ? handler.viewForWrite(prev.metadata, ctx)
        : (await handler.view(tx, [{ urn: urn.value, stored: prev.metadata }]))[0];
    const next = request.compute(currentView);
    if (next === NO_CHANGE) {
      results.push({ aspect: request.aspect, value: currentView, systemMetadata: prev?.systemMetadata ?? null });
      continue;
    }
    const prepared = await handler.prepare(tx, urn, next, prev?.metadata, ctx);
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
    changeIds.push(
      await writeAspect(tx, {
        urn: urn.value,
        entityType: type.name,
        aspect: request.aspect,
        metadata: prepared.stored,
        systemMetadata,
        createdBy: actor,
        ...(prepared.valueRows ? { valueRows: prepared.valueRows } : {}),
      }),
    );
    await prepared.afterWrite?.(tx);
    stored.set(request.aspect, { aspect: request.aspect, metadata: prepared.stored, systemMetadata, createdOn: new Date(), createdBy: actor });
    results.push({ aspect: request.aspect, value: visible, systemMetadata });
  }
  return { results, changeIds };
}

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
