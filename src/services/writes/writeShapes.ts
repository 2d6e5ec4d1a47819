/**
 * The one write entry point's contract (writeService.ts implements it): what `submit`
 * takes besides the plan, and what became of each entity.
 */
import type { ServiceError } from '../../domain/errors.js';
import type { ValueImpact } from '../../domain/valueImpact.js';
import type { WritePlan } from '../../domain/writes/plan.js';
import type { AspectResult } from '../../domain/writes/writeDecision.js';
import type { Caller, WriteOptions } from '../caller.js';
import type { Written } from '../writeReceipt.js';

export interface SubmitOptions extends WriteOptions {
  /** All or nothing (default true); false: each entity on its own, refusals answered in the outcome. */
  readonly atomic?: boolean;
  /** Decide and check everything, write nothing. */
  readonly dryRun?: boolean;
  /** Leave out entities that do not exist instead of refusing them (results describing entities). */
  readonly skipMissing?: boolean;
}

/** What became of one entity of a plan. */
export interface EntityOutcome {
  readonly urn: string;
  /** written: something changed (a dry run: would change); unchanged: nothing to change; refused (atomic: false only); skipped (skipMissing). */
  readonly status: 'written' | 'unchanged' | 'refused' | 'skipped';
  /** Per write change of the plan's entity, in order (deletes have none): what the caller is answered. */
  readonly results: readonly AspectResult[];
  readonly error?: ServiceError;
  /** Properties whose stored values the write drops. */
  readonly valuesDropped: readonly string[];
  /** What the decisions found beside the values (a migration's effect), by aspect. */
  readonly reports: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
}

export interface PlanOutcome {
  readonly entities: readonly EntityOutcome[];
}

export interface WriteService {
  /** Authorizes, decides and applies a plan; waits for the index unless `async`. */
  submit(caller: Caller, plan: WritePlan, options?: SubmitOptions): Promise<Written<PlanOutcome>>;
  /** The plan decided and checked as submit would, nothing written, with what it would drop of stored values. */
  preview(caller: Caller, plan: WritePlan): Promise<{ outcome: PlanOutcome; impact: ValueImpact }>;
}
