/**
 * A value import (a CSV file's rows; docs/contract.md §3, "Value imports"): every row
 * checked in one pass against the definitions of its columns and the entities as stored,
 * so that every problem is reported at once (issue #39: an unknown URN showed up only
 * after the other bad rows were fixed); then each row's edit, applied to the entity's
 * values as they are when it is written: each column's property set as the cell says (an
 * empty cell removes it), other properties kept.
 */
import { ServiceError } from './errors.js';
import { checkRemoval, validateAssignment, type DefinitionState, type PropertyValueAssignment, type StructuredPropertiesAspect } from './structuredProperties.js';
import type { TypedValue } from './typedValue.js';
import { tryParseUrn } from './urn.js';

export interface ImportRow {
  /** Where the row is in the file (its line), for problems. */
  readonly line: number;
  readonly urn: string;
  /** One cell per column: its values as written; empty removes the property. */
  readonly cells: ReadonlyArray<readonly string[]>;
}

export interface ImportProblem {
  /** The row's line; null for a problem of a column. */
  readonly line: number | null;
  readonly urn: string | null;
  /** The column's property URN, when the problem is in one cell or column. */
  readonly column: string | null;
  readonly reason: string;
}

/** A checked row: per column, its values (null: remove the property). */
export interface ImportEdit {
  readonly line: number;
  readonly urn: string;
  readonly cells: ReadonlyMap<string, readonly TypedValue[] | null>;
}

export interface ImportCheck {
  readonly edits: ImportEdit[];
  readonly problems: ImportProblem[];
}

/**
 * Checks every column and row. `definitions` holds the columns' properties that exist;
 * `stored` the values of the entities that exist (absent: no such entity).
 */
export function checkImport(
  columns: readonly string[],
  rows: readonly ImportRow[],
  definitions: ReadonlyMap<string, DefinitionState>,
  stored: ReadonlyMap<string, StructuredPropertiesAspect | undefined>,
): ImportCheck {
  const problems: ImportProblem[] = [];
  columns.forEach((column, i) => {
    const state = definitions.get(column);
    if (columns.indexOf(column) !== i) problems.push({ line: null, urn: null, column, reason: `${column} is a column twice; give each property one column` });
    else if (!state) problems.push({ line: null, urn: null, column, reason: `structured property ${column} does not exist` });
    else if (state.removed) problems.push({ line: null, urn: null, column, reason: `structured property ${column} is soft deleted; restore it first` });
  });
  const usable = new Set(columns.filter((c) => definitions.has(c) && !definitions.get(c)!.removed));
  const seen = new Map<string, number>();
  const edits: ImportEdit[] = [];
  for (const row of rows) {
    const parsed = tryParseUrn(row.urn.trim());
    if (!parsed.ok) {
      problems.push({ line: row.line, urn: row.urn, column: null, reason: `'${row.urn}' is not a valid urn (${parsed.reason})` });
      continue;
    }
    const urn = parsed.urn.value;
    const before = problems.length;
    const earlier = seen.get(urn);
    if (earlier !== undefined) problems.push({ line: row.line, urn, column: null, reason: `is on line ${earlier} already; give each entity one row` });
    seen.set(urn, row.line);
    if (!stored.has(urn)) problems.push({ line: row.line, urn, column: null, reason: 'does not exist; values are set on existing entities only' });
    if (row.cells.length !== columns.length) {
      problems.push({ line: row.line, urn, column: null, reason: `has ${row.cells.length} value cells; the header has ${columns.length} property columns` });
      continue;
    }
    const current = new Map((stored.get(urn)?.properties ?? []).map((p) => [p.propertyUrn, p.values] as const));
    const context = { targetType: parsed.urn.entityType.name, definitions, current };
    const cells = new Map<string, readonly TypedValue[] | null>();
    columns.forEach((column, i) => {
      if (!usable.has(column)) return;
      // Values as written: an exported value with spaces, a tab or a CR at its ends comes back the same (a number's
      // spaces are the number parser's business); only an empty value is none.
      const values = row.cells[i]!.filter((v) => v !== '');
      try {
        if (values.length === 0) {
          checkRemoval(column, context);
          cells.set(column, null);
        } else cells.set(column, validateAssignment(column, values.map((v) => ({ string: v })), context));
      } catch (err) {
        if (!(err instanceof ServiceError)) throw err;
        problems.push({ line: row.line, urn, column, reason: err.message });
      }
    });
    if (problems.length === before) edits.push({ line: row.line, urn, cells });
  }
  return { edits, problems };
}

/** The entity's structuredProperties after the row: its cells set or removed, the rest kept. */
export function applyImportEdit(current: StructuredPropertiesAspect | undefined, edit: ImportEdit): StructuredPropertiesAspect {
  let entries: PropertyValueAssignment[] = [...(current?.properties ?? [])];
  for (const [propertyUrn, values] of edit.cells) {
    // All the property's entries (one per attribution source) go; its new values stand where the first stood.
    const at = entries.findIndex((e) => e.propertyUrn === propertyUrn);
    entries = entries.filter((e) => e.propertyUrn !== propertyUrn);
    if (values !== null) entries.splice(at < 0 ? entries.length : at, 0, { propertyUrn, values: [...values] });
  }
  return { properties: entries };
}
