/**
 * Whether an error means the database could not be reached (or the connection broke),
 * as opposed to a refused statement: callers answer 503 for these, never 500.
 */

// pg's own messages included: a pooled client whose connection broke mid-transaction
// answers "Client has encountered a connection error and is not queryable". Over the
// embedded cluster's Unix socket a killed server shows as EPIPE, and a restarting one as
// a missing socket file (connect ENOENT).
const CONNECTION = /ECONNREFUSED|ECONNRESET|EPIPE|connect ENOENT|Connection terminated|terminating connection|connection closed|Can't reach database|the database system is (starting up|shutting down)|57P01|57P03|Closed|timeout exceeded when trying to connect|is not queryable/i;

export function isConnectionError(err: unknown): boolean {
  return err instanceof Error && CONNECTION.test(`${err.message} ${(err as { code?: string }).code ?? ''} ${String((err as { cause?: unknown }).cause ?? '')}`);
}
