/**
 * The audit trail: one log line for every act an operator is asked about later (a
 * definition changed, something deleted, a token made or revoked, a job run), written
 * where the act is decided, in the services, because only there are both the actor and
 * the outcome known. Each line names the actor and whether it is a person, a machine or
 * the system (domain/principal.ts), the act, its target and its outcome, under the key
 * `audit`, and says the same in its message:
 *
 *   audit entity.hardDelete urn:li:structuredProperty:io.x by urn:li:corpuser:__service_ops (machine): done
 *
 * Targets and details quoted from input are cut at the 200 characters error messages
 * quote (domain/inputLimits.ts), so a line's size is bounded whatever a client sends.
 */
import type { AuditAction } from '../domain/auditActions.js';
import { ServiceError } from '../domain/errors.js';
import { clipInput } from '../domain/inputLimits.js';
import { principalKindOf } from '../domain/principal.js';
import type { Logger } from '../platform/logger.js';

export type { AuditAction };

/** done: it happened; refused: a rule or a precondition stopped it (nothing changed); failed: it broke. */
export type AuditOutcome = 'done' | 'refused' | 'failed' | 'yielded';

export interface AuditEvent {
  readonly action: AuditAction;
  /** Who: the caller's principal, or the system for background work. */
  readonly actor: string;
  /** What: a URN, a token id, a job. */
  readonly target: string;
  readonly outcome: AuditOutcome;
  /** A few facts more (an error code, a job kind, counts); strings are cut like the target. */
  readonly detail?: Readonly<Record<string, string | number | boolean>>;
}

export class AuditTrail {
  constructor(private readonly log: Logger) {}

  record(event: AuditEvent): void {
    const actor = clipInput(event.actor);
    const target = clipInput(event.target);
    const detail = event.detail ? boundedDetail(event.detail) : undefined;
    const actorType = principalKindOf(event.actor);
    const fields = { action: event.action, actor, actorType, target, outcome: event.outcome, ...(detail ? { detail } : {}) };
    const reason = typeof detail?.code === 'string' ? ` (${detail.code})` : '';
    this.log.info({ audit: fields }, `audit ${event.action} ${target} by ${actor} (${actorType}): ${event.outcome}${reason}`);
  }

  /**
   * Runs an act and records it: done when it returns, refused when it throws one of
   * the service's typed errors (its code in the detail), failed otherwise; the error is
   * thrown on unchanged.
   */
  async around<T>(event: Omit<AuditEvent, 'outcome'>, act: () => Promise<T>, detailOf?: (result: T) => AuditEvent['detail']): Promise<T> {
    let result: T;
    try {
      result = await act();
    } catch (err) {
      this.record({ ...event, ...failure(err, event.detail) });
      throw err;
    }
    const more = detailOf?.(result);
    this.record({ ...event, outcome: 'done', ...(more || event.detail ? { detail: { ...event.detail, ...more } } : {}) });
    return result;
  }
}

/** How an act that threw is recorded. */
export function failure(err: unknown, detail?: AuditEvent['detail']): Pick<AuditEvent, 'outcome' | 'detail'> {
  if (err instanceof ServiceError) return { outcome: err.code === 'UNAVAILABLE' ? 'failed' : 'refused', detail: { ...detail, code: err.code } };
  return { outcome: 'failed', detail: { ...detail, error: err instanceof Error ? err.message : String(err) } };
}

const MAX_DETAIL_KEYS = 8;

function boundedDetail(detail: Readonly<Record<string, string | number | boolean>>): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const [key, value] of Object.entries(detail).slice(0, MAX_DETAIL_KEYS)) out[key] = typeof value === 'string' ? clipInput(value) : value;
  return out;
}
