/**
 * `propgraph values import FILE` (docs/cli.md, Values in CSV): sets each column's
 * property on each row's entity as the cell says (an empty cell removes it) and keeps
 * every other property: the same rule as `dataset upsert`.
 *
 * The file is read as a stream, twice, and never held whole (issue #46 item 16: a 77 MB
 * file held 3.0 GB). The first pass checks every row, against the definitions and the
 * entities as the server holds them (a page at a time), and reports every problem with
 * its line; nothing is written when there is one. The second pass writes the rows in
 * batches (one server transaction each), a refused batch row by row, so a refusal names
 * its line too. What stays in memory is one short key per row (duplicate rows, and what
 * the first pass saw of the entity).
 *
 * An entity changed after the first pass read it (issue #39): each batch is read again
 * just before it is written, the file's cells are applied to the values as they are
 * then (other properties kept, as always), and the entities whose values in the file's
 * columns had changed meanwhile are counted in the summary and named on stderr.
 */
import { createHash } from 'node:crypto';
import { ServiceError } from '../../domain/errors.js';
import type { PatchOperation } from '../../domain/jsonPatch.js';
import { effectiveDefinition } from '../../domain/propertyDefinition.js';
import { checkRemoval, validateAssignment, type StructuredPropertiesAspect } from '../../domain/structuredProperties.js';
import type { TypedValue } from '../../domain/typedValue.js';
import { tryParseUrn } from '../../domain/urn.js';
import type { ValueChange } from '../../domain/valueHistory.js';
import type { CommandContext } from '../context.js';
import { ApiError, CliError, EXIT, type ExitCode } from '../errors.js';
import { readCsvFile, splitValues, type CsvRecord } from '../files/csvFile.js';
import { FileProblems } from '../files/fileProblems.js';
import { aspectValue, type RestApi } from '../restApi.js';
import { printLine } from '../terminal.js';
import { changesBetween, printChanges, propertyName } from '../valueChanges.js';
import { columnsOf, type Column } from './csvColumns.js';

/** Rows checked per page of entities read from the server. */
const PAGE = 1000;
/** Rows written per request (one transaction). */
const WRITE_BATCH = 500;
/** Characters of cells a page holds at most, whatever its rows: wide rows make shorter pages (and requests within the server's body limit). */
const PAGE_CHARACTERS = 2 * 1024 * 1024;
/** Problems listed; past it they are counted. */
const PROBLEMS_LISTED = 1000;

/** One row of the file, checked: what it sets (values) and removes (null) on its entity. */
interface RowEdit {
  readonly line: number;
  readonly urn: string;
  readonly entityType: string;
  readonly cells: ReadonlyMap<string, TypedValue[] | null>;
}

/** What the first pass keeps of a row: its line (for duplicates) and a fingerprint of what the entity held in the file's columns. */
interface Seen {
  readonly line: number;
  held: number;
}

/** A short key for a URN: rows are counted in millions, their URNs need not be kept. */
function keyOf(urn: string): string {
  return createHash('sha1').update(urn).digest('base64').slice(0, 16);
}

/** What the entity holds of the file's columns, as a number: equal when nothing there changed. */
function fingerprint(current: unknown, columns: readonly Column[]): number {
  const held = (current as StructuredPropertiesAspect | undefined)?.properties ?? [];
  const mine = columns.map((c) => held.filter((p) => p.propertyUrn === c.urn).map((p) => p.values));
  return createHash('sha1').update(JSON.stringify(mine)).digest().readUInt32BE(0);
}

/** Where a row's problems go: the file's list up to PROBLEMS_LISTED, then a count. */
class ProblemSink {
  /** Every problem found, listed or not. */
  total = 0;
  private unlisted = 0;
  private lastLine = 1;

  constructor(readonly listed: FileProblems) {}

  add(line: number, field: string | undefined, reason: string): void {
    this.total++;
    this.lastLine = Math.max(this.lastLine, line);
    if (this.listed.count < PROBLEMS_LISTED) this.listed.add(line, undefined, field, reason);
    else this.unlisted++;
  }

  /** Ends the command when anything was found: every listed problem, and how many more. */
  throwIfAny(): void {
    if (this.unlisted > 0) this.listed.add(this.lastLine, undefined, undefined, `and ${this.unlisted} more problem${this.unlisted === 1 ? '' : 's'} past the first ${PROBLEMS_LISTED}; fix these and check again`);
    this.listed.throwIfAny();
  }
}

class RowReader {
  private readonly definitions: Map<string, { definition: ReturnType<typeof effectiveDefinition>; removed: boolean }>;

  constructor(private readonly columns: readonly Column[], private readonly problems: ProblemSink | null) {
    this.definitions = new Map(columns.map((c) => [c.urn, { definition: effectiveDefinition(c.urn, c.definition), removed: false }]));
  }

