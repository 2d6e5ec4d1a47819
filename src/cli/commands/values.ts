/**
 * `propgraph values set|add|remove --query '<query>' --property <name>[=<value>]`
 * (docs/contract.md §13): one property's values on every entity a search selects (or
 * the entities named with --urn), through the server's bulk edit: a job, followed here
 * to its end with progress, or with --dry-run the changes it would make, value by value.
 * `set` replaces the property's values on each entity (other properties are kept),
 * `add` adds values, `remove` removes values or, with none given, the property. With
 * --query the server keeps the search, not its hits, and resolves it as the job runs
 * (docs/contract.md §15: an entity changed since the selection is edited on its values
 * as they are then, or skipped and reported when it no longer matches).
 */
import type { TypedValue } from '../../domain/typedValue.js';
import type { CommandContext } from '../context.js';
import { CliError, EXIT, type ExitCode } from '../errors.js';
import { RunProgress } from '../progress.js';
import { followRebuild, type JobView } from '../rebuildJob.js';
import { printLine } from '../terminal.js';
import { printChanges, propertyName } from '../valueChanges.js';
import { tryParseUrn } from '../../domain/urn.js';
import { propertyUrnOf } from './properties.js';

export type BulkOperation = 'set' | 'add' | 'remove';

export interface BulkValuesOptions {
  readonly query?: string;
  readonly urn?: string[];
  readonly type?: string[];
  readonly property?: string[];
  readonly dryRun?: boolean;
  readonly wait: boolean;
  /** With one --urn: write only if the entity's values are still at this version (`dataset get` prints it). */
  readonly ifVersion?: string;
}

interface BulkAnswer {
  readonly jobId?: string;
  readonly propertyUrn: string;
  readonly entities: number;
  /** The most entities one bulk edit may select. */
  readonly limit?: number;
  readonly changed?: number;
  readonly unchanged?: number;
  readonly refused?: Array<{ urn: string; reason: string }>;
  readonly changes?: Array<{ urn: string; before: TypedValue[]; after: TypedValue[] }>;
}

interface BulkResult {
  readonly changed: number;
  readonly unchanged: number;
  readonly refusedCount: number;
  /** Of the refused, those changed since the selection that no longer match its query. */
  readonly skipped?: number;
  /** Entities changed by someone else since the selection, edited on their values as they were at their turn. */
  readonly changedSinceSelection?: number;
  readonly refused: Array<{ urn: string; reason: string }>;
}

const VERB: Record<BulkOperation, string> = { set: 'Setting', add: 'Adding to', remove: 'Removing from' };

/** `--property name=value` options: one property, its values in order. */
export function parsePropertyValues(specs: readonly string[], operation: BulkOperation): { property: string; values: string[] } {
  if (specs.length === 0) throw new CliError(`values ${operation}: --property <qualifiedName>=<value> is required`, EXIT.usage);
  let property: string | undefined;
  const values: string[] = [];
  for (const spec of specs) {
    const at = spec.indexOf('=');
    const name = (at < 0 ? spec : spec.slice(0, at)).trim();
    if (name === '') throw new CliError(`--property ${spec}: expected <qualifiedName>=<value>, e.g. --property acme.governance.tier=gold`, EXIT.usage);
    if (property !== undefined && property !== name) {
      throw new CliError(`values ${operation} changes one property at a time (so that no entity is left half-changed); got ${property} and ${name}`, EXIT.usage);
    }
    property = name;
    if (at >= 0) values.push(spec.slice(at + 1));
  }
  if (operation !== 'remove' && values.length === 0) throw new CliError(`values ${operation}: give the value, e.g. --property ${property}=<value>`, EXIT.usage);
  return { property: property!, values };
}

