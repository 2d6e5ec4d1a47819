/**
 * The bulk edit job (docs/contract.md §13): one property's values set, added to or
 * removed on every entity a search selected, in chunks, each entity's change through
 * the one write path (pipeline.ts) as its author wrote it: the history names the person
 * who asked, the interface they asked through, and the job (systemMetadata.runId).
 *
 * A chunk is written in one statement; when the rules refuse any entity in it, the
 * chunk is written again entity by entity, so one refused entity stops nobody else and
 * is reported with the reason. An entity is never half-changed: its change is one
 * aspect write. The job records its counts after each chunk and resumes where it
 * stopped (every operation is idempotent, so a chunk redone after a crash changes
 * nothing twice).
 */
import { editedValues, valuesOf, type ValueEdit } from '../../domain/bulkEdit.js';
import { ServiceError, UnavailableError } from '../../domain/errors.js';
import type { TypedValue } from '../../domain/typedValue.js';
import { parseUrn } from '../../domain/urn.js';
import { writeEntities, type EntityWrite, type WritePath } from '../aspects/pipeline.js';
import type { JobContext, JobHandler } from './worker.js';

/** Entities written per statement. */
const CHUNK = 100;
/** Refusals kept in a result (the count goes on past it). */
const REFUSALS_KEPT = 1000;

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
    if (!(err instanceof ServiceError) || err instanceof UnavailableError || urns.length === 1) throw err;
  }
  const out: BulkEditOutcome = { changed: [], unchanged: [], refused: [] };
  for (const urn of urns) {
    try {
      merge(out, await writeChunk(deps, [urn], edit, author, options));
    } catch (err) {
      if (!(err instanceof ServiceError) || err instanceof UnavailableError) throw err;
      out.refused.push({ urn, reason: err.message });
    }
  }
  return out;
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

/** The job's payload, as the bulk edit service queues it. */
export interface BulkEditPayload {
  readonly propertyUrn: string;
  readonly operation: ValueEdit['operation'];
  readonly values: TypedValue[];
  readonly urns: string[];
  readonly actor: string;
  readonly via: string | null;
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
    const author = { actor: p.actor, via: p.via ?? undefined };
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