  /** The row's edit, or undefined (its problems added) when it has none to make. */
  read(record: CsvRecord): RowEdit | undefined {
    const [urnCell = '', ...cells] = record.cells;
    const parsed = tryParseUrn(urnCell.trim());
    if (!parsed.ok) {
      this.problems?.add(record.line, 'urn', `'${urnCell}' is not a valid urn (${parsed.reason})`);
      return undefined;
    }
    const urn = parsed.urn.value;
    if (cells.length !== this.columns.length) {
      this.problems?.add(record.line, urn, `has ${cells.length + 1} cells; the header has ${this.columns.length + 1}`);
      return undefined;
    }
    const edits = new Map<string, TypedValue[] | null>();
    const context = { targetType: parsed.urn.entityType.name, definitions: this.definitions, current: new Map() };
    this.columns.forEach((c, i) => {
      const values = splitValues(cells[i]!);
      try {
        if (values.length === 0) {
          checkRemoval(c.urn, context);
          edits.set(c.urn, null);
        } else edits.set(c.urn, validateAssignment(c.urn, values.map((v) => ({ string: v })), context));
      } catch (err) {
        if (!(err instanceof ServiceError)) throw err;
        this.problems?.add(record.line, `${urn}: ${c.definition.qualifiedName}`, err.message);
      }
    });
    return { line: record.line, urn, entityType: parsed.urn.entityType.name, cells: edits };
  }
}

/** The entity's structuredProperties after the row: its cells set or removed, the rest kept. */
function afterRow(current: unknown, row: RowEdit): StructuredPropertiesAspect {
  let entries = [...((current as StructuredPropertiesAspect | undefined)?.properties ?? [])];
  for (const [propertyUrn, values] of row.cells) {
    // All the property's entries (one per attribution source) go; its new values stand where the first stood.
    const at = entries.findIndex((e) => e.propertyUrn === propertyUrn);
    entries = entries.filter((e) => e.propertyUrn !== propertyUrn);
    if (values !== null) entries.splice(at < 0 ? entries.length : at, 0, { propertyUrn, values });
  }
  return { properties: entries };
}

