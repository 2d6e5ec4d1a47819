/**
 * `propgraph values export` (docs/cli.md, Values in CSV): the values of chosen properties
 * as a CSV file a spreadsheet edits (valuesCsvLayout.ts: the urn, context columns for
 * people, then one column per property); a cell holds the values (several separated by
 * `|`), an empty cell none. `values import` reads it back (valuesImport.ts).
 */
import { searchFieldName, type PropertyDefinition } from '../../domain/propertyDefinition.js';
import { findEntityType } from '../../domain/registry/entityTypes.js';
import { entityTypeOf } from '../../domain/typeUrns.js';
import type { StructuredPropertiesAspect } from '../../domain/structuredProperties.js';
import type { CommandContext } from '../context.js';
import { CliError, EXIT, type ExitCode } from '../errors.js';
import { formatCsvRecord, joinValues } from '../files/csvFile.js';
import { CONTEXT_COLUMNS, contextCells } from '../files/valuesCsvLayout.js';
import { aspectValue, type RestApi } from '../restApi.js';
import { printLine } from '../terminal.js';
import { valueText } from '../valueChanges.js';
import { propertyUrnOf } from './properties.js';

const PAGE = 1000;

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

const entityTypesOf = (c: Column) => c.definition.entityTypes.map((t) => entityTypeOf(t).name);

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
  printLine(out, formatCsvRecord(['urn', ...CONTEXT_COLUMNS, ...columns.map((c) => c.definition.qualifiedName)]));
  let rows = 0;
  for (const type of types) {
    const applicable = columns.filter((c) => entityTypesOf(c).includes(type));
    if (applicable.length === 0) continue;
    // Without a query: the entities holding a value of any of the properties.
    const query = options.query ?? applicable.map((c) => `_exists_:structuredProperties.${searchFieldName(c.definition.qualifiedName)}`).join(' OR ');
    let scrollId: string | undefined;
    do {
      const page = await api.listEntities(type, { count: PAGE, query, aspects: ['structuredProperties', ...(type === 'dataset' ? ['datasetProperties'] : [])], ...(scrollId ? { scrollId } : {}) });
      for (const entity of page.entities) {
        const held = aspectValue<StructuredPropertiesAspect>(entity, 'structuredProperties')?.properties ?? [];
        const cells = columns.map((c) => joinValues((held.find((p) => p.propertyUrn === c.urn)?.values ?? []).map(valueText)));
        printLine(out, formatCsvRecord([entity.urn, ...contextCells(entity.urn, aspectValue<{ name?: string; description?: string }>(entity, 'datasetProperties') ?? {}), ...cells]));
        rows++;
      }
      scrollId = page.scrollId ?? undefined;
    } while (scrollId);
  }
  if (rows === 0) printLine(ctx.terminal.stderr, `No entity holds ${columns.map((c) => c.definition.qualifiedName).join(' or ')}${options.query ? ` among those matching ${options.query}` : ''}; the file has the header only.`);
  return EXIT.ok;
}
