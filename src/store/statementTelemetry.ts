/**
 * Every database statement is timed here, on whichever of the two paths it runs
 * (Prisma, or straight on the pg driver: database.ts wraps both), into
 * `propgraph_db_statement_duration_seconds`, and, while tracing is on, runs in a
 * client span carrying its SQL text. The time is the caller's: waiting for a pooled
 * connection included (`propgraph_db_pool_connections{state="waiting"}` tells them apart).
 */
import { dbStatementDuration } from '../telemetry/metrics.js';
import { inSpan, inTrace, SpanKind } from '../telemetry/tracing.js';

export type StatementPath = 'prisma' | 'driver';

/** Statement text kept on a span: enough to recognise it, bounded however large the statement. */
const MAX_SPAN_SQL = 2000;

const labelsByPath: Record<StatementPath, Map<string, { path: StatementPath; operation: string }>> = { prisma: new Map(), driver: new Map() };

/** One label object per operation, made once (operations are a fixed set: Prisma's, and our statements' names). */
function labelsOf(path: StatementPath, operation: string): { path: StatementPath; operation: string } {
  const known = labelsByPath[path];
  let labels = known.get(operation);
  if (labels === undefined) {
    labels = { path, operation };
    known.set(operation, labels);
  }
  return labels;
}

export async function observeStatement<T>(path: StatementPath, operation: string, sqlText: string | undefined, run: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    if (!inTrace()) return await run();
    const attributes = { 'db.system': 'postgresql', 'db.operation.name': operation, ...(sqlText ? { 'db.query.text': sqlText.slice(0, MAX_SPAN_SQL) } : {}) };
    return await inSpan(`${path === 'prisma' ? 'prisma' : 'pg'} ${operation}`, SpanKind.CLIENT, attributes, () => run());
  } finally {
    dbStatementDuration.observe(labelsOf(path, operation), (performance.now() - started) / 1000);
  }
}

/** The SQL of a Prisma raw query's arguments (a template's strings, or the text given), for its span. */
export function rawQueryText(args: unknown): string | undefined {
  if (typeof args !== 'object' || args === null) return undefined;
  const candidate = args as { sql?: unknown; strings?: unknown; 0?: unknown };
  if (typeof candidate.sql === 'string') return candidate.sql;
  if (Array.isArray(candidate.strings)) return (candidate.strings as unknown[]).join('?');
  if (Array.isArray(args) && typeof args[0] === 'string') return args[0];
  if (Array.isArray(args) && Array.isArray(args[0])) return (args[0] as unknown[]).join('?');
  return undefined;
}
