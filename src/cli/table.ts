/** Plain-text tables: columns padded to their widest cell, the last column never padded. */
import { printLine, type OutStream } from './terminal.js';

export function printTable(out: OutStream, header: readonly string[] | undefined, rows: ReadonlyArray<readonly string[]>): void {
  const width = Math.max(header?.length ?? 0, ...rows.map((r) => r.length));
  // Columns empty on every row (e.g. no platform on any hit) are left out rather than shown as gaps.
  const columns = Array.from({ length: width }, (_, i) => i).filter((i) => rows.some((r) => (r[i] ?? '') !== ''));
  const all = header ? [header, ...rows] : rows;
  const widths = columns.map((c) => Math.max(...all.map((r) => (r[c] ?? '').length)));
  for (const row of all) {
    const cells = columns.map((c, i) => (i === columns.length - 1 ? (row[c] ?? '') : (row[c] ?? '').padEnd(widths[i]!)));
    printLine(out, cells.join('  ').trimEnd());
  }
}
