/**
 * The one write entry point (docs/architecture.md, "Writes as plans"): `submit(caller,
 * plan, options)`. REST, GraphQL, Rest.li, bulk edits, imports, migrations, cleanups and
 * test results each build a plan (domain/writes/plan.ts) and hand it here, where each
 * entity is authorized (writeGate.ts), decided and applied through the write path
 * (aspects/pipeline.ts), audited, and waited for in the search index, once per plan.
 *
 * A plan is all or nothing by default: every entity is decided first, and when any is
 * refused nothing is written and every refusal is told at once (one refused entity: its
 * own error; several: BatchRefusedError listing each). With `atomic: false` each entity
 * stands alone: the refused ones are answered as such, the others written.
 */
import { ASPECT, auditedDelete, auditedWrite, staleChangesOf } from '../../domain/aspects/index.js';
import type { UndefinedPropertyValues } from '../../domain/structuredProperties.js';
import { BatchRefusedError, relocated, ServiceError, StaleWriteError, UnavailableError, ValidationError, type RefusedItem } from '../../domain/errors.js';
import { checkRequestedResults, requireBatchSize } from '../../domain/limits.js';
import type { UrnNamespace } from '../../domain/typeUrns.js';
import { keyAspectOf } from '../../domain/urn.js';
import { staleMessage } from '../../domain/staleWrite.js';
import { addImpacts, NO_IMPACT, type ValueImpact } from '../../domain/valueImpact.js';
import { requestOf, type EntityPlan, type WriteChange, type WritePlan } from '../../domain/writes/plan.js';
import { revisionsSince } from '../../store/aspectVersions.js';
import type { Db } from '../../store/database.js';
import { findProperties } from '../../store/propertyRegistry.js';
import { propertyImpact } from '../../store/propertyImpact.js';
import { inTransaction } from '../../store/transaction.js';
import { WriteConflict } from '../../store/writeApply.js';
import type { Logger } from '../../platform/logger.js';
import { AuditTrail, failure, type AuditAction } from '../audit.js';
import type { Caller, WriteOptions } from '../caller.js';
import { handlerFor } from '../aspects/handlers.js';
import { committed, deleteAspectIn, deleteEntityIn, RolledBack, writeEntities, writeEntitiesIn, type EntityResult, type EntityWrite, type EntityWriteOptions, type WritePath } from '../aspects/pipeline.js';
import { GroupCommit } from '../aspects/groupCommit.js';
import { writesPerStatement } from '../../telemetry/metrics.js';
import type { IndexWaiter } from '../indexWaiter.js';
import type { LocalRegistryChanges } from '../localRegistryChanges.js';
import type { WriteReceipt, Written } from '../writeReceipt.js';
import { scopeGate, type WriteGate } from './writeGate.js';
import type { EntityOutcome, PlanOutcome, SubmitOptions, WriteService } from './writeShapes.js';

export type { EntityOutcome, PlanOutcome, SubmitOptions, WriteService } from './writeShapes.js';

export interface WriteServiceDeps {
  readonly db: Db;
  readonly log: Logger;
  readonly indexWaiter: IndexWaiter;
  /** Where the write path counts the registry changes it commits (searches read the count). */
  readonly registryChanges: LocalRegistryChanges;
  /** Earlier versions kept per aspect (HISTORY_VERSIONS_KEPT); absent or 0: all of them. */
  readonly historyVersionsKept?: number;
  /** The namespace type URNs are written and shown in (URN_NAMESPACE). */
  readonly urnNamespace: UrnNamespace;
  /** What a value of a property that does not exist does (DROP_UNDEFINED_PROPERTY_VALUES); absent: refused. */
  readonly undefinedPropertyValues?: UndefinedPropertyValues;
  /** Who may write what; the scopes' gate when absent. */
  readonly gate?: WriteGate;
  /** Let concurrent writes share a statement and its commit (groupCommit.ts); default true. */
  readonly groupCommit?: boolean;
}

/** One entity of the plan as the write path takes it, with where its results are. */
interface Prepared {
  readonly plan: EntityPlan;
  /** The write path's request list (the key aspect first when the plan creates the entity and did not name it). */
  readonly write: EntityWrite | null;
  /** Results to leave out of the answer: the key aspect added here. */
  readonly skip: number;
  readonly deletes: readonly string[];
}

