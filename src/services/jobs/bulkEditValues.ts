/**
 * The bulk edit job (docs/contract.md §13): one property's values set, added to or
 * removed on every entity of a selection (bulkSelection.ts: named, or a search resolved
 * page by page), in chunks, each chunk one plan through the one write entry point
 * (writes/writeService.ts) as its author: the history names the person who asked, the
 * interface they asked through, and the job (systemMetadata.runId), and each entity is
 * authorized as the author would be.
 *
 * A chunk is written in one statement, each entity on its own: one refused entity (by a
 * rule, by the author's rights, or a URN of an entity that does not exist or of a type
 * that holds no structured properties) stops nobody else and is reported with the
 * reason; the job still ends. An entity is never half-changed: its change is one aspect
 * write. The job records its counts, how far it got and its refusals in one statement
 * after each chunk and resumes where it stopped: a chunk redone after a crash changes
 * nothing twice, and the entities its lost attempt changed (stamped with the run) count
 * as changed, once (issue #46 item 15). Once done, the job keeps what describes it, not
 * its values or URNs.
 */
import { ASPECT } from '../../domain/aspects/index.js';
import { editedValues, valuesOf, type ValueEdit } from '../../domain/bulkEdit.js';
import { ServiceError } from '../../domain/errors.js';
import type { TypedValue } from '../../domain/typedValue.js';
import { parseUrn } from '../../domain/urn.js';
import type { EntityPlan } from '../../domain/writes/plan.js';
import type { Caller, Scope } from '../caller.js';
import type { WriteService } from '../writes/writeService.js';
import type { AndFilter } from '../../domain/searchFilter.js';
import { LIMITS } from '../../domain/limits.js';
import { entitiesWrittenByRun } from '../../store/bulkEditRuns.js';
import { selectChunk, selectionSize, type BulkSelection, type SelectionDeps } from './bulkSelection.js';
import type { JobContext, JobHandler } from './worker.js';

/** Entities written per statement. */
const CHUNK = 100;
/** Refusals kept in a result (the count goes on past it), and the characters of each reason. */
const REFUSALS_KEPT = 1000;
const REASON_LENGTH = 500;

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
            aspect: ASPECT.structuredProperties,
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
      out.refused.push({ urn, reason: bounded(err.message) });
    }
  }
  if (entities.length === 0) return out;
  const { result, receipt } = await deps.writes.submit(author, { entities }, { atomic: false, dryRun: options.dryRun, async: true });
  if (receipt.lastChange > 0n) deps.onChanges?.();
  result.entities.forEach((e, i) => {
    const urn = planned[i]!;
    if (e.status === 'refused') {
      out.refused.push({ urn, reason: bounded(e.error?.message ?? 'refused') });
      return;
    }
    const was = before.get(urn) ?? [];
    const now = valuesOf(e.results[0]?.value, edit.propertyUrn);
    if (sameList(was, now)) out.unchanged.push(urn);
    else out.changed.push({ urn, before: was, after: now });
  });
  return out;
}

/** A refusal's reason as a result keeps it: bounded, since a result is read whole. */
function bounded(reason: string): string {
  return reason.length <= REASON_LENGTH ? reason : `${reason.slice(0, REASON_LENGTH)}…`;
}

function sameList(a: readonly TypedValue[], b: readonly TypedValue[]): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function merge(into: BulkEditOutcome, more: BulkEditOutcome): void {
  into.changed.push(...more.changed);
  into.unchanged.push(...more.unchanged);
  into.refused.push(...more.refused);
}

/** The job's payload, as the bulk edit service queues it: the edit, its author, and the selection (bulkSelection.ts). */
export interface BulkEditPayload {
  readonly propertyUrn: string;
  readonly operation: ValueEdit['operation'];
  readonly values: TypedValue[];
  readonly actor: string;
  /** The author's scope when they asked (jobs queued before it was kept: write, what queuing needed). */
  readonly scope?: Scope;
  readonly via: string | null;
  /** The author's groups when they asked (the policies grant to groups); absent in jobs queued before policies: none. */
  readonly groups?: readonly string[];
  /** Named entities, and when the selection was fixed (ISO, database clock); or null for a search. */
  readonly urns: string[] | null;
  readonly selectedAt: string | null;
  /** A search: the query, the entity types it searches and its filters. */
  readonly query: string | null;
  readonly types: string[] | null;
  readonly orFilters: AndFilter[] | null;
  /** Entities the selection held when the edit was accepted. */
  readonly entities: number;
}

/** What a finished job keeps of its payload: what describes it, not the values or the entities named. */
function describing(p: BulkEditPayload): Record<string, unknown> {
  return { propertyUrn: p.propertyUrn, operation: p.operation, valueCount: p.values.length, actor: p.actor, via: p.via, query: p.query, types: p.types, entities: p.entities };
}

