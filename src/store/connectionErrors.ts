/**
 * When the database is out of reach, as opposed to a statement it refused: callers
 * answer 503 for these, never 500. Told apart by what the driver reports, never by
 * message text: a connection that could not be made, a checked-out client that
 * emitted 'error' (its socket failed or closed: driver.ts watches for it), or one of
 * PostgreSQL's SQLSTATEs for a session it ended.
 */
import pg from 'pg';
import { UnavailableError } from '../domain/errors.js';

/** SQLSTATEs of a session PostgreSQL ended: class 08 (connection exception), administrator or crash shutdown, starting up or shutting down. */
const SESSION_ENDED = new Set(['57P01', '57P02', '57P03']);

/** Whether PostgreSQL answered that it ended the session (or will not start one now). */
export function isSessionEnded(err: unknown): boolean {
  return err instanceof pg.DatabaseError && typeof err.code === 'string' && (err.code.startsWith('08') || SESSION_ENDED.has(err.code));
}

/** The error every caller sees while the database is out of reach. */
export function databaseUnreachable(): UnavailableError {
  return new UnavailableError('The database is not reachable right now; retry later');
}