function prepare(plan: EntityPlan): Prepared {
  const writes = plan.changes.filter((c): c is WriteChange => c.op !== 'delete');
  const deletes = plan.changes.filter((c) => c.op === 'delete').map((c) => c.aspect);
  const keyAspect = plan.urn.entityType.keyAspect;
  const addKey = plan.createsEntity === true && writes.length > 0 && !writes.some((c) => c.aspect === keyAspect);
  const requests = [...(addKey ? [{ aspect: keyAspect, value: keyAspectOf(plan.urn) }] : []), ...writes.map(requestOf)];
  return {
    plan,
    write: requests.length > 0 && !plan.deleteEntity ? { urn: plan.urn, requests, ...(plan.createEntityOnly ? { createEntityOnly: true } : {}) } : null,
    skip: addKey ? 1 : 0,
    deletes,
  };
}

export class DefaultWriteService implements WriteService {
  private readonly audit: AuditTrail;
  private readonly gate: WriteGate;
  private readonly path: WritePath;

  constructor(private readonly deps: WriteServiceDeps) {
    this.audit = new AuditTrail(deps.log);
    this.gate = deps.gate ?? scopeGate;
    this.path = { db: deps.db, registryChanges: deps.registryChanges, ...(deps.groupCommit === false ? {} : { groupCommit: new GroupCommit(1000, (n) => writesPerStatement.observe(n)) }) };
  }

  async submit(caller: Caller, plan: WritePlan, options: SubmitOptions = {}): Promise<Written<PlanOutcome>> {
    const outcome = await this.run(caller, plan, options);
    const changeIds = outcome.changeIds;
    return { result: { entities: outcome.entities }, receipt: await this.receiptOf(changeIds, options) };
  }

  async preview(caller: Caller, plan: WritePlan): Promise<{ outcome: PlanOutcome; impact: ValueImpact }> {
    const { entities } = await this.run(caller, plan, { dryRun: true });
    let impact = NO_IMPACT;
    for (const property of new Set(entities.flatMap((e) => e.valuesDropped))) impact = addImpacts(impact, await propertyImpact(this.deps.db, property));
    return { outcome: { entities }, impact };
  }