/** A job's result: counts, and the entities left as they were with their reasons. */
export interface BulkEditResult {
  readonly changed: number;
  readonly unchanged: number;
  /** Entities left as they were: refused by the rules, or skipped (below). */
  readonly refusedCount: number;
  /** Of those, the entities changed since the selection that no longer belonged to it. */
  readonly skipped: number;
  /** Entities changed by someone else since the selection was fixed, and edited on their values as they were at their turn. */
  readonly changedSinceSelection: number;
  /** The first REFUSALS_KEPT entities left as they were, each with the reason. */
  readonly refused: Array<{ urn: string; reason: string }>;
}

export function resultOf(value: unknown): BulkEditResult {
  const r = (value ?? {}) as Partial<BulkEditResult>;
  return { changed: r.changed ?? 0, unchanged: r.unchanged ?? 0, refusedCount: r.refusedCount ?? 0, skipped: r.skipped ?? 0, changedSinceSelection: r.changedSinceSelection ?? 0, refused: r.refused ?? [] };
}

/** How far the job got: where the next chunk starts (null: at the beginning), whether none is left, and the selection's size when the job started. */
interface BulkCursor {
  readonly next: string | null;
  readonly end: boolean;
  readonly total: number;
}

/** The selection a payload names (jobs queued before selections by query named `urns` alone). */
function selectionOf(p: BulkEditPayload, createdOn: Date): BulkSelection {
  if (p.urns) return { urns: p.urns, selectedAt: p.selectedAt ?? createdOn.toISOString() };
  return { query: p.query ?? '*', types: p.types ?? [], orFilters: p.orFilters ?? null };
}

export interface BulkEditJobDeps extends BulkEditDeps, SelectionDeps {}

/** The worker's handler for BULK_EDIT_VALUES jobs. */
export function bulkEditHandler(deps: BulkEditJobDeps): JobHandler {
  return async (ctx: JobContext) => {
    const p = ctx.job.payload as unknown as BulkEditPayload;
    const edit: ValueEdit = { propertyUrn: p.propertyUrn, operation: p.operation, values: p.values };
    const author: Caller = { actor: p.actor, scope: p.scope ?? 'write', ...(p.via ? { via: p.via as Caller['via'] } : {}), ...(p.groups && p.groups.length > 0 ? { groups: p.groups } : {}) };
    const selection = selectionOf(p, ctx.job.createdOn);
    const runId = `bulk-edit-${ctx.job.id}`;
    let cursor = (ctx.job.cursor as BulkCursor | null) ?? { next: null, end: false, total: await selectionSize(deps, selection, author) };
    let result = resultOf(ctx.job.result);
    let done = ctx.job.cursor === null ? 0 : ctx.job.done;
    await ctx.progress({ total: cursor.total, done, cursor });
    while (!cursor.end) {
      if (ctx.stopping()) return 'yield';
      const chunk = await selectChunk(deps, selection, cursor.next, CHUNK, author);
      // The selection grew past the bulk limit since it was accepted: the rest is left as it is, and said so.
      const room = Math.max(0, LIMITS.bulkEditEntities - done);
      const beyond = chunk.urns.slice(room).map((urn) => ({ urn, reason: `beyond the bulk limit of ${LIMITS.bulkEditEntities} entities, which the selection grew past since it was accepted` }));
      const urns = chunk.urns.slice(0, room);
      const outcome = urns.length === 0 ? { changed: [], unchanged: [], refused: [] } : await applyChunk(deps, urns, edit, author, { dryRun: false, runId });
      // A chunk redone after a crash: entities its lost attempt changed are found unchanged now, stamped with this run.
      const byRun = outcome.unchanged.length === 0 ? new Set<string>() : await entitiesWrittenByRun(deps.db, outcome.unchanged, runId);
      const left = [...chunk.skipped, ...beyond, ...outcome.refused];
      result = {
        changed: result.changed + outcome.changed.length + byRun.size,
        unchanged: result.unchanged + outcome.unchanged.length - byRun.size,
        refusedCount: result.refusedCount + left.length,
        skipped: result.skipped + chunk.skipped.length + beyond.length,
        changedSinceSelection: result.changedSinceSelection + chunk.changedSinceSelection,
        refused: [...result.refused, ...left].slice(0, REFUSALS_KEPT),
      };
      done += urns.length + left.length - outcome.refused.length;
      cursor = { next: chunk.next, end: beyond.length > 0 || chunk.next === null, total: Math.max(cursor.total, done) };
      // One statement: the counts, the result and where to go on from agree whenever the job stops.
      await ctx.progress({ total: cursor.total, done, cursor, result: { ...result } });
    }
    await ctx.progress({ total: done, done, payload: describing(p) });
    return 'done';
  };
}
