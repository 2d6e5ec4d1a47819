/**
 * `propgraph values export` and `values import` (docs/cli.md, Values in CSV): the values
 * of chosen properties as a CSV file a spreadsheet edits, and back. The first column is
 * the entity's urn, then one column per property (qualified name in the header); a cell
 * holds the values (several separated by `|`), an empty cell none.
 *
 * An import sets each column's property on each row's entity as the cell says (an
 * empty cell removes it) and keeps every other property: the same rule as `dataset
 * upsert`. Every row is checked first, against the definitions and the entities as the
 * server holds them, and every problem is reported with its line; then rows are written
 * in batches (one server transaction each), a refused batch row by row, so a refusal
 * names its line too.
 */
import { readFileSync } from 'node:fs';
import { ServiceError } from '../../domain/errors.js';
import type { PatchOperation } from '../../domain/jsonPatch.js';
import { effectiveDefinition, searchFieldName, type PropertyDefinition } from '../../domain/propertyDefinition.js';
import { findEntityType } from '../../domain/registry/entityTypes.js';
import { parseEntityTypeUrn } from '../../domain/typeUrns.js';
import { checkRemoval, validateAssignment, type StructuredPropertiesAspect } from '../../domain/structuredProperties.js';
import type { TypedValue } from '../../domain/typedValue.js';
import { tryParseUrn } from '../../domain/urn.js';
import type { ValueChange } from '../../domain/valueHistory.js';
import type { CommandContext } from '../context.js';
import { ApiError, CliError, EXIT, type ExitCode } from '../errors.js';
import { formatCsvRecord, joinValues, parseCsv, splitValues } from '../files/csvFile.js';
import { FileProblems } from '../files/fileProblems.js';
import { aspectValue, type RestApi } from '../restApi.js';
import { printLine } from '../terminal.js';
import { changesBetween, printChanges, propertyName, valueText } from '../valueChanges.js';
import { propertyUrnOf } from './properties.js';

const PAGE = 1000;
/** Rows written per request (one transaction). */
const WRITE_BATCH = 500;

interface Column {
  readonly urn: string;
  readonly definition: PropertyDefinition;
}

async function columnsOf(api: RestApi, names: readonly string[], where: (i: number) => string): Promise<Column[]> {
  const columns: Column[] = [];
  for (const [i, name] of names.entries()) {
    const urn = propertyUrnOf(name.trim());
    const state = await api.getPropertyState(urn);
    if (!state) throw new CliError(`${where(i)}: structured property ${urn} does not exist`, EXIT.usage);
    if (state.removed) throw new CliError(`${where(i)}: structured property ${urn} is soft deleted; restore it first`, EXIT.usage);
    columns.push({ urn, definition: state.definition });
  }
  return columns;
}

const entityTypesOf = (c: Column) => c.definition.entityTypes.map((t) => parseEntityTypeUrn(t).name);

export interface ExportOptions {
  readonly property: string[];
  readonly query?: string;
  readonly type?: string[];
}

export async function exportValues(ctx: CommandContext, options: ExportOptions): Promise<ExitCode> {
  if (options.property.length === 0) throw new CliError('values export: name the properties with --property <qualifiedName> (repeatable)', EXIT.usage);
  const api = ctx.api();
  const columns = await columnsOf(api, options.property, (i) => `--property ${options.property[i]}`);
  const types = options.type?.length
    ? options.type.map((t) => {
        const info = findEntityType(t);
        if (!info) throw new CliError(`--type ${t}: not an entity type`, EXIT.usage);
        return info.name;
      })
    : [...new Set(columns.flatMap(entityTypesOf))].filter((t) => findEntityType(t)?.searchable);
  const out = ctx.terminal.stdout;
  printLine(out, formatCsvRecord(['urn', ...columns.map((c) => c.definition.qualifiedName)]));
  let rows = 0;
  for (const type of types) {
    const applicable = columns.filter((c) => entityTypesOf(c).includes(type));
    if (applicable.length === 0) continue;
    // Without a query: the entities holding a value of any of the properties.
    const query = options.query ?? applicable.map((c) => `_exists_:structuredProperties.${searchFieldName(c.definition.qualifiedName)}`).join(' OR ');
    let scrollId: string | undefined;
    do {
      const page = await api.listEntities(type, { count: PAGE, query, aspects: ['structuredProperties'], ...(scrollId ? { scrollId } : {}) });
      for (const entity of page.entities) {
        const held = aspectValue<StructuredPropertiesAspect>(entity, 'structuredProperties')?.properties ?? [];
        const cells = columns.map((c) => joinValues((held.find((p) => p.propertyUrn === c.urn)?.values ?? []).map(valueText)));
        printLine(out, formatCsvRecord([entity.urn, ...cells]));
        rows++;
      }
      scrollId = page.scrollId ?? undefined;
    } while (scrollId);
  }
  if (rows === 0) printLine(ctx.terminal.stderr, `No entity holds ${columns.map((c) => c.definition.qualifiedName).join(' or ')}${options.query ? ` among those matching ${options.query}` : ''}; the file has the header only.`);
  return EXIT.ok;
}

/** One row of the file, checked: what it sets (values) and removes (null) on its entity. */
interface RowEdit {
  readonly line: number;
  readonly urn: string;
  readonly entityType: string;
  readonly cells: ReadonlyMap<string, TypedValue[] | null>;
}