  private async run(caller: Caller, plan: WritePlan, options: SubmitOptions): Promise<{ entities: EntityOutcome[]; changeIds: bigint[] }> {
    const atomic = options.atomic ?? true;
    if (plan.entities.length > 1) {
      requireBatchSize(plan.entities.length);
      checkRequestedResults(plan.entities.reduce((n, e) => n + e.changes.length, 0), 'This batch', 'body');
    }
    const prepared = plan.entities.map(prepare);
    const judge = await this.gate.judge(caller, plan);
    // What the plan alone shows: aspects the entity type has, and whether the caller may touch them.
    const early = prepared.map(({ plan: e }): ServiceError | undefined => {
      try {
        for (const c of e.changes) {
          const rules = handlerFor(e.urn.entityType, c.aspect);
          if (c.op !== 'delete' && c.directive !== undefined && !rules.acceptsDirective) {
            throw new ValidationError(`A migration applies only to a structured property's propertyDefinition, not to ${c.aspect}; leave it out`, 'migration');
          }
        }
        judge.beforeLoad(e);
        return undefined;
      } catch (err) {
        if (err instanceof ServiceError) return err;
        throw err;
      }
    });
    const results: (EntityResult | undefined)[] = early.map((err) => (err ? { status: 'refused', error: err } : undefined));
    const deleted = new Map<number, bigint[]>();
    const writeOptions: EntityWriteOptions = {
      atomic,
      valueDrops: (propertyUrn) => judge.valueDrops(propertyUrn),
      via: caller.via,
      historyVersionsKept: this.deps.historyVersionsKept,
      urnNamespace: this.deps.urnNamespace,
      undefinedPropertyValues: this.deps.undefinedPropertyValues,
      dryRun: options.dryRun ?? false,
      skipMissing: options.skipMissing ?? false,
      authorize: (decision, entity) => judge.afterDecision(decision, entity),
      authorizeNeeds: judge.needs,
    };
    const toWrite = prepared.flatMap((p, i) => (results[i] === undefined && p.write ? [i] : []));
    const toDelete = prepared.flatMap((p, i) => (results[i] === undefined && (p.plan.deleteEntity || p.deletes.length > 0) ? [i] : []));
    if (atomic && results.some((r) => r !== undefined)) {
      // Refused before anything was loaded: the rest is decided without writing, so that every refusal is told at once.
      const rest = await writeEntities(this.path, toWrite.map((i) => prepared[i]!.write!), caller.actor, { ...writeOptions, atomic: false, dryRun: true });
      toWrite.forEach((i, k) => (results[i] = rest[k]));
      this.refuse(caller, prepared, results);
    }
    const author = { actor: caller.actor, via: caller.via ?? null };
    const stages = stagesOf(prepared, [...new Set([...toDelete, ...toWrite])].sort((a, b) => a - b));
    if (stages.length <= 1 && toDelete.length === 0) {
      const written = await writeEntities(this.path, toWrite.map((i) => prepared[i]!.write!), caller.actor, writeOptions);
      toWrite.forEach((i, k) => (results[i] = written[k]));
    } else {
      // Later items may rely on what earlier ones did (a batch defines a property, then sets its values; deletes one aspect,
      // writes another): the plan runs stage by stage, in its order, in one transaction, which commits only when it stands whole.
      const done = await this.inStages(stages, prepared, author, caller.actor, writeOptions, atomic);
      done.deleted.forEach((ids, i) => deleted.set(i, ids));
      done.results.forEach((r, i) => {
        if (r) results[i] = r;
      });
    }
    await this.explainStale(results);
    if (atomic && results.some((r) => r?.status === 'refused')) this.refuse(caller, prepared, results);
    const entities = prepared.map((p, i) => this.outcomeOf(p, results[i], deleted.get(i)));
    if (!options.dryRun) this.record(caller, prepared, entities, deleted);
    const changeIds = [...entities.flatMap((_, i) => (results[i]?.status === 'decided' ? (results[i] as { changeIds: readonly bigint[] }).changeIds : [])), ...[...deleted.values()].flat()];
    return { entities, changeIds };
  }

  /** Runs the stages in order in one transaction; rolls it back for a dry run, or when an all-or-nothing plan has a refusal. */
  private async inStages(
    stages: readonly (readonly number[])[],
    prepared: readonly Prepared[],
    author: { actor: string; via: string | null },
    actor: string,
    options: EntityWriteOptions,
    atomic: boolean,
  ): Promise<{ deleted: Map<number, bigint[]>; results: (EntityResult | undefined)[] }> {
    for (let attempt = 1; ; attempt++) {
      try {
        const done = await inTransaction(this.deps.db, async (tx) => {
          const deleted = new Map<number, bigint[]>();
          const results: (EntityResult | undefined)[] = prepared.map(() => undefined);
          let registryChanged = false;
          const each = { ...options, atomic: false, dryRun: false };
          for (const stage of stages) {
            for (const i of stage) {
              const p = prepared[i]!;
              if (!p.plan.deleteEntity && p.deletes.length === 0) continue;
              const ids: bigint[] = [];
              for (const aspect of p.plan.deleteEntity ? [null] : p.deletes) {
                const r = aspect === null ? await deleteEntityIn(tx, p.plan.urn, author) : await deleteAspectIn(tx, p.plan.urn, aspect, author);
                ids.push(...r.results);
                registryChanged ||= r.registryChanged;
              }
              deleted.set(i, ids);
            }
            const writing = stage.filter((i) => prepared[i]!.write);
            if (writing.length === 0) continue;
            const written = await writeEntitiesIn(tx, writing.map((i) => prepared[i]!.write!), actor, each);
            writing.forEach((i, k) => (results[i] = written.results[k]));
            registryChanged ||= written.registryChanged;
          }
          if (options.dryRun || (atomic && results.some((r) => r?.status === 'refused'))) throw new RolledBack(results as EntityResult[]);
          return { results: { deleted, results }, registryChanged };
        });
        return committed(this.path, done);
      } catch (err) {
        if (err instanceof RolledBack) return { deleted: new Map(), results: err.results };
        if (!(err instanceof WriteConflict) || attempt >= 4) throw err;
      }
    }
  }

