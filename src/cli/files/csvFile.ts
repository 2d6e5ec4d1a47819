/**
 * CSV as spreadsheets write it (RFC 4180): fields separated by commas, quoted with `"`
 * when they hold a comma, a quote or a line break (a quote inside doubled), records
 * ending in LF or CRLF. Each record keeps the line it starts on, for messages. Read in
 * pieces (CsvReader; csvFileStream.ts reads a file that way), so that a file need never be
 * held whole (issue #46 item 16: a 77 MB import held 3.0 GB). Cells are written with
 * formulas defused and read back with the defusing undone (domain/csvCells.ts). The
 * console shares this module, so it imports nothing of Node's.
 *
 * Hand-written rather than csv-parse: the library took 2.5 times as long on the same
 * file (docs/decisions.md, "CSV: our reader, not csv-parse").
 */
import { defuseFormula, restoreFormula } from '../../domain/csvCells.js';
import { CliError, EXIT } from '../errors.js';

export { joinValues, splitValues } from '../../domain/csvCells.js';

export interface CsvRecord {
  /** The line the record starts on, 1-based. */
  readonly line: number;
  readonly cells: string[];
}

const COMMA = 44;
const LF = 10;
const CR = 13;
const QUOTE = 34;

/** Reads records from text given in pieces: each piece's complete records come back at once, the rest waits for the next. */
export class CsvReader {
  private cells: string[] = [];
  private cell = '';
  private quoted = false;
  private quoteLine = 0;
  /** A `"` ended the last piece inside a quoted field: it closes the field unless the next piece starts with another. */
  private quoteAtEnd = false;
  /** A CR ended the last piece: an LF starting the next belongs to it. */
  private crAtEnd = false;
  private line = 1;
  private start = 1;
  private first = true;

  constructor(private readonly file: string) {}

  push(text: string): CsvRecord[] {
    const out: CsvRecord[] = [];
    const n = text.length;
    let i = 0;
    if (this.first && n > 0) {
      this.first = false;
      if (text.charCodeAt(0) === 0xfeff) i = 1;
    }
    while (i < n) {
      if (this.crAtEnd) {
        this.crAtEnd = false;
        if (text.charCodeAt(i) === LF) {
          i++;
          continue;
        }
      }
      if (this.quoteAtEnd) {
        this.quoteAtEnd = false;
        if (text.charCodeAt(i) === QUOTE) {
          this.cell += '"';
          i++;
          continue;
        }
        this.quoted = false;
      }
      if (this.quoted) {
        const q = text.indexOf('"', i);
        const end = q < 0 ? n : q;
        for (let nl = text.indexOf('\n', i); nl >= 0 && nl < end; nl = text.indexOf('\n', nl + 1)) this.line++;
        this.cell += text.slice(i, end);
        if (q < 0) break;
        if (q + 1 === n) {
          this.quoteAtEnd = true;
          break;
        }
        if (text.charCodeAt(q + 1) === QUOTE) {
          this.cell += '"';
          i = q + 2;
        } else {
          this.quoted = false;
          i = q + 1;
        }
        continue;
      }
      let j = i;
      for (; j < n; j++) {
        const c = text.charCodeAt(j);
        if (c === COMMA || c === LF || c === CR || c === QUOTE) break;
      }
      this.cell += text.slice(i, j);
      if (j === n) break;
      const c = text.charCodeAt(j);
      if (c === QUOTE) {
        if (this.cell === '') {
          this.quoted = true;
          this.quoteLine = this.line;
        } else this.cell += '"';
        i = j + 1;
      } else if (c === COMMA) {
        this.cells.push(this.cell);
        this.cell = '';
        i = j + 1;
      } else {
        this.endRecord(out);
        this.line++;
        this.start = this.line;
        i = j + 1;
        if (c === CR) {
          if (i === n) this.crAtEnd = true;
          else if (text.charCodeAt(i) === LF) i++;
        }
      }
    }
    return out;
  }

  /** The last record, once the text has ended; a quote left open is an error naming its line. */
  finish(): CsvRecord[] {
    if (this.quoteAtEnd) {
      this.quoteAtEnd = false;
      this.quoted = false;
    }
    if (this.quoted) throw new CliError(`${this.file}:${this.quoteLine}: a quoted field is never closed; add the closing "`, EXIT.usage);
    const out: CsvRecord[] = [];
    if (this.cell !== '' || this.cells.length > 0) this.endRecord(out);
    return out;
  }

  private endRecord(out: CsvRecord[]): void {
    this.cells.push(this.cell);
    if (!(this.cells.length === 1 && this.cells[0] === '')) out.push({ line: this.start, cells: this.cells.map(restoreFormula) });
    this.cells = [];
    this.cell = '';
  }
}

/** Parses the whole text (small inputs); a quote left open is an error naming its line. */
export function parseCsv(text: string, file: string): CsvRecord[] {
  const reader = new CsvReader(file);
  return [...reader.push(text), ...reader.finish()];
}

function quoteCell(cell: string): string {
  return /[",\r\n]/.test(cell) || cell !== cell.trim() ? `"${cell.replace(/"/g, '""')}"` : cell;
}

/** A record as a line of the file: each cell's formula defused, then quoted where needed. */
export function formatCsvRecord(cells: readonly string[]): string {
  return cells.map((c) => quoteCell(defuseFormula(c))).join(',');
}
