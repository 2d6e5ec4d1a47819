/**
 * A write as data (docs/architecture.md, "Writes as plans"): the entities it touches and
 * what each of their aspects becomes. Every interface (REST, GraphQL, Rest.li, the CLI
 * and the console through them) and every background job (bulk edits, migrations,
 * cleanups, test results) builds one and hands it to the one entry point,
 * services/writes/writeService.ts, which authorizes, decides, applies, audits and waits
 * for the index. Pure: building and combining plans does no I/O.
 */
import { BatchRefusedError, relocated, ServiceError } from '../errors.js';
import { applyPatch, type KeyParentFill, type PatchDocument } from '../jsonPatch.js';
import type { Urn } from '../urn.js';
import type { MigrationRules } from '../valueMigration.js';
import { NO_CHANGE, type AspectWriteRequest, type EntityReading } from './entityWrite.js';

interface ChangeBase {
  readonly aspect: string;
  /** The aspect's current revision must be this (If-Version-Match, If-Match, expectedVersion); "-1" means absent. */
  readonly ifVersionMatch?: string;
  /** Caller-supplied system metadata kept beside the aspect (runId, properties, ...). */
  readonly systemMetadata?: Record<string, unknown>;
  /** What the aspect's rules take beside the value (a definition's migration). */
  readonly directive?: unknown;
  /**
   * What the stored version this change replaces is kept as in history; absent: as it
   * was. The cleanup after a hard delete keeps it without the property, so that no older
   * version its own writes make holds the values it removes.
   */
  readonly historyOf?: (stored: unknown) => unknown;
}

/** The aspect becomes this value. */
export interface SetChange extends ChangeBase {
  readonly op: 'set';
  readonly value: unknown;
  /** Refuse when the aspect exists (createIfNotExists). */
  readonly createOnly?: boolean;
}

/** JSON patches applied in order to what readers see of the aspect (an empty one when absent). */
export interface PatchChange extends ChangeBase {
  readonly op: 'patch';
  readonly patches: readonly PatchDocument[];
}

/** The aspect becomes what `compute` makes of what readers see now (NO_CHANGE leaves it). */
export interface ComputeChange extends ChangeBase {
  readonly op: 'compute';
  readonly compute: (current: unknown | undefined, entity: EntityReading) => unknown;
  /** Other aspects of the entity the computation reads (loaded with the write's state). */
  readonly reads?: readonly string[];
}

/** The aspect goes, every version of it (deleting the key aspect deletes the entity). */
export interface DeleteChange {
  readonly op: 'delete';
  readonly aspect: string;
}

export type AspectChange = SetChange | PatchChange | ComputeChange | DeleteChange;
export type WriteChange = SetChange | PatchChange | ComputeChange;

/** Where an entity of a plan came from in the request, for errors about it (`proposals[3]`, `[2]`). */
export interface PlanItemLabel {
  /** The path of the item in the request; an error's field is told under it. */
  readonly at: string;
  /** What the item is, in the request's own words (`UPSERT status of urn:li:...`). */
  readonly what?: string;
}

export interface EntityPlan {
  readonly urn: Urn;
  /** At most one change per aspect (planOf combines several). */
  readonly changes: readonly AspectChange[];
  /** The write brings its entity into being when it does not exist (its key aspect with it), as a Rest.li proposal does. */
  readonly createsEntity?: boolean;
  /** Refuse when the entity already exists (createEntityIfNotExists). */
  readonly createEntityOnly?: boolean;
  /** Hard-delete the entity with all its aspects (a dataset with its schema fields); no changes beside. */
  readonly deleteEntity?: boolean;
  readonly label?: PlanItemLabel;
}

export interface WritePlan {
  readonly entities: readonly EntityPlan[];
}

/** A plan of one entity. */
export function entityPlan(urn: Urn, changes: readonly AspectChange[], options: Omit<EntityPlan, 'urn' | 'changes'> = {}): WritePlan {
  return { entities: [{ urn, changes, ...options }] };
}

/** A plan that hard-deletes one entity. */
export function entityDeletePlan(urn: Urn): WritePlan {
  return { entities: [{ urn, changes: [], deleteEntity: true }] };
}

/** What a change does to the aspect, as a function of what readers see now (undefined: absent); DELETED: the aspect goes. */
const DELETED: unique symbol = Symbol('deleted');
type Effect = (current: unknown | undefined, entity: EntityReading) => unknown;

