/**
 * `propgraph values export` (docs/cli.md, Values in CSV): the values of chosen
 * properties as a CSV file a spreadsheet edits (`values import`, valuesCsvImport.ts,
 * reads it back). The first column is the entity's urn, then one column per property
 * (qualified name in the header); a cell holds the values (several separated by `|`), an
 * empty cell none. A cell a spreadsheet would run as a formula is written with a `'`
 * before it (domain/csvCells.ts).
 */
import { searchFieldName } from '../../domain/propertyDefinition.js';
import { findEntityType } from '../../domain/registry/entityTypes.js';
import type { StructuredPropertiesAspect } from '../../domain/structuredProperties.js';
import type { CommandContext } from '../context.js';
import { CliError, EXIT, type ExitCode } from '../errors.js';
import { formatCsvRecord, joinValues } from '../files/csvFile.js';
import { aspectValue } from '../restApi.js';
import { printLine } from '../terminal.js';
import { valueText } from '../valueChanges.js';

import { columnsOf, entityTypesOf } from './csvColumns.js';

const PAGE = 1000;

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