export async function bulkValues(ctx: CommandContext, operation: BulkOperation, options: BulkValuesOptions): Promise<ExitCode> {
  const { property, values } = parsePropertyValues(options.property ?? [], operation);
  const urns = options.urn ?? [];
  if (options.ifVersion !== undefined) return setIfVersion(ctx, operation, options, property, values);
  if ((options.query === undefined) === (urns.length === 0)) {
    throw new CliError(`values ${operation}: select the entities with --query '<query>' (e.g. 'platform:hive', or '*' for all) or with --urn, not both`, EXIT.usage);
  }
  const http = ctx.api().http;
  const body = {
    ...(urns.length > 0 ? { urns } : { query: options.query }),
    ...(options.type?.length ? { types: options.type } : {}),
    property,
    operation,
    values,
    dryRun: Boolean(options.dryRun),
  };
  const answer = await http.request<BulkAnswer>('POST', http.v3('/values/bulk'), { json: body });
  const out = ctx.terminal.stdout;
  const what = `${propertyName(answer.propertyUrn)}${values.length ? ` = ${values.join(', ')}` : ''}`;
  if (options.dryRun) {
    printChanges(out, (answer.changes ?? []).map((c) => ({ urn: c.urn, changes: [{ propertyUrn: answer.propertyUrn, before: c.before, after: c.after }] })));
    for (const r of answer.refused ?? []) printLine(out, `${r.urn}: refused: ${r.reason}`);
    const listed = answer.changes?.length ?? 0;
    const more = (answer.changed ?? 0) > listed ? ` (the first ${listed} listed)` : '';
    printLine(out, `Dry run: ${operation} ${what} on ${answer.entities} entities: ${answer.changed} would change${more}, ${answer.unchanged} unchanged, ${answer.refused?.length ?? 0} refused. Nothing was written.`);
    return (answer.refused?.length ?? 0) > 0 ? EXIT.failed : EXIT.ok;
  }
  const jobId = answer.jobId!;
  printLine(out, `${VERB[operation]} ${what} on ${answer.entities} entities (job ${jobId}); other properties are kept.`);
  if (!options.wait) {
    printLine(out, `Not waiting; the job's progress is at ${http.settings.server}/openapi/v3/jobs/${jobId}.`);
    return EXIT.ok;
  }
  const progress = new RunProgress(ctx.terminal, answer.entities, 'entities');
  let reported = -1;
  const job = await followRebuild(
    http,
    jobId,
    {
      progress: (j: JobView) => {
        progress.step(j.done);
        // Off a terminal, a line per count seen, the last one too: a job done before the first poll still shows its count.
        if (!progress.showsBar && j.done !== reported) {
          reported = j.done;
          printLine(out, `Bulk edit job ${jobId}: ${j.done}/${j.total ?? answer.entities} entities`);
        }
      },
    },
    'Bulk edit',
  );
  progress.clear();
  const result = (job.result ?? { changed: 0, unchanged: 0, refusedCount: 0, refused: [] }) as unknown as BulkResult;
  for (const r of result.refused) printLine(ctx.terminal.stderr, `${r.urn}: not changed: ${r.reason}`);
  const skipped = result.skipped ? ` (${result.skipped} of them changed since the selection and no longer matching it)` : '';
  const since = result.changedSinceSelection ? `; ${result.changedSinceSelection} changed by someone else since the selection, edited on their values as they were then` : '';
  printLine(out, `Bulk edit done (job ${jobId}): ${result.changed} changed, ${result.unchanged} unchanged, ${result.refusedCount} refused${skipped}${since}.`);
  return result.refusedCount > 0 ? EXIT.failed : EXIT.ok;
}

/**
 * `values set --urn X --if-version N`: one entity's values written at once (not a bulk job),
 * only if they are still at version N; a change made since is refused, naming who made
 * it and what it changed (docs/contract.md §14, "Stale writes").
 */
async function setIfVersion(ctx: CommandContext, operation: BulkOperation, options: BulkValuesOptions, property: string, values: readonly string[]): Promise<ExitCode> {
  const urns = options.urn ?? [];
  if (operation !== 'set' || urns.length !== 1 || options.query !== undefined || options.dryRun) {
    throw new CliError('--if-version applies to values set on one entity: give one --urn (and no --query or --dry-run)', EXIT.usage);
  }
  const parsed = tryParseUrn(urns[0]!);
  if (!parsed.ok) throw new CliError(`'${urns[0]}' is not an urn (${parsed.reason})`, EXIT.usage);
  const propertyUrn = propertyUrnOf(property);
  const written = await ctx.api().setValues(parsed.urn.entityType.name, parsed.urn.value, propertyUrn, values.map((v) => ({ string: v })), options.ifVersion);
  const version = (written.structuredProperties as { systemMetadata?: { version?: unknown } } | undefined)?.systemMetadata?.version;
  printLine(ctx.terminal.stdout, `Set ${propertyName(propertyUrn)} = ${values.join(', ')} on ${parsed.urn.value}${version !== undefined ? ` (now version ${String(version)})` : ''}.`);
  return EXIT.ok;
}