  private outcomeOf(p: Prepared, result: EntityResult | undefined, deleted: bigint[] | undefined): EntityOutcome {
    const base = { urn: p.plan.urn.value, results: [], valuesDropped: [], reports: {} };
    if (!result) return { ...base, status: deleted && deleted.length > 0 ? 'written' : 'unchanged' };
    switch (result.status) {
      case 'refused':
        return { ...base, status: 'refused', error: result.error };
      case 'skipped':
      case 'withheld':
        return { ...base, status: 'skipped' };
      case 'decided':
        return {
          urn: p.plan.urn.value,
          status: result.changed || (deleted?.length ?? 0) > 0 ? 'written' : 'unchanged',
          results: result.results.slice(p.skip),
          valuesDropped: result.valuesDropped,
          reports: result.reports,
        };
    }
  }

  /** Throws the refusal of an all-or-nothing plan: one entity's own error, or every refused entity listed. */
  private refuse(caller: Caller, prepared: readonly Prepared[], results: readonly (EntityResult | undefined)[]): never {
    const refused: RefusedItem[] = [];
    prepared.forEach((p, i) => {
      const r = results[i];
      if (r?.status !== 'refused') return;
      refused.push({ at: p.plan.label?.at ?? `[${i}]`, urn: p.plan.urn.value, error: r.error });
      for (const action of this.auditedActions(p)) this.audit.record({ action, actor: caller.actor, target: p.plan.urn.value, ...failure(r.error) });
    });
    if (refused.length === 1) {
      const only = prepared.find((_, i) => results[i]?.status === 'refused')!;
      const err = refused[0]!.error;
      throw only.plan.label ? inItem(err, only.plan.label) : err;
    }
    throw new BatchRefusedError(refused.map((r) => ({ ...r, error: r.error })));
  }

  /** A stale write's refusal, completed with who wrote since, when, and what changed (docs/contract.md, "Stale writes"). */
  private async explainStale(results: (EntityResult | undefined)[]): Promise<void> {
    for (const [i, r] of results.entries()) {
      // Only the domain's bare refusal (no details yet) is explained; an explained one passes as it is.
      if (r?.status !== 'refused' || !(r.error instanceof StaleWriteError) || r.error.details) continue;
      const { urn, aspect, expected } = r.error.stale;
      results[i] = { status: 'refused', error: await this.staleError(urn, aspect, expected).catch(() => r.error) };
    }
  }

  private async staleError(urn: string, aspect: string, expected: string): Promise<ServiceError> {
    const from = Math.max(0, Number(expected) || 0);
    const rows = await revisionsSince(this.deps.db, urn, aspect, from, 20);
    const latest = rows.at(-1);
    const read = rows.find((r) => r.revision === from);
    const current = latest ? String(latest.revision) : '-1';
    const visible = await this.visibleProperties(aspect, [read?.metadata, latest?.metadata]);
    // The version read may be gone (retention) or never have been: then what changed since is not known.
    const changes = read || from === 0 ? staleChangesOf(aspect)(read?.metadata, latest?.metadata, (p) => visible.has(p)) : [];
    const writes = rows.filter((r) => r.revision > from).map((r) => ({ version: String(r.revision), actor: r.createdBy, time: r.createdOn.getTime(), via: r.createdVia }));
    return new StaleWriteError(staleMessage(urn, aspect, expected, current, writes, changes), { urn, aspect, expected, current }, {
      expectedVersion: expected,
      currentVersion: current,
      writesSince: writes,
      changes,
    });
  }

  /** The properties whose values a stale write's answer may show: those that exist and are not soft deleted. */
  private async visibleProperties(aspect: string, metadata: readonly unknown[]): Promise<Set<string>> {
    if (aspect !== ASPECT.structuredProperties) return new Set();
    const named = metadata.flatMap((m) => ((m as { properties?: Array<{ propertyUrn?: unknown }> } | undefined)?.properties ?? []).map((e) => e?.propertyUrn)).filter((u): u is string => typeof u === 'string');
    const found = await findProperties(this.deps.db, [...new Set(named)]);
    return new Set([...found.values()].filter((p) => !p.removed).map((p) => p.urn));
  }

