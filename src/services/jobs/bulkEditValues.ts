/**
 * The bulk edit job (docs/contract.md §13): one property's values set, added to or
 * removed on every entity a search selected, in chunks, each chunk one plan through the
 * one write entry point (writes/writeService.ts) as its author: the history names the
 * person who asked, the interface they asked through, and the job (systemMetadata.runId),
 * and each entity is authorized as the author would be.
 *
 * A chunk is written in one statement, each entity on its own: one refused entity (by a
 * rule, or by the author's rights) stops nobody else and is reported with the reason. An
 * entity is never half-changed: its change is one aspect write. The job records its
 * counts after each chunk and resumes where it stopped (every operation is idempotent,
 * so a chunk redone after a crash changes nothing twice).
 */
import { editedValues, valuesOf, type ValueEdit } from '../../domain/bulkEdit.js';
import { ServiceError } from '../../domain/errors.js';
import type { TypedValue } from '../../domain/typedValue.js';
import { parseUrn } from '../../domain/urn.js';
import type { EntityPlan } from '../../domain/writes/plan.js';
import type { Caller, Scope } from '../caller.js';
import type { WriteService } from '../writes/writeService.js';
import type { JobContext, JobHandler } from './worker.js';

/** Entities written per statement. */
const CHUNK = 100;
/** Refusals kept in a result (the count goes on past it). */
const REFUSALS_KEPT = 1000;

export interface EntityEdit {
  readonly urn: string;
  readonly before: readonly TypedValue[];
  readonly after: readonly TypedValue[];
}

export interface BulkEditOutcome {
  /** Entities whose values change (changed, for a run; would change, for a dry run). */
  readonly changed: EntityEdit[];
  readonly unchanged: string[];
  readonly refused: Array<{ urn: string; reason: string }>;
}

export interface BulkEditDeps {
  /** The one write entry point: each chunk is one plan, each entity decided and authorized on its own. */
  readonly writes: WriteService;
  /** Called when a chunk wrote something (the indexer is nudged). */
  readonly onChanges?: () => void;
}

/** Applies (or, dryRun, decides without writing) the edit on the entities, in chunks, as `author`. */
export async function applyValueEdit(deps: BulkEditDeps, urns: readonly string[], edit: ValueEdit, author: Caller, options: { dryRun: boolean; runId?: string }): Promise<BulkEditOutcome> {
  const out: BulkEditOutcome = { changed: [], unchanged: [], refused: [] };
  for (let i = 0; i < urns.length; i += CHUNK) merge(out, await applyChunk(deps, urns.slice(i, i + CHUNK), edit, author, options));
  return out;
}

/**
 * One plan for the chunk, each entity on its own (not atomic): one statement writes every
 * entity the rules and the author's rights allow; a refused one is reported with its reason.
 */
async function applyChunk(deps: BulkEditDeps, urns: readonly string[], edit: ValueEdit, author: Caller, options: { dryRun: boolean; runId?: string }): Promise<BulkEditOutcome> {
  const out: BulkEditOutcome = { changed: [], unchanged: [], refused: [] };
  const before = new Map<string, readonly TypedValue[]>();
  const entities: EntityPlan[] = [];
  const planned: string[] = [];
  for (const urn of urns) {
    try {
      const parsed = parseUrn(urn);
      entities.push({
        urn: parsed,
        changes: [
          {
            op: 'compute',
            aspect: 'structuredProperties',
            compute: (current: unknown) => {
              before.set(urn, valuesOf(current, edit.propertyUrn));
              return editedValues(current, edit);
            },
            ...(options.runId ? { systemMetadata: { runId: options.runId } } : {}),
          },
        ],
      });
      planned.push(urn);
    } catch (err) {
      if (!(err instanceof ServiceError)) throw err;
      out.refused.push({ urn, reason: err.message });
    }
  }
  if (entities.length === 0) return out;
  const { result, receipt } = await deps.writes.submit(author, { entities }, { atomic: false, dryRun: options.dryRun, async: true });
  if (receipt.lastChange > 0n) deps.onChanges?.();
  result.entities.forEach((e, i) => {
    const urn = planned[i]!;
    if (e.status === 'refused') {
      out.refused.push({ urn, reason: e.error?.message ?? 'refused' });
      return;
    }
    const was = before.get(urn) ?? [];
    const now = valuesOf(e.results[0]?.value, edit.propertyUrn);
    if (sameList(was, now)) out.unchanged.push(urn);
    else out.changed.push({ urn, before: was, after: now });
  });
  return out;
}

function sameList(a: readonly TypedValue[], b: readonly TypedValue[]): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function merge(into: BulkEditOutcome, more: BulkEditOutcome): void {
  into.changed.push(...more.changed);
  into.unchanged.push(...more.unchanged);
  into.refused.push(...more.refused);
}

/** The job's payload, as the bulk edit service queues it. */
export interface BulkEditPayload {
  readonly propertyUrn: string;
  readonly operation: ValueEdit['operation'];
  readonly values: TypedValue[];
  readonly urns: string[];
  readonly actor: string;
  /** The author's scope when they asked (jobs queued before it was kept: write, what queuing needed). */
  readonly scope?: Scope;
  readonly via: string | null;
  /** The author's groups when they asked (the policies grant to groups); absent in jobs queued before policies: none. */
  readonly groups?: readonly string[];
  /** The selection as asked for, for people reading the job. */
  readonly query: string | null;
}

/** A job's result: counts, and the refused entities with their reasons. */
export interface BulkEditResult {
  readonly changed: number;
  readonly unchanged: number;
  readonly refusedCount: number;
  readonly refused: Array<{ urn: string; reason: string }>;
}

function resultOf(value: unknown): BulkEditResult {
  const r = (value ?? {}) as Partial<BulkEditResult>;
  return { changed: r.changed ?? 0, unchanged: r.unchanged ?? 0, refusedCount: r.refusedCount ?? 0, refused: r.refused ?? [] };
}

/** The worker's handler for BULK_EDIT_VALUES jobs. */
export function bulkEditHandler(deps: BulkEditDeps): JobHandler {
  return async (ctx: JobContext) => {
    const p = ctx.job.payload as unknown as BulkEditPayload;
    const edit: ValueEdit = { propertyUrn: p.propertyUrn, operation: p.operation, values: p.values };
    const author: Caller = { actor: p.actor, scope: p.scope ?? 'write', ...(p.via ? { via: p.via as Caller['via'] } : {}), ...(p.groups && p.groups.length > 0 ? { groups: p.groups } : {}) };
    const total = p.urns.length;
    let done = ctx.job.total === null ? 0 : ctx.job.done;
    let result = resultOf(ctx.job.result);
    await ctx.progress({ total, done });
    while (done < total) {
      if (ctx.stopping()) return 'yield';
      const chunk = p.urns.slice(done, done + CHUNK);
      const outcome = await applyChunk(deps, chunk, edit, author, { dryRun: false, runId: `bulk-edit-${ctx.job.id}` });
      result = {
        changed: result.changed + outcome.changed.length,
        unchanged: result.unchanged + outcome.unchanged.length,
        refusedCount: result.refusedCount + outcome.refused.length,
        refused: [...result.refused, ...outcome.refused].slice(0, REFUSALS_KEPT),
      };
      done += chunk.length;
      await ctx.saveResult({ ...result });
      await ctx.progress({ total, done });
    }
    return 'done';
  };
}