function effectOf(change: AspectChange): Effect {
  switch (change.op) {
    case 'set':
      return () => change.value;
    case 'delete':
      return () => DELETED;
    case 'patch':
      // An attribution the patch's path alone names (DataHub's attribution␟source key) is the writer's, now.
      return (current, entity) => {
        const fill: KeyParentFill = entity.writer ? { attribution: { time: entity.writer.time, actor: entity.writer.actor } } : {};
        const start = current ?? structuredClone(entity.patch?.empty ?? {});
        return change.patches.reduce<unknown>((doc, patch) => applyPatch(doc, patch, entity.patch?.keys, fill), start);
      };
    case 'compute':
      return change.compute;
  }
}

/**
 * What two changes of one aspect amount to when applied one after the other (DataHub's
 * clients send one batch item per aspect, so a batch may name an aspect twice). A set
 * or a delete replaces what came before; a patch or a computation applies to what the
 * earlier change left. The earlier change's precondition stays: it is about the aspect
 * as stored before the batch.
 */
export function combineChanges(earlier: AspectChange, later: AspectChange): AspectChange {
  const systemMetadata = 'systemMetadata' in later && later.systemMetadata ? later.systemMetadata : 'systemMetadata' in earlier ? earlier.systemMetadata : undefined;
  const ifVersionMatch = 'ifVersionMatch' in earlier ? earlier.ifVersionMatch : undefined;
  const directive = 'directive' in later && later.directive !== undefined ? later.directive : 'directive' in earlier ? earlier.directive : undefined;
  // Like the precondition, about the version stored before the batch.
  const historyOf = ('historyOf' in earlier ? earlier.historyOf : undefined) ?? ('historyOf' in later ? later.historyOf : undefined);
  const kept = { ...(systemMetadata ? { systemMetadata } : {}), ...(ifVersionMatch !== undefined ? { ifVersionMatch } : {}), ...(directive !== undefined ? { directive } : {}), ...(historyOf ? { historyOf } : {}) };
  if (later.op === 'delete') return later;
  if (later.op === 'set') return { ...later, ...kept };
  if (earlier.op === 'patch' && later.op === 'patch') return { ...later, patches: [...earlier.patches, ...later.patches], ...kept };
  const first = effectOf(earlier);
  const then = effectOf(later);
  const reads = [...new Set([...(earlier.op === 'compute' ? (earlier.reads ?? []) : []), ...(later.op === 'compute' ? (later.reads ?? []) : [])])];
  return {
    op: 'compute',
    aspect: later.aspect,
    compute: (current, entity) => {
      const mid = first(current, entity);
      if (mid === DELETED) return then(undefined, entity);
      return then(mid === NO_CHANGE ? current : mid, entity);
    },
    ...(reads.length > 0 ? { reads } : {}),
    // A set earlier makes the aspect exist whatever is stored: its createOnly still holds.
    ...kept,
  };
}

export interface PlanItem {
  readonly urn: Urn;
  readonly changes: readonly AspectChange[];
  readonly label?: PlanItemLabel;
  /** The item brings its entity into being (any item of an entity that does, makes the entity's plan do so). */
  readonly createsEntity?: boolean;
  readonly createEntityOnly?: boolean;
}

/**
 * A plan of many items, one entity each: items naming the same entity (by its
 * canonical URN) are merged in order, each aspect's changes combined; the plan lists
 * entities in first-appearance order, labelled with every item they came from.
 */
export function planOf(items: readonly PlanItem[], options: Omit<EntityPlan, 'urn' | 'changes' | 'label'> = {}): WritePlan {
  const merged = new Map<string, { urn: Urn; changes: Map<string, AspectChange>; labels: PlanItemLabel[]; createsEntity: boolean; createEntityOnly: boolean }>();
  for (const item of items) {
    let into = merged.get(item.urn.value);
    if (!into) merged.set(item.urn.value, (into = { urn: item.urn, changes: new Map(), labels: [], createsEntity: false, createEntityOnly: false }));
    if (item.label) into.labels.push(item.label);
    into.createsEntity ||= item.createsEntity === true;
    into.createEntityOnly ||= item.createEntityOnly === true;
    for (const change of item.changes) {
      const earlier = into.changes.get(change.aspect);
      into.changes.set(change.aspect, earlier ? combineChanges(earlier, change) : change);
    }
  }
  return {
    entities: [...merged.values()].map(({ urn, changes, labels, createsEntity, createEntityOnly }) => ({
      urn,
      changes: [...changes.values()],
      ...options,
      ...(createsEntity ? { createsEntity } : {}),
      ...(createEntityOnly ? { createEntityOnly } : {}),
      ...(labels.length > 0 ? { label: mergedLabel(labels) } : {}),
    })),
  };
}

