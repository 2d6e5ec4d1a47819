/**
 * The entity-level write rules, around each aspect's own: the entity must exist (or
 * be creatable, or, for createEntityOnly, not exist yet), createOnly and
 * If-Version-Match preconditions, the new value computed from what readers see now,
 * identical rewrites writing nothing, and the system metadata each stored version
 * carries. Pure: the state comes in, the decision goes out.
 */
import type { UndefinedPropertyValues } from '../structuredProperties.js';
import { checkAspectSize } from '../aspectSize.js';
import { AlreadyExistsError, AspectExistsError, NotFoundError, StaleWriteError } from '../errors.js';
import { jsonEqual } from '../json.js';
import type { UrnNamespace } from '../typeUrns.js';
import type { Urn } from '../urn.js';
import type { AspectRules, HolderAnswer, PatchSpec } from './aspectRules.js';
import type { AspectResult, AspectRow, EntityWriteDecision, JobRequest, LifecycleNote, RegistryChange, ValueRow } from './writeDecision.js';
import { revisionOf, type CurrentAspect, type EntityState, type RegistryState } from './writeState.js';

/** Returned by a compute function: leave the aspect as it is. */
export const NO_CHANGE: unique symbol = Symbol('no-change');

export type NextValue =
  | { readonly value: unknown }
  | {
      /** The new value from what readers see now (undefined when absent), or NO_CHANGE. */
      readonly compute: (current: unknown | undefined, entity: EntityReading) => unknown;
      /**
       * Other aspects of the entity the computation reads, loaded with the write's state:
       * the value is then computed from exactly what the guarded statement relies on (a
       * metadata-test result from the aspects its rules name).
       */
      readonly reads?: readonly string[];
    };

/** What a computed value sees of its entity beside its own aspect. */
export interface EntityReading {
  readonly urn: Urn;
  /** The aspects named in `reads` that the entity holds, as readers see them. */
  readonly aspects: ReadonlyMap<string, unknown>;
  /** Who writes, when: what a patch fills in of an attribution its path alone names (plan.ts). */
  readonly writer?: { readonly actor: string; readonly time: number };
  /** How a patch addresses the aspect computed (its rules' patch keys), for a patch's computation (plan.ts). */
  readonly patch?: PatchSpec;
}

export type AspectWriteRequest = NextValue & {
  readonly aspect: string;
  /** Refuse when the aspect already exists (REST createIfNotExists=true). */
  readonly createOnly?: boolean;
  /** The aspect's current revision must be this (v3 If-Version-Match); "-1" means absent. */
  readonly ifVersionMatch?: string;
  /** Caller-supplied system metadata to keep beside the aspect (runId, properties, ...). */
  readonly systemMetadata?: Record<string, unknown>;
  /** What the aspect's rules take beside the value (a definition's migration). */
  readonly directive?: unknown;
  /** What the stored version this write replaces is kept as in history (plan.ts); absent: as it was. */
  readonly historyOf?: (stored: unknown) => unknown;
};

export interface RuledRequest {
  readonly request: AspectWriteRequest;
  readonly rules: AspectRules;
}

/** A request with the value it will write (or NO_CHANGE), computed from the current view. */
export interface ResolvedRequest extends RuledRequest {
  readonly prev: CurrentAspect | undefined;
  /** What readers see of the aspect now. */
  readonly current: unknown;
  readonly next: unknown;
}

export interface WriteContext {
  readonly actor: string;
  /** The namespace type URNs are written in (the server's URN_NAMESPACE). */
  readonly urnNamespace: UrnNamespace;
  /** What a value of a property that does not exist does (DROP_UNDEFINED_PROPERTY_VALUES); absent: refused. */
  readonly undefinedPropertyValues?: UndefinedPropertyValues | undefined;
  /** The interface the write came through, recorded beside the actor. */
  readonly via?: string | undefined;
  /** The write's time (ms since the epoch), stamped as lastObserved. */
  readonly now: number;
}

/** A schema field exists exactly when its dataset does. */
export function requireParent(entity: EntityState): void {
  if (entity.parent && !entity.parent.exists) throw new NotFoundError(`Entity ${entity.parent.urn} does not exist`);
}

export function checkPreconditions(urn: Urn, entity: EntityState, requests: readonly RuledRequest[], options: { createEntityOnly?: boolean }): void {
  if (entity.existence === 'missing') throw new NotFoundError(`Entity ${urn.value} does not exist`);
  if (entity.existence === 'existed' && options.createEntityOnly) throw new AlreadyExistsError('Cannot perform CREATE since the entity already exists.');
  for (const { request } of requests) {
    const prev = entity.aspects.get(request.aspect);
    if (request.createOnly && prev) throw new AspectExistsError();
    if (request.ifVersionMatch !== undefined) {
      const current = prev ? String(revisionOf(prev)) : '-1';
      if (current !== request.ifVersionMatch) {
        // Bare here (the domain reads no history); the write service adds who wrote since and what changed.
        throw new StaleWriteError(`Expected version ${request.ifVersionMatch} of ${request.aspect}, actual version ${current}`, {
          urn: urn.value,
          aspect: request.aspect,
          expected: request.ifVersionMatch,
          current,
        });
      }
    }
  }
}

/**
 * Computes each request's new value from what readers currently see of its aspect (and
 * of the aspects it reads, shown by `rulesOf` their rules), within the aspect size limit.
 */