/** The row as patch operations, for the changes it makes. */
function rowPatch(row: RowEdit, changes: readonly ValueChange[]): PatchOperation[] {
  return changes.map((c) => {
    const path = `/properties/${c.propertyUrn.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    return c.after.length === 0 ? { op: 'remove', path } : { op: 'add', path, value: { propertyUrn: c.propertyUrn, values: row.cells.get(c.propertyUrn) } };
  });
}

/** The rows' entities as the server holds them now: their structuredProperties (undefined: none), absent when the entity does not exist. */
async function currentValues(api: RestApi, rows: readonly RowEdit[]): Promise<Map<string, unknown>> {
  const current = new Map<string, unknown>();
  for (const type of new Set(rows.map((r) => r.entityType))) {
    const urns = rows.filter((r) => r.entityType === type).map((r) => r.urn);
    for (const found of await api.batchGet(type, urns, ['structuredProperties'])) current.set(found.urn, aspectValue(found, 'structuredProperties'));
  }
  return current;
}

/** The file's rows after the header, in pages of `size` rows or PAGE_CHARACTERS; the header is checked first. */
async function* pagesOf(file: string, size: number, onHeader: (header: CsvRecord | undefined) => Promise<RowReader>): AsyncGenerator<{ reader: RowReader; records: CsvRecord[] }> {
  let reader: RowReader | undefined;
  let page: CsvRecord[] = [];
  let characters = 0;
  for await (const record of readCsvFile(file)) {
    if (!reader) {
      reader = await onHeader(record);
      continue;
    }
    page.push(record);
    characters += record.cells.reduce((n, c) => n + c.length, 0);
    if (page.length === size || characters >= PAGE_CHARACTERS) {
      yield { reader, records: page };
      page = [];
      characters = 0;
    }
  }
  reader ??= await onHeader(undefined);
  if (page.length > 0) yield { reader, records: page };
}

export async function importValues(ctx: CommandContext, options: { file: string; dryRun?: boolean }): Promise<ExitCode> {
  const api = ctx.api();
  const problems = new ProblemSink(new FileProblems(options.file));
  let columns: Column[] = [];
  const header = async (record: CsvRecord | undefined, sink: ProblemSink | null): Promise<RowReader> => {
    if (!record || record.cells[0]?.trim() !== 'urn' || record.cells.length < 2) {
      throw new CliError(`${options.file}:${record?.line ?? 1}: the first line must be the header: urn,<property>[,<property>...] (as values export writes it)`, EXIT.usage);
    }
    if (columns.length === 0) columns = await columnsOf(api, record.cells.slice(1), (i) => `${options.file}:${record.line}: column ${i + 2} (${record.cells[i + 1]})`);
    return new RowReader(columns, sink);
  };
  const out = ctx.terminal.stdout;

  // First pass: every row checked, its entity included (read a page at a time), every problem in one go.
  const seen = new Map<string, Seen>();
  let rows = 0;
  const counts = { changedEntities: 0, changedValues: 0 };
  for await (const page of pagesOf(options.file, PAGE, (h) => header(h, problems))) {
    const read: Array<{ row: RowEdit; valid: boolean }> = [];
    for (const record of page.records) {
      const before = problems.total;
      const row = page.reader.read(record);
      if (!row) continue;
      rows++;
      const key = keyOf(row.urn);
      const earlier = seen.get(key);
      if (earlier !== undefined) {
        problems.add(row.line, row.urn, `is on line ${earlier.line} already; give each entity one row`);
        continue;
      }
      seen.set(key, { line: row.line, held: 0 });
      read.push({ row, valid: problems.total === before });
    }
    const current = await currentValues(api, read.map((r) => r.row));
    const planned: Array<{ urn: string; changes: ValueChange[] }> = [];
    for (const { row, valid } of read) {
      if (!current.has(row.urn)) {
        problems.add(row.line, row.urn, 'does not exist; values are set on existing entities only');
        continue;
      }
      if (!valid) continue;
      seen.get(keyOf(row.urn))!.held = fingerprint(current.get(row.urn), columns);
      planned.push({ urn: row.urn, changes: changesBetween(current.get(row.urn), afterRow(current.get(row.urn), row)) });
    }
    if (problems.total > 0) continue;
    const shown = options.dryRun ? printChanges(out, planned) : { changedEntities: planned.filter((p) => p.changes.length > 0).length, changedValues: planned.reduce((n, p) => n + p.changes.length, 0) };
    counts.changedEntities += shown.changedEntities;
    counts.changedValues += shown.changedValues;
  }
  problems.throwIfAny();
  if (options.dryRun) {
    printLine(out, `${options.file}: ${rows} row${rows === 1 ? ' is' : 's are'} valid; ${counts.changedValues} propert${counts.changedValues === 1 ? 'y' : 'ies'} would change on ${counts.changedEntities} of ${rows} entities (each column's property set as the file says, other properties kept). Nothing was written (dry run).`);
    return EXIT.ok;
  }

  // Second pass: each batch read again just before it is written, and written.
  let written = 0;
  let unchanged = 0;
  let failed = 0;
  let changedSinceCheck = 0;
  for await (const page of pagesOf(options.file, WRITE_BATCH, (h) => header(h, null))) {
    const batch = page.records.map((r) => page.reader.read(r)!);
    const current = await currentValues(api, batch);
    const changing: Array<{ row: RowEdit; changes: ValueChange[] }> = [];
    for (const row of batch) {
      const now = current.get(row.urn);
      if (fingerprint(now, columns) !== seen.get(keyOf(row.urn))!.held) {
        changedSinceCheck++;
        printLine(ctx.terminal.stderr, `${options.file}:${row.line}: ${row.urn}: changed since the file was checked; its cells are applied to its values as they are now`);
      }
      const changes = changesBetween(now, afterRow(now, row));
      if (changes.length === 0) unchanged++;
      else changing.push({ row, changes });
    }
    for (const type of new Set(changing.map((p) => p.row.entityType))) {
      const ofType = changing.filter((p) => p.row.entityType === type);
      const write = async (items: typeof ofType) => {
        await api.batchPatch(type, items.map((p) => ({ urn: p.row.urn, patches: { structuredProperties: rowPatch(p.row, p.changes) } })));
        written += items.length;
      };
      try {
        await write(ofType);
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        // Row by row, so the refusal names its line and the other rows are written.
        for (const p of ofType) {
          try {
            await write([p]);
          } catch (rowErr) {
            if (!(rowErr instanceof ApiError)) throw rowErr;
            failed++;
            printLine(ctx.terminal.stderr, `${options.file}:${p.row.line}: ${p.row.urn}: not written: ${rowErr.message}`);
          }
        }
      }
    }
  }
  const names = columns.map((c) => propertyName(c.urn)).join(', ');
  const since = changedSinceCheck > 0 ? `; ${changedSinceCheck} of them changed since the file was checked, the file's cells applied to their values as they are now` : '';
  printLine(out, `${options.file}: ${written} entities updated, ${unchanged} unchanged, ${failed} failed (${names} set as the file says; other properties kept)${since}.`);
  return failed > 0 ? EXIT.failed : EXIT.ok;
}
