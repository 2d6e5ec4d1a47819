/**
 * `propgraph values import -f <csv> [--dry-run]` (docs/cli.md, "Values in CSV"): the file's
 * rows sent to the server's value import (GraphQL importStructuredPropertyValues), which
 * checks every row in one pass and writes them all in one transaction, or none. The run
 * asks for the dry run first: every problem of the file (its layout's and the server's) is
 * printed at once with its line, and nothing is written (exit 2); otherwise the changes are
 * printed (--dry-run) or written whole.
 */
import { readFileSync } from 'node:fs';
import { tryParseUrn } from '../../domain/urn.js';
import type { ValueChange } from '../../domain/valueHistory.js';
import type { TypedValue } from '../../domain/typedValue.js';
import type { CommandContext } from '../context.js';
import { CliError, EXIT, type ExitCode } from '../errors.js';
import { parseCsv } from '../files/csvFile.js';
import { FileProblems } from '../files/fileProblems.js';
import { importOfCsv } from '../files/valuesCsvLayout.js';
import { CliImportValuesDocument, type CliImportValuesMutation } from '../generated/graphql.js';
import { printLine } from '../terminal.js';
import { printChanges, propertyName } from '../valueChanges.js';

type Answer = CliImportValuesMutation['importStructuredPropertyValues'];
type Values = Answer['changes'][number]['change']['after'];

const typed = (values: Values): TypedValue[] => values.map((v) => ('numberValue' in v ? { double: v.numberValue } : { string: 'stringValue' in v ? v.stringValue : '' }));

function changesByEntity(answer: Answer): Array<{ urn: string; changes: ValueChange[] }> {
  const out = new Map<string, ValueChange[]>();
  for (const c of answer.changes) {
    const list = out.get(c.urn) ?? [];
    list.push({ propertyUrn: c.change.structuredProperty.urn, before: c.change.before ? typed(c.change.before) : null, after: typed(c.change.after) });
    out.set(c.urn, list);
  }
  return [...out].map(([urn, changes]) => ({ urn, changes }));
}

export async function importValues(ctx: CommandContext, options: { file: string; dryRun?: boolean }): Promise<ExitCode> {
  let text: string;
  try {
    text = readFileSync(options.file, 'utf8');
  } catch (err) {
    throw new CliError(`Cannot read ${options.file}: ${(err as Error).message}`, EXIT.usage);
  }
  const records = parseCsv(text, options.file);
  const csv = importOfCsv(records);
  const problems = new FileProblems(options.file);
  for (const p of csv.problems) problems.add(p.line, undefined, p.field, p.reason);
  const header = records[0];
  if (csv.columns.length === 0) problems.throwIfAny();

  const graphql = ctx.graphql();
  const ask = async (dryRun: boolean) =>
    (await graphql.run(CliImportValuesDocument, { input: { columns: csv.columns.map((c) => c.propertyUrn), rows: csv.rows.map((r) => ({ line: r.line, urn: r.urn, cells: r.cells.map((c) => [...c]) })), dryRun } }))
      .importStructuredPropertyValues;
  const checked = await ask(true);
  const nameOf = (urn: string) => csv.columns.find((c) => c.propertyUrn === urn)?.name ?? propertyName(urn);
  for (const p of checked.problems) {
    if (p.line === null) problems.add(header!.line, undefined, `column ${nameOf(p.column ?? '')}`, p.reason);
    else if (p.urn !== null && !tryParseUrn(p.urn).ok) problems.add(p.line, undefined, 'urn', p.reason);
    else problems.add(p.line, undefined, [p.urn, p.column ? nameOf(p.column) : null].filter(Boolean).join(': '), p.reason);
  }
  problems.throwIfAny();

  const out = ctx.terminal.stdout;
  if (options.dryRun) {
    const counts = printChanges(out, changesByEntity(checked));
    printLine(
      out,
      `${options.file}: ${checked.rows} row${checked.rows === 1 ? ' is' : 's are'} valid; ${counts.changedValues} propert${counts.changedValues === 1 ? 'y' : 'ies'} would change on ${counts.changedEntities} of ${checked.rows} entities (each column's property set as the file says, other properties kept). Nothing was written (dry run).`,
    );
    return EXIT.ok;
  }
  const written = await ask(false);
  const names = csv.columns.map((c) => c.name).join(', ');
  printLine(out, `${options.file}: ${written.changed} entities updated, ${written.unchanged} unchanged, in one transaction (${names} set as the file says; other properties kept).`);
  return EXIT.ok;
}
