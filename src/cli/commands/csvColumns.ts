/** The columns of a values CSV (docs/cli.md, "Values in CSV"): one structured property each, named by qualified name or urn in the header. */
import type { PropertyDefinition } from '../../domain/propertyDefinition.js';
import { parseEntityTypeUrn } from '../../domain/typeUrns.js';
import { CliError, EXIT } from '../errors.js';
import type { RestApi } from '../restApi.js';
import { propertyUrnOf } from './properties.js';

export interface Column {
  readonly urn: string;
  readonly definition: PropertyDefinition;
}

export async function columnsOf(api: RestApi, names: readonly string[], where: (i: number) => string): Promise<Column[]> {
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

export const entityTypesOf = (c: Column) => c.definition.entityTypes.map((t) => parseEntityTypeUrn(t).name);