export function resolveRequests(
  urn: Urn,
  entity: EntityState,
  requests: readonly RuledRequest[],
  urnNamespace: UrnNamespace,
  rulesOf?: (aspect: string) => AspectRules,
  writer?: EntityReading['writer'],
): ResolvedRequest[] {
  const viewContext = { urn, values: entity.values, urnNamespace };
  const reading = (names: readonly string[], patch: PatchSpec | undefined): EntityReading => {
    const aspects = new Map<string, unknown>();
    for (const name of names) {
      const stored = entity.aspects.get(name);
      // The key aspect is never stored; readers see it derived from the URN.
      if (!stored && name !== urn.entityType.keyAspect) continue;
      aspects.set(name, rulesOf ? rulesOf(name).view(stored?.metadata, viewContext) : stored?.metadata);
    }
    return { urn, aspects, ...(writer ? { writer } : {}), ...(patch ? { patch } : {}) };
  };
  return requests.map(({ request, rules }) => {
    const prev = entity.aspects.get(request.aspect);
    const current = prev ? rules.view(prev.metadata, viewContext) : undefined;
    const next = 'value' in request ? request.value : request.compute(current, reading(request.reads ?? [], rules.patch));
    // Every new value, whatever computed it (set, patch, merge), is held to the size limit.
    if (next !== NO_CHANGE) checkAspectSize(request.aspect, next);
    return { request, rules, prev, current, next };
  });
}

function merged(a: RegistryChange | undefined, b: RegistryChange): RegistryChange {
  return a ? { urn: b.urn, define: b.define ?? a.define, removed: b.removed ?? a.removed } : b;
}

/** The rules' question about values other entities hold, for each request that has one. */
export function holderQuestions(urn: Urn, entity: EntityState, registry: RegistryState, resolved: readonly ResolvedRequest[], urnNamespace: UrnNamespace): Array<{ aspect: string; question: NonNullable<ReturnType<NonNullable<AspectRules['holdersToCount']>>> }> {
  const out = [];
  for (const { request, rules, prev, next } of resolved) {
    if (next === NO_CHANGE || !rules.holdersToCount) continue;
    const question = rules.holdersToCount(next, {
      urn,
      stored: prev?.metadata,
      aspects: entity.aspects,
      values: entity.values,
      urnNamespace,
      properties: registry.properties,
      searchFieldOwners: registry.searchFieldOwners,
      ...(request.directive !== undefined ? { directive: request.directive } : {}),
    });
    if (question) out.push({ aspect: request.aspect, question });
  }
  return out;
}

/**
 * Decides every aspect of one entity's write; throws the first rule broken. `holders`:
 * the answers to the rules' questions about values other entities hold, by aspect.
 */
export function decideEntityWrite(
  urn: Urn,
  entity: EntityState,
  registry: RegistryState,
  resolved: readonly ResolvedRequest[],
  context: WriteContext,
  holders: ReadonlyMap<string, HolderAnswer> = new Map(),
): EntityWriteDecision {
  const writes: AspectRow[] = [];
  const results: AspectResult[] = [];
  const registryChanges = new Map<string, RegistryChange>();
  const jobs: JobRequest[] = [];
  const reliesOn = new Set<string>();
  const events: LifecycleNote[] = [];
  const reports: Record<string, Readonly<Record<string, unknown>>> = {};
  let valueRows: readonly ValueRow[] | null = null;
  for (const { request, rules, prev, current, next } of resolved) {
    const kept = { aspect: request.aspect, systemMetadata: prev?.systemMetadata ?? null };
    if (next === NO_CHANGE) {
      results.push({ ...kept, value: current });
      continue;
    }
    const answer = holders.get(request.aspect);
    const d = rules.decide(next, {
      urn,
      stored: prev?.metadata,
      aspects: entity.aspects,
      values: entity.values,
      urnNamespace: context.urnNamespace,
      ...(context.undefinedPropertyValues ? { undefinedPropertyValues: context.undefinedPropertyValues } : {}),
      properties: registry.properties,
      searchFieldOwners: registry.searchFieldOwners,
      ...(request.directive !== undefined ? { directive: request.directive } : {}),
      ...(answer ? { holders: answer } : {}),
    });
    if (d.report) reports[request.aspect] = d.report;
    if (d.store === 'never' || (prev && d.store === 'if-changed' && jsonEqual(prev.metadata, d.stored))) {
      results.push({ ...kept, value: d.visible });
      continue;
    }
    const systemMetadata: Record<string, unknown> = {
      ...request.systemMetadata,
      lastObserved: context.now,
      runId: request.systemMetadata?.runId ?? 'no-run-id-provided',
      version: String(revisionOf(prev) + 1),
    };
    writes.push({ aspect: request.aspect, metadata: d.stored, systemMetadata, ...(request.historyOf && prev ? { previousKeptAs: request.historyOf(prev.metadata) } : {}) });
    results.push({ aspect: request.aspect, value: d.visible, systemMetadata });
    if (d.valueRows) valueRows = d.valueRows;
    if (d.registry) registryChanges.set(d.registry.urn, merged(registryChanges.get(d.registry.urn), d.registry));
    // Who caused a job is kept with it: a migration rewrites values in their name, and the jobs list says who asked.
    jobs.push(...d.jobs.map((j) => ({ ...j, payload: { ...j.payload, requestedBy: { actor: context.actor, via: context.via ?? null } } })));
    for (const p of d.reliesOn) reliesOn.add(p);
    // Only definitions (properties, metadata tests) have a lifecycle worth a history of its own.
    if (urn.entityType.definitionAspect) events.push(...d.events);
  }
  return {
    urn: urn.value,
    entityType: urn.entityType.name,
    createdBy: context.actor,
    createdVia: context.via ?? null,
    creates: entity.existence === 'created' ? { keyAspect: urn.entityType.keyAspect } : null,
    writes,
    valueRows,
    registry: [...registryChanges.values()],
    jobs,
    reliesOn: [...reliesOn],
    events,
    results,
    reports,
  };
}
