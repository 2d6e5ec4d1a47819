/**
 * The columns of a values CSV file (docs/cli.md, "Values in CSV"), for the CLI and the
 * console alike: the entity's `urn`; context columns for people working in a spreadsheet
 * (`name`, `platform`, `environment`, `description`), which an export fills and an import
 * reads past; then a column per property (its qualified name or URN). A cell holds the
 * values of csvFile.ts's cells (`a|b`), an empty cell none.
 */
import { ENTITY } from '../../domain/registry/entityTypes.js';
import type { ImportRow } from '../../domain/valueImport.js';
import { tryParseUrn } from '../../domain/urn.js';
import { splitValues, type CsvRecord } from './csvFile.js';

export const CONTEXT_COLUMNS = ['name', 'platform', 'environment', 'description'] as const;

const PROPERTY_PREFIX = 'urn:li:structuredProperty:';
const PLATFORM_PREFIX = 'urn:li:dataPlatform:';

/** A property column's URN, from its qualified name or URN; null when it is neither. */
export function propertyUrnOfName(name: string): string | null {
  const urn = name.startsWith('urn:') ? name : `${PROPERTY_PREFIX}${name}`;
  const parsed = tryParseUrn(urn);
  return parsed.ok && parsed.urn.entityType === ENTITY.structuredProperty ? urn : null;
}

/**
 * The context cells of an entity: its name (the stored one, else the URN's), its
 * platform and environment (a dataset's, or a field's dataset's), its description.
 */
export function contextCells(urn: string, stored: { name?: string | null; description?: string | null } = {}): string[] {
  const parsed = tryParseUrn(urn);
  let dataset = parsed.ok && parsed.urn.entityType === ENTITY.dataset ? parsed.urn : undefined;
  let name = stored.name ?? '';
  if (parsed.ok && parsed.urn.entityType === ENTITY.schemaField) {
    const parent = tryParseUrn(parsed.urn.parts[0]!);
    if (parent.ok && parent.urn.entityType === ENTITY.dataset) dataset = parent.urn;
    name ||= parsed.urn.parts[1]!;
  }
  const [platform = '', datasetName = '', origin = ''] = (dataset?.parts ?? []) as string[];
  return [name || datasetName, platform.replace(PLATFORM_PREFIX, ''), origin, stored.description ?? ''];
}

export interface CsvColumn {
  /** Its position in the record. */
  readonly index: number;
  /** As the header writes it. */
  readonly name: string;
  readonly propertyUrn: string;
}

/** A problem the file's layout has, before the server sees it. */
export interface LayoutProblem {
  readonly line: number;
  readonly field: string;
  readonly reason: string;
}

export interface CsvImport {
  readonly columns: readonly CsvColumn[];
  readonly rows: readonly ImportRow[];
  readonly problems: readonly LayoutProblem[];
}

/**
 * The import a parsed file stands for: its property columns and a row per record, with
 * the layout's own problems (a header without `urn` first, a column that names no
 * property, a record whose cells do not match the header); the rest is the server's to check.
 */
export function importOfCsv(records: readonly CsvRecord[]): CsvImport {
  const header = records[0];
  if (!header || header.cells[0]?.trim() !== 'urn') {
    return { columns: [], rows: [], problems: [{ line: header?.line ?? 1, field: 'header', reason: 'the first line must be the header: urn,[name,platform,environment,description,]<property>[,<property>...] (as an export writes it)' }] };
  }
  const problems: LayoutProblem[] = [];
  const columns: CsvColumn[] = [];
  header.cells.forEach((cell, index) => {
    const name = cell.trim();
    if (index === 0 || (CONTEXT_COLUMNS as readonly string[]).includes(name)) return;
    const propertyUrn = propertyUrnOfName(name);
    if (propertyUrn) columns.push({ index, name, propertyUrn });
    else problems.push({ line: header.line, field: `column ${index + 1}`, reason: `'${name}' is not a structured property's qualified name or urn, nor one of urn, ${CONTEXT_COLUMNS.join(', ')}` });
  });
  if (columns.length === 0 && problems.length === 0) problems.push({ line: header.line, field: 'header', reason: 'names no property column; add one per property to set' });
  const rows: ImportRow[] = [];
  for (const record of records.slice(1)) {
    if (record.cells.length !== header.cells.length) {
      problems.push({ line: record.line, field: record.cells[0]?.trim() || 'urn', reason: `has ${record.cells.length} cells; the header has ${header.cells.length}` });
      continue;
    }
    rows.push({ line: record.line, urn: record.cells[0]!.trim(), cells: columns.map((c) => splitValues(record.cells[c.index]!)) });
  }
  return { columns, rows, problems };
}