  private auditedActions(p: Prepared): AuditAction[] {
    const type = p.plan.urn.entityType;
    if (p.plan.deleteEntity) return ['entity.hardDelete'];
    const out: AuditAction[] = [];
    for (const c of p.plan.changes) {
      if (c.op === 'delete') {
        out.push(auditedDelete(type, c.aspect));
        continue;
      }
      const action = auditedWrite(type, c.aspect, c.op === 'set' ? c.value : undefined);
      if (action) out.push(action);
    }
    return out;
  }

  /** Definitions, soft deletes and deletes are audited, one line each. */
  private record(caller: Caller, prepared: readonly Prepared[], entities: readonly EntityOutcome[], deleted: ReadonlyMap<number, bigint[]>): void {
    prepared.forEach((p, i) => {
      const e = entities[i]!;
      const target = p.plan.urn.value;
      if (e.status === 'refused') {
        for (const action of this.auditedActions(p)) this.audit.record({ action, actor: caller.actor, target, ...failure(e.error) });
        return;
      }
      if (e.status === 'skipped') return;
      const dropped = e.reports[ASPECT.structuredProperties]?.droppedValuesOf as readonly string[] | undefined;
      if (dropped) this.deps.log.warn({ actor: caller.actor, urn: target, properties: dropped }, 'dropped the values of structured properties that do not exist (DROP_UNDEFINED_PROPERTY_VALUES)');
      const type = p.plan.urn.entityType;
      for (const result of e.results) {
        const action = auditedWrite(type, result.aspect, result.value);
        if (action) this.audit.record({ action, actor: caller.actor, target, outcome: 'done' });
      }
      if (p.plan.deleteEntity || p.deletes.length > 0) {
        const existed = (deleted.get(i)?.length ?? 0) > 0;
        const deletes = p.plan.changes.filter((c) => c.op === 'delete');
        for (const [k, action] of this.auditedActions({ ...p, plan: { ...p.plan, changes: deletes } }).entries()) {
          // A delete of an aspect names the aspect; a delete of the entity is the entity.
          const aspect: Record<string, string> = p.plan.deleteEntity ? {} : { aspect: deletes[k]!.aspect };
          this.audit.record({ action, actor: caller.actor, target, outcome: 'done', detail: { ...aspect, existed } });
        }
      }
    });
  }

  /** Waits for the index unless asked not to; the receipt says whether the changes were indexed (docs/contract.md §12). */
  private async receiptOf(changeIds: readonly bigint[], options: WriteOptions): Promise<WriteReceipt> {
    if (changeIds.length === 0) return { indexStatus: 'indexed', lastChange: 0n };
    const indexStatus = options.async ? 'pending' : await this.deps.indexWaiter.waitFor(changeIds);
    return { indexStatus, lastChange: changeIds.reduce((a, b) => (b > a ? b : a)) };
  }
}

/**
 * The plan's entities in stages, in plan order: a stage is a run of entities of one kind
 * (deleting, changing the property registry, or plain writes), so that a later stage
 * sees what an earlier one did.
 */
function stagesOf(prepared: readonly Prepared[], indices: readonly number[]): number[][] {
  const kindOf = (p: Prepared): string => {
    if (p.plan.deleteEntity || p.deletes.length > 0) return 'delete';
    return p.write?.requests.some((r) => handlerFor(p.plan.urn.entityType, r.aspect).changesRegistry) ? 'registry' : 'plain';
  };
  const stages: number[][] = [];
  let last: string | undefined;
  for (const i of indices) {
    const kind = kindOf(prepared[i]!);
    if (kind !== last || kind === 'delete') stages.push([]);
    stages.at(-1)!.push(i);
    last = kind;
  }
  return stages;
}

/** An error about one item of a request, told with where the item was. */
export function inItem(err: ServiceError, label: { readonly at: string; readonly what?: string }): ServiceError {
  return relocated(err, err.field ? `${label.at}.${err.field}` : label.at, `${label.at}${label.what ? ` (${label.what})` : ''}: ${err.message}`);
}

/** The outcome of a plan of one entity, refused or not (a submit that was not atomic): its results, or its error thrown. */
export function onlyEntity(outcome: PlanOutcome): EntityOutcome {
  const e = outcome.entities[0];
  if (!e) throw new UnavailableError('the write answered no entity');
  if (e.status === 'refused' && e.error) throw e.error;
  return e;
}
