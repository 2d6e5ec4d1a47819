/**
 * What PostgreSQL said when it refused a statement: its SQLSTATE and the constraint at
 * fault, read from the driver's error fields, never from its message text.
 */
import pg from 'pg';

export interface StatementRefusal {
  /** PostgreSQL's SQLSTATE, e.g. 23505 (unique violation), 40P01 (deadlock). */
  readonly sqlState: string;
  /** The constraint (or unique index) at fault, where PostgreSQL names one. */
  readonly constraint: string | undefined;
}

/** The refusal the driver reports (pg's DatabaseError); undefined for any other error. */
export function refusalOf(err: unknown): StatementRefusal | undefined {
  if (err instanceof pg.DatabaseError && typeof err.code === 'string') return { sqlState: err.code, constraint: err.constraint };
  return undefined;
}

/** SQLSTATEs of a transaction PostgreSQL aborted for a deadlock or serialization failure: running it again is the cure. */
const RETRYABLE = new Set(['40P01', '40001']);

export function isRetryableConflict(err: unknown): boolean {
  return RETRYABLE.has(refusalOf(err)?.sqlState ?? '');
}

/** A unique violation (23505) of the named constraint. */
export function isUniqueViolation(err: unknown, constraint: string): boolean {
  const refusal = refusalOf(err);
  return refusal?.sqlState === '23505' && refusal.constraint === constraint;
}
