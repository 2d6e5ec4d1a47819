/**
 * The bulk edit job (docs/contract.md §13): one property's values set, added to or
 * removed on every entity of a selection (bulkSelection.ts: named, or a search resolved
 * page by page), in chunks, each entity's change through the one write path
 * (pipeline.ts) as its author wrote it: the history names the person who asked, the
 * interface they asked through, and the job (systemMetadata.runId).
 *
 * A chunk is written in one statement; when the rules refuse any entity in it, or it
 * cannot be written at all (a URN of an entity that does not exist, or of a type that
 * holds no structured properties), the chunk is written again entity by entity, so one
 * refused entity stops nobody else and is reported with the reason; the job still ends.
 * An entity is never half-changed: its change is one aspect write. The job records its
 * counts, how far it got and its refusals in one statement after each chunk and resumes
 * where it stopped: a chunk redone after a crash changes nothing twice, and the entities
 * its lost attempt changed (stamped with the run) count as changed, once (issue #46
 * item 15). Once done, the job keeps what describes it, not its values or URNs.
 */
import { editedValues, valuesOf, type ValueEdit } from '../../domain/bulkEdit.js';
import { ServiceError, UnavailableError } from '../../domain/errors.js';
import type { TypedValue } from '../../domain/typedValue.js';
import { parseUrn } from '../../domain/urn.js';
import type { AndFilter } from '../../domain/searchFilter.js';
import { LIMITS } from '../../domain/limits.js';
import { entitiesWrittenByRun } from '../../store/bulkEditRuns.js';
import { writeEntities, type EntityWrite, type WritePath } from '../aspects/pipeline.js';
import { selectChunk, selectionSize, type BulkSelection, type SelectionDeps } from './bulkSelection.js';
import type { JobContext, JobHandler } from './worker.js';

/** Entities written per statement. */
const CHUNK = 100;
/** Refusals kept in a result (the count goes on past it), and the characters of each reason. */
const REFUSALS_KEPT = 1000;
const REASON_LENGTH = 500;

export interface BulkAuthor {
  readonly actor: string;
  readonly via?: string | undefined;
}

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

export interface BulkEditDeps extends WritePath {
  readonly historyVersionsKept?: number;
  /** Called with the change ids a chunk wrote (the indexer is nudged). */
  readonly onChanges?: (ids: bigint[]) => void;
}

/** Applies (or, dryRun, decides without writing) the edit on the entities, in chunks. */
export async function applyValueEdit(deps: BulkEditDeps, urns: readonly string[], edit: ValueEdit, author: BulkAuthor, options: { dryRun: boolean; runId?: string }): Promise<BulkEditOutcome> {
  const out: BulkEditOutcome = { changed: [], unchanged: [], refused: [] };
  for (let i = 0; i < urns.length; i += CHUNK) merge(out, await applyChunk(deps, urns.slice(i, i + CHUNK), edit, author, options));
  return out;
}

async function applyChunk(deps: BulkEditDeps, urns: readonly string[], edit: ValueEdit, author: BulkAuthor, options: { dryRun: boolean; runId?: string }): Promise<BulkEditOutcome> {
  try {
    return await writeChunk(deps, urns, edit, author, options);
  } catch (err) {
    if (!refusal(err)) throw err;
    // A chunk of one (the last of a selection, or a selection of one) is refused like any other entity, not thrown.
    if (urns.length === 1) return { changed: [], unchanged: [], refused: [{ urn: urns[0]!, reason: reasonOf(err) }] };
  }
  const out: BulkEditOutcome = { changed: [], unchanged: [], refused: [] };
  for (const urn of urns) {
    try {
      merge(out, await writeChunk(deps, [urn], edit, author, options));
    } catch (err) {
      if (!refusal(err)) throw err;
      out.refused.push({ urn, reason: reasonOf(err) });
    }
  }
  return out;
}

/** An error about the entity (a rule, its absence, its type), not about the server: the entity is refused and the others go on. */
function refusal(err: unknown): err is ServiceError {
  return err instanceof ServiceError && !(err instanceof UnavailableError);
}

/** A refusal's reason as a result keeps it: bounded, since a result is read whole. */
function reasonOf(err: ServiceError): string {
  return err.message.length <= REASON_LENGTH ? err.message : `${err.message.slice(0, REASON_LENGTH)}…`;
}

/** One statement for the chunk: every entity's change, or (a rule refused one) none. */
async function writeChunk(deps: BulkEditDeps, urns: readonly string[], edit: ValueEdit, author: BulkAuthor, options: { dryRun: boolean; runId?: string }): Promise<BulkEditOutcome> {
  const before = new Map<string, readonly TypedValue[]>();
  const writes: EntityWrite[] = urns.map((urn) => ({
    urn: parseUrn(urn),
    requests: [
      {
        aspect: 'structuredProperties',
        compute: (current: unknown) => {
          before.set(urn, valuesOf(current, edit.propertyUrn));
          return editedValues(current, edit);
        },
        ...(options.runId ? { systemMetadata: { runId: options.runId } } : {}),
      },
    ],
  }));
  const outcomes = await writeEntities(deps, writes, author.actor, {
    via: author.via,
    historyVersionsKept: deps.historyVersionsKept,
    dryRun: options.dryRun,
    // Only structuredProperties aspects are written: no definition, so no property's values are dropped.
    valueDrops: 'allowed',
  });
  const ids = outcomes.flatMap((o) => o.changeIds);
  if (ids.length > 0) deps.onChanges?.(ids);
  const out: BulkEditOutcome = { changed: [], unchanged: [], refused: [] };
  urns.forEach((urn, i) => {
    const was = before.get(urn) ?? [];
    const now = valuesOf(outcomes[i]!.results[0]?.value, edit.propertyUrn);
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

/** The job's payload, as the bulk edit service queues it: the edit, its author, and the selection (bulkSelection.ts). */
export interface BulkEditPayload {
  readonly propertyUrn: string;
  readonly operation: ValueEdit['operation'];
  readonly values: TypedValue[];
  readonly actor: string;
  readonly via: string | null;
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
    const author = { actor: p.actor, via: p.via ?? undefined };
    const selection = selectionOf(p, ctx.job.createdOn);
    const runId = `bulk-edit-${ctx.job.id}`;
    let cursor = (ctx.job.cursor as BulkCursor | null) ?? { next: null, end: false, total: await selectionSize(deps, selection) };
    let result = resultOf(ctx.job.result);
    let done = ctx.job.cursor === null ? 0 : ctx.job.done;
    await ctx.progress({ total: cursor.total, done, cursor });
    while (!cursor.end) {
      if (ctx.stopping()) return 'yield';
      const chunk = await selectChunk(deps, selection, cursor.next, CHUNK);
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
