/**
 * `propgraph values import -f <csv> [--dry-run] [--in-parts]` (docs/cli.md, "Values in
 * CSV"): the file's rows sent to the server's value import (GraphQL
 * importStructuredPropertyValues), which checks every row in one pass and writes them all
 * in one transaction, or none. The run asks for the dry run first: every problem of the
 * file (its layout's and the server's) is printed at once with its line, and nothing is
 * written (exit 2); otherwise the changes are printed (--dry-run) or written whole.
 *
 * The file is read as a stream, one import's worth at a time (issue #46 item 16: a 77 MB
 * file once held 3.0 GB). A file larger than one import (10,000 rows in a request of
 * 1 MB, at most 1,000 of them changing) is refused unless `--in-parts` says to write it
 * in parts: then every part is checked first (all problems of the whole file at once,
 * nothing written if there is one), and the parts, of at most 1,000 rows, are written in
 * order, each whole; a part refused at its write stops the run, saying which parts are
 * written. Running the same file again is safe: rows already written change nothing.
 */
import { LIMITS } from '../../domain/limits.js';
import { tryParseUrn } from '../../domain/urn.js';
import type { ValueChange } from '../../domain/valueHistory.js';
import type { TypedValue } from '../../domain/typedValue.js';
import type { CommandContext } from '../context.js';
import { CliError, EXIT, type ExitCode } from '../errors.js';
import type { CsvRecord } from '../files/csvFile.js';
import { readCsvFile } from '../files/csvFileStream.js';
import { FileProblems } from '../files/fileProblems.js';
import { importOfCsv, type CsvImport } from '../files/valuesCsvLayout.js';
import { CliImportValuesDocument, type CliImportValuesMutation } from '../generated/graphql.js';
import type { GraphqlApi } from '../graphqlApi.js';
import { printLine } from '../terminal.js';
import { printChanges, propertyName } from '../valueChanges.js';

type Answer = CliImportValuesMutation['importStructuredPropertyValues'];
type Values = NonNullable<Answer['changes']>[number]['change']['after'];

export interface ImportOptions {
  readonly file: string;
  readonly dryRun?: boolean;
  readonly inParts?: boolean;
}

const typed = (values: Values): TypedValue[] => values.map((v) => ('numberValue' in v ? { double: v.numberValue } : { string: 'stringValue' in v ? v.stringValue : '' }));

function changesByEntity(changes: NonNullable<Answer['changes']>): Array<{ urn: string; changes: ValueChange[] }> {
  const out = new Map<string, ValueChange[]>();
  for (const c of changes) {
    const list = out.get(c.urn) ?? [];
    list.push({ propertyUrn: c.change.structuredProperty.urn, before: c.change.before ? typed(c.change.before) : null, after: typed(c.change.after) });
    out.set(c.urn, list);
  }
  return [...out].map(([urn, changes]) => ({ urn, changes }));
}

/** A part of the file: the header and at most one import's rows; `more` when rows follow it. */
interface Part {
  readonly header: CsvRecord;
  readonly records: CsvRecord[];
  readonly more: boolean;
}

/** How large a part may be: rows, and bytes of the request that sends it. */
interface PartBounds {
  readonly rows: number;
  readonly bytes: number;
}

/**
 * One import, the file whole: as many rows as the server takes in one (10,000; it writes
 * at most 1,000 entities that change), in one GraphQL request (1 MiB, docs/security.md).
 */
const WHOLE: PartBounds = { rows: LIMITS.importRows, bytes: 960 * 1024 };
/** A part of `--in-parts`: what the server surely writes in one transaction, whatever changes. */
const IN_PARTS: PartBounds = { rows: LIMITS.batchEntities, bytes: 900 * 1024 };

const firstLine = (part: Part) => part.records[0]?.line ?? part.header.line;
const lastLine = (part: Part) => part.records.at(-1)?.line ?? part.header.line;

/** What a record adds to the request, as JSON, about (its cells, quotes and separators). */
const bytesOf = (record: CsvRecord) => record.cells.reduce((n, c) => n + Buffer.byteLength(c) + 8, 32);

/**
 * The file in parts within `bounds`, read as a stream: one part in memory at a time, each
 * given once the next row (or the end) says whether more follow.
 */
async function* partsOf(file: string, bounds: PartBounds): AsyncGenerator<Part> {
  let header: CsvRecord | undefined;
  let records: CsvRecord[] = [];
  let size = 0;
  let parts = 0;
  for await (const record of readCsvFile(file)) {
    if (!header) {
      header = record;
      continue;
    }
    const bytes = bytesOf(record);
    if (records.length === bounds.rows || (records.length > 0 && size + bytes > bounds.bytes)) {
      parts++;
      yield { header, records, more: true };
      records = [];
      size = 0;
    }
    records.push(record);
    size += bytes;
  }
  // A file of the header alone is one (empty) part, so its layout is still checked.
  if (records.length > 0 || parts === 0) yield { header: header ?? { line: 1, cells: [] }, records, more: false };
}

/** One part's import sent to the server: checked only (dryRun), or written. */
function send(graphql: GraphqlApi, csv: CsvImport, dryRun: boolean, withChanges = false): Promise<Answer> {
  const rows = csv.rows.map((r) => ({ line: r.line, urn: r.urn, cells: r.cells.map((c) => [...c]) }));
  return graphql.run(CliImportValuesDocument, { input: { columns: csv.columns.map((c) => c.propertyUrn), rows, dryRun }, withChanges }).then((a) => a.importStructuredPropertyValues);
}