function readRows(columns: readonly Column[], records: ReturnType<typeof parseCsv>, problems: FileProblems): RowEdit[] {
  const definitions = new Map(columns.map((c) => [c.urn, { definition: effectiveDefinition(c.urn, c.definition), removed: false }]));
  const seen = new Map<string, number>();
  const rows: RowEdit[] = [];
  for (const record of records.slice(1)) {
    const [urnCell = '', ...cells] = record.cells;
    const parsed = tryParseUrn(urnCell.trim());
    if (!parsed.ok) {
      problems.add(record.line, undefined, 'urn', `'${urnCell}' is not a valid urn (${parsed.reason})`);
      continue;
    }
    const urn = parsed.urn.value;
    if (cells.length !== columns.length) {
      problems.add(record.line, undefined, urn, `has ${cells.length + 1} cells; the header has ${columns.length + 1}`);
      continue;
    }
    const earlier = seen.get(urn);
    if (earlier !== undefined) problems.add(record.line, undefined, urn, `is on line ${earlier} already; give each entity one row`);
    seen.set(urn, record.line);
    const edits = new Map<string, TypedValue[] | null>();
    const context = { targetType: parsed.urn.entityType.name, definitions, current: new Map() };
    columns.forEach((c, i) => {
      const values = splitValues(cells[i]!);
      try {
        if (values.length === 0) {
          checkRemoval(c.urn, context);
          edits.set(c.urn, null);
        } else edits.set(c.urn, validateAssignment(c.urn, values.map((v) => ({ string: v })), context));
      } catch (err) {
        if (!(err instanceof ServiceError)) throw err;
        problems.add(record.line, undefined, `${urn}: ${c.definition.qualifiedName}`, err.message);
      }
    });
    rows.push({ line: record.line, urn, entityType: parsed.urn.entityType.name, cells: edits });
  }
  return rows;
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

export async function importValues(ctx: CommandContext, options: { file: string; dryRun?: boolean }): Promise<ExitCode> {
  let text: string;
  try {
    text = readFileSync(options.file, 'utf8');
  } catch (err) {
    throw new CliError(`Cannot read ${options.file}: ${(err as Error).message}`, EXIT.usage);
  }
  const records = parseCsv(text, options.file);
  const header = records[0];
  if (!header || header.cells[0]?.trim() !== 'urn' || header.cells.length < 2) {
    throw new CliError(`${options.file}:${header?.line ?? 1}: the first line must be the header: urn,<property>[,<property>...] (as values export writes it)`, EXIT.usage);
  }
  const api = ctx.api();
  const columns = await columnsOf(api, header.cells.slice(1), (i) => `${options.file}:${header.line}: column ${i + 2} (${header.cells[i + 1]})`);
  const problems = new FileProblems(options.file);
  const rows = readRows(columns, records, problems);
  problems.throwIfAny();

  // The entities as the server holds them: they must exist, and the changes are against their values.
  const current = new Map<string, unknown>();
  const existing = new Set<string>();
  for (const type of new Set(rows.map((r) => r.entityType))) {
    const urns = rows.filter((r) => r.entityType === type).map((r) => r.urn);
    for (let i = 0; i < urns.length; i += PAGE) {
      for (const found of await api.batchGet(type, urns.slice(i, i + PAGE), ['structuredProperties'])) {
        existing.add(found.urn);
        current.set(found.urn, aspectValue(found, 'structuredProperties'));
      }
    }
  }
  for (const r of rows) if (!existing.has(r.urn)) problems.add(r.line, undefined, r.urn, 'does not exist; values are set on existing entities only');
  problems.throwIfAny();

  const planned = rows.map((r) => ({ row: r, changes: changesBetween(current.get(r.urn), afterRow(current.get(r.urn), r)) }));
  const out = ctx.terminal.stdout;
  const changing = planned.filter((p) => p.changes.length > 0);
  if (options.dryRun) {
    const counts = printChanges(out, planned.map((p) => ({ urn: p.row.urn, changes: p.changes })));
    printLine(out, `${options.file}: ${rows.length} row${rows.length === 1 ? ' is' : 's are'} valid; ${counts.changedValues} propert${counts.changedValues === 1 ? 'y' : 'ies'} would change on ${counts.changedEntities} of ${rows.length} entities (each column's property set as the file says, other properties kept). Nothing was written (dry run).`);
    return EXIT.ok;
  }
  let written = 0;
  let failed = 0;
  const write = async (batch: typeof changing) => {
    await api.batchPatch(batch[0]!.row.entityType, batch.map((p) => ({ urn: p.row.urn, patches: { structuredProperties: rowPatch(p.row, p.changes) } })));
    written += batch.length;
  };
  for (const type of new Set(changing.map((p) => p.row.entityType))) {
    const ofType = changing.filter((p) => p.row.entityType === type);
    for (let i = 0; i < ofType.length; i += WRITE_BATCH) {
      const batch = ofType.slice(i, i + WRITE_BATCH);
      try {
        await write(batch);
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        // Row by row, so the refusal names its line and the other rows are written.
        for (const p of batch) {
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
  printLine(out, `${options.file}: ${written} entities updated, ${rows.length - changing.length} unchanged, ${failed} failed (${names} set as the file says; other properties kept).`);
  return failed > 0 ? EXIT.failed : EXIT.ok;
}

