/**
 * CSV as spreadsheets write it (RFC 4180): fields separated by commas, quoted with `"`
 * when they hold a comma, a quote or a line break (a quote inside doubled), records
 * ending in LF or CRLF. Each record keeps the line it starts on, for messages. A
 * property with several values holds them in one cell, separated by `|` (a `|` or `\`
 * inside a value is escaped with `\`).
 */
import { CliError, EXIT } from '../errors.js';

export interface CsvRecord {
  /** The line the record starts on, 1-based. */
  readonly line: number;
  readonly cells: string[];
}

/** Parses the text; a quote left open is an error naming its line. */
export function parseCsv(text: string, file: string): CsvRecord[] {
  const records: CsvRecord[] = [];
  let cells: string[] = [];
  let cell = '';
  let quoted = false;
  let line = 1;
  let start = 1;
  let quoteLine = 0;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const endRecord = () => {
    cells.push(cell);
    if (!(cells.length === 1 && cells[0] === '')) records.push({ line: start, cells });
    cells = [];
    cell = '';
  };
  for (; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else {
        if (c === '\n') line++;
        cell += c;
      }
      continue;
    }
    if (c === '"' && cell === '') {
      quoted = true;
      quoteLine = line;
    } else if (c === ',') {
      cells.push(cell);
      cell = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      endRecord();
      line++;
      start = line;
    } else cell += c;
  }
  if (quoted) throw new CliError(`${file}:${quoteLine}: a quoted field is never closed; add the closing "`, EXIT.usage);
  if (cell !== '' || cells.length > 0) endRecord();
  return records;
}

function quoteCell(cell: string): string {
  return /[",\r\n]/.test(cell) || cell !== cell.trim() ? `"${cell.replace(/"/g, '""')}"` : cell;
}

export function formatCsvRecord(cells: readonly string[]): string {
  return cells.map(quoteCell).join(',');
}

/** Several values in one cell: `a|b`, with `|` and `\` inside a value escaped. */
export function joinValues(values: readonly string[]): string {
  return values.map((v) => v.replace(/\\/g, '\\\\').replace(/\|/g, '\\|')).join('|');
}

/** The values in a cell; an empty cell holds none. */
export function splitValues(cell: string): string[] {
  if (cell === '') return [];
  const out: string[] = [];
  let current = '';
  for (let i = 0; i < cell.length; i++) {
    const c = cell[i]!;
    if (c === '\\' && i + 1 < cell.length) current += cell[++i];
    else if (c === '|') {
      out.push(current);
      current = '';
    } else current += c;
  }
  out.push(current);
  return out;
}
