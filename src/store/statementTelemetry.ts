/**
 * Every database statement is timed here (driver.ts runs each one through it), into
 * `propgraph_db_statement_duration_seconds` by operation, and, while tracing is on, runs
 * in a client span carrying its SQL text. The time is the caller's: waiting for a
 * pooled connection included (`propgraph_db_pool_connections{state="waiting"}` tells
 * them apart).
 */
import { dbStatementDuration } from '../telemetry/metrics.js';
import { inSpan, inTrace, SpanKind } from '../telemetry/tracing.js';
import type { Statement } from './sql.js';

/** Statement text kept on a span: enough to recognise it, bounded however large the statement. */
const MAX_SPAN_SQL = 2000;

const labelsByOperation = new Map<string, { operation: string }>();

/** One label object per operation, made once (operations are a small set: statement names and SQL's leading keywords). */
function labelsOf(operation: string): { operation: string } {
  let labels = labelsByOperation.get(operation);
  if (labels === undefined) {
    labels = { operation };
    labelsByOperation.set(operation, labels);
  }
  return labels;
}

/**
 * A statement's operation label: its own name (`read_entity_page`, `registry_epoch`),
 * the label it was given (`write`, the write path's statement), or else its leading SQL
 * keyword (`select`, `insert`, `with`, `begin`, ...).
 */
export function operationOf(statement: Statement): string {
  if (statement.operation) return statement.operation;
  if (statement.name) return statement.name;
  return /^\s*([A-Za-z]+)/.exec(statement.text)?.[1]?.toLowerCase() ?? 'statement';
}

export async function observeStatement<T>(statement: Statement, run: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const operation = operationOf(statement);
  try {
    if (!inTrace()) return await run();
    const attributes = { 'db.system': 'postgresql', 'db.operation.name': operation, 'db.query.text': statement.text.slice(0, MAX_SPAN_SQL) };
    return await inSpan(`pg ${operation}`, SpanKind.CLIENT, attributes, () => run());
  } finally {
    dbStatementDuration.observe(labelsOf(operation), (performance.now() - started) / 1000);
  }
}