/** The part's problems, its layout's and the server's, added to `problems` with their lines. */
async function checkPart(graphql: GraphqlApi, part: Part, problems: FileProblems, seen: Map<string, number>, withChanges: boolean): Promise<{ csv: CsvImport; answer?: Answer }> {
  const csv = importOfCsv([part.header, ...part.records]);
  for (const p of csv.problems) problems.add(p.line, undefined, p.field, p.reason);
  if (csv.columns.length === 0) return { csv };
  // The server finds a URN twice within one import; across parts, the CLI does.
  for (const row of csv.rows) {
    const earlier = seen.get(row.urn);
    if (earlier !== undefined) problems.add(row.line, undefined, row.urn, `is on line ${earlier} already; give each entity one row`);
    else seen.set(row.urn, row.line);
  }
  const answer = await send(graphql, csv, true, withChanges);
  const nameOf = (urn: string) => csv.columns.find((c) => c.propertyUrn === urn)?.name ?? propertyName(urn);
  for (const p of answer.problems) {
    if (p.line === null) problems.add(part.header.line, undefined, `column ${nameOf(p.column ?? '')}`, p.reason);
    else if (p.urn !== null && !tryParseUrn(p.urn).ok) problems.add(p.line, undefined, 'urn', p.reason);
    else problems.add(p.line, undefined, [p.urn, p.column ? nameOf(p.column) : null].filter(Boolean).join(': '), p.reason);
  }
  return { csv, answer };
}

export async function importValues(ctx: CommandContext, options: ImportOptions): Promise<ExitCode> {
  const graphql = ctx.graphql();
  const out = ctx.terminal.stdout;
  const problems = new FileProblems(options.file);
  const seen = new Map<string, number>();
  const totals = { parts: 0, rows: 0, changedValues: 0, changedEntities: 0 };
  let names = '';
  // The first pass: every part checked, nothing written.
  const bounds = options.inParts ? IN_PARTS : WHOLE;
  for await (const part of partsOf(options.file, bounds)) {
    if (part.more && !options.inParts) {
      throw new CliError(
        `${options.file}:${lastLine(part) + 1}: the file holds more than one import takes (at most ${LIMITS.importRows} rows in a request of 1 MB, written in one server transaction). ` +
          `Split it, or give --in-parts to check the whole file and then write it in transactions of up to ${IN_PARTS.rows} rows`,
        EXIT.usage,
      );
    }
    totals.parts++;
    const { csv, answer } = await checkPart(graphql, part, problems, seen, options.dryRun === true);
    if (csv.columns.length === 0) problems.throwIfAny();
    names = csv.columns.map((c) => c.name).join(', ');
    if (!answer) continue;
    totals.rows += answer.rows;
    if (!options.inParts && !options.dryRun && answer.changed > LIMITS.batchEntities) {
      throw new CliError(
        `${options.file}: the file changes ${answer.changed} entities; one import writes at most ${LIMITS.batchEntities} that change (one server transaction). ` +
          `Give --in-parts to write it in transactions of up to ${IN_PARTS.rows} rows; nothing was written`,
        EXIT.usage,
      );
    }
    if (options.dryRun && problems.count === 0) {
      const counts = printChanges(out, changesByEntity(answer.changes ?? []));
      totals.changedValues += counts.changedValues;
      totals.changedEntities += counts.changedEntities;
    }
  }
  problems.throwIfAny();

  const inParts = totals.parts > 1 ? ` in ${totals.parts} parts` : '';
  if (options.dryRun) {
    printLine(
      out,
      `${options.file}: ${totals.rows} row${totals.rows === 1 ? ' is' : 's are'} valid; ${totals.changedValues} propert${totals.changedValues === 1 ? 'y' : 'ies'} would change on ${totals.changedEntities} of ${totals.rows} entities (each column's property set as the file says, other properties kept). Nothing was written (dry run${inParts}).`,
    );
    return EXIT.ok;
  }

  // The second pass: each part written whole, in order.
  const written = { changed: 0, unchanged: 0 };
  let k = 0;
  let firstWritten: number | undefined;
  let lastWritten: number | undefined;
  for await (const part of partsOf(options.file, bounds)) {
    k++;
    const csv = importOfCsv([part.header, ...part.records]);
    let answer: Answer;
    try {
      answer = await send(graphql, csv, false);
    } catch (err) {
      // Refused (a GraphQL error) or not answered: either way, say which parts are written.
      if (!(err instanceof CliError) || totals.parts === 1) throw err;
      const before = lastWritten === undefined ? 'Nothing of the file is written' : `Lines ${firstWritten}-${lastWritten} (parts 1-${k - 1}) are written`;
      throw new CliError(
        `${options.file}: part ${k} of ${totals.parts} (lines ${firstLine(part)}-${lastLine(part)}) was refused: ${err.message.replace(/\.$/, '')}. ${before}; nothing after them. Run the command again: rows already written change nothing`,
      );
    }
    written.changed += answer.changed;
    written.unchanged += answer.unchanged;
    firstWritten ??= firstLine(part);
    lastWritten = lastLine(part);
    if (totals.parts > 1) printLine(out, `part ${k} of ${totals.parts} (lines ${firstLine(part)}-${lastLine(part)}): ${answer.changed} entities updated, ${answer.unchanged} unchanged`);
  }
  const how = totals.parts > 1 ? `in ${totals.parts} transactions of at most ${IN_PARTS.rows} rows` : 'in one transaction';
  printLine(out, `${options.file}: ${written.changed} entities updated, ${written.unchanged} unchanged, ${how} (${names} set as the file says; other properties kept).`);
  return EXIT.ok;
}