function mergedLabel(labels: readonly PlanItemLabel[]): PlanItemLabel {
  if (labels.length === 1) return labels[0]!;
  const whats = labels.map((l) => l.what).filter((w): w is string => w !== undefined);
  return { at: labels.map((l) => l.at).join(', '), ...(whats.length > 0 ? { what: whats.join('; ') } : {}) };
}

/** The write path's request for a change that writes (not a delete). */
export function requestOf(change: WriteChange): AspectWriteRequest {
  const common = {
    aspect: change.aspect,
    ...(change.ifVersionMatch !== undefined ? { ifVersionMatch: change.ifVersionMatch } : {}),
    ...(change.systemMetadata ? { systemMetadata: change.systemMetadata } : {}),
    ...(change.directive !== undefined ? { directive: change.directive } : {}),
    ...(change.historyOf ? { historyOf: change.historyOf } : {}),
  };
  switch (change.op) {
    case 'set':
      return { ...common, value: change.value, ...(change.createOnly ? { createOnly: true } : {}) };
    case 'patch':
      return { ...common, compute: effectOf(change) };
    case 'compute':
      return { ...common, compute: change.compute, ...(change.reads ? { reads: change.reads } : {}) };
  }
}

/** Whether a plan entity removes something (an entity, or an aspect). */
export function deletesSomething(entity: EntityPlan): boolean {
  return entity.deleteEntity === true || entity.changes.some((c) => c.op === 'delete');
}

/** An aspect as a request carries it: its value, with the system metadata and the version it was read at, when given. */
export interface AspectInput {
  readonly value: unknown;
  readonly systemMetadata?: Record<string, unknown>;
  readonly ifVersionMatch?: string;
  /** A definition's migration (propertyDefinition only). */
  readonly migration?: MigrationRules;
}

/** A set of one aspect from what a request carries. */
export function setChange(aspect: string, input: AspectInput, createOnly?: boolean): SetChange {
  return {
    op: 'set',
    aspect,
    value: input.value,
    ...(createOnly ? { createOnly: true } : {}),
    ...(input.ifVersionMatch !== undefined ? { ifVersionMatch: input.ifVersionMatch } : {}),
    ...(input.systemMetadata ? { systemMetadata: input.systemMetadata } : {}),
    ...(input.migration ? { directive: { migration: input.migration } } : {}),
  };
}

/**
 * The plan items of a request's items, each built by `build`: an item that cannot be
 * (its URN does not parse, its aspect is unknown) is refused with where it was, and
 * every such item is told at once; nothing is written. Items of a request of one item
 * are not labelled: the request is the item.
 */
export function itemsOf<T>(items: readonly T[], build: (item: T, at: string, index: number) => PlanItem, atOf: (i: number) => string = (i) => `[${i}]`): PlanItem[] {
  const built: PlanItem[] = [];
  const refused: Array<{ at: string; urn: string; error: ServiceError }> = [];
  const many = items.length > 1;
  items.forEach((item, i) => {
    const at = atOf(i);
    try {
      const made = build(item, at, i);
      built.push({ ...made, ...(made.label ? {} : many ? { label: { at } } : {}) });
    } catch (err) {
      if (!(err instanceof ServiceError)) throw err;
      const urn = (item as { urn?: unknown }).urn;
      refused.push({ at, urn: typeof urn === 'string' ? urn : '', error: err });
    }
  });
  if (refused.length === 1) {
    const { at, error } = refused[0]!;
    // An error that names its field under the item already says where it is.
    if (!many || error.field?.startsWith(at)) throw error;
    throw relocated(error, error.field ? `${at}.${error.field}` : at, `${at}: ${error.message}`);
  }
  if (refused.length > 1) throw new BatchRefusedError(refused);
  return built;
}
