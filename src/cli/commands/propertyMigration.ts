/**
 * `propgraph properties migrate -f <file> [--remap FROM=TO]... [--convert] [--drop-invalid]
 * [--dry-run]` (docs/contract.md §14, "Definitions evolve"): writes each definition of the
 * file with a migration that keeps the stored values the change would break, instead of
 * a new version that drops them; `--dry-run` says what each rule would do and writes
 * nothing. The values are then rewritten by a job, followed here with its progress.
 */
import type { CommandContext } from '../context.js';
import { CliError, EXIT, type ExitCode } from '../errors.js';
import { parsePropertyFile, type PropertyEntry } from '../files/propertyFile.js';
import { loadYamlFile } from '../files/yamlFile.js';
import { RunProgress } from '../progress.js';
import { followRebuild, type JobView } from '../rebuildJob.js';
import type { DefinitionDryRun } from '../restApi.js';
import { printLine } from '../terminal.js';

export interface MigrateOptions {
  readonly file: string;
  readonly remap?: readonly string[];
  readonly convert?: boolean;
  readonly dropInvalid?: boolean;
  readonly dryRun?: boolean;
  readonly wait: boolean;
}

const MIGRATION_JOB = 'migrate-property-values';

/** A value as the property of `valueType` holds it: a number for number properties, else the text. */
function typed(text: string, valueType: string, what: string): { double: number } | { string: string } {
  if (!/number$/.test(valueType)) return { string: text };
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n)) throw new CliError(`--remap ${what}: '${text}' is not a number, and the property's values are numbers`, EXIT.usage);
  return { double: n };
}

function migrationOf(options: MigrateOptions, before: string, after: string): Record<string, unknown> {
  const remap = (options.remap ?? []).map((spec) => {
    const at = spec.indexOf('=');
    if (at <= 0) throw new CliError(`--remap takes FROM=TO (e.g. --remap 3=2), not '${spec}'`, EXIT.usage);
    return { from: typed(spec.slice(0, at), before, spec), to: typed(spec.slice(at + 1), after, spec) };
  });
  if (remap.length === 0 && !options.convert && !options.dropInvalid) {
    throw new CliError('properties migrate: give a rule: --remap FROM=TO (repeatable), --convert, or --drop-invalid', EXIT.usage);
  }
  return { ...(remap.length > 0 ? { remap } : {}), ...(options.convert ? { convert: true } : {}), ...(options.dropInvalid ? { dropInvalid: true } : {}) };
}

function show(value: unknown): string {
  const v = value as { double?: number; string?: string };
  return v.double !== undefined ? String(v.double) : String(v.string);
}

function printDryRun(ctx: CommandContext, entry: PropertyEntry, answer: DefinitionDryRun): void {
  const out = ctx.terminal.stdout;
  const breaking = answer.compatibility?.breaking ?? [];
  if (breaking.length === 0) printLine(out, `${entry.urn}: no stored value breaks under this definition; it needs no migration.`);
  for (const b of breaking) printLine(out, `${entry.urn}: ${b.change}: ${b.holders ?? '?'} entit${b.holders === 1 ? 'y holds' : 'ies hold'} values it breaks`);
  const m = answer.compatibility?.migration;
  if (!m) return;
  for (const r of m.rules) {
    printLine(out, `  ${r.rule}: ${r.values} value${r.values === 1 ? '' : 's'} on ${r.entities} entit${r.entities === 1 ? 'y' : 'ies'}`);
    for (const e of r.examples.slice(0, 3)) printLine(out, `    e.g. ${e.urn}: ${e.before.map(show).join(', ')} -> ${e.after ? e.after.map(show).join(', ') : '(dropped)'}`);
  }
  printLine(out, `  ${m.changed} of the ${m.holders} entities holding values would change; nothing was written (dry run).`);
}

export async function migrateProperties(ctx: CommandContext, options: MigrateOptions): Promise<ExitCode> {
  const entries = parsePropertyFile(loadYamlFile(options.file));
  const api = ctx.api();
  const out = ctx.terminal.stdout;
  for (const entry of entries) {
    const stored = await api.getPropertyState(entry.urn);
    if (!stored) throw new CliError(`${options.file}:${entry.line}: ${entry.urn} does not exist; a migration changes an existing property (use properties upsert to create it)`);
    const migration = migrationOf(options, stored.definition.valueType, entry.definition.valueType);
    // The dry run says whether the write migrates anything (and refuses, naming why, what the write would refuse).
    const preview = await api.migrateDefinition(entry.urn, entry.definition, migration, true);
    if (options.dryRun) {
      printDryRun(ctx, entry, preview);
      continue;
    }
    await api.migrateDefinition(entry.urn, entry.definition, migration, false);
    if (!preview.compatibility?.migration) {
      printLine(out, `Updated structured property ${entry.urn}: no stored value needed migrating.`);
      continue;
    }
    const http = api.http;
    const [job] = (await http.request<{ jobs: JobView[] }>('GET', http.v3('/jobs'), { query: { kind: MIGRATION_JOB, propertyUrn: entry.urn, count: 1 } })).jobs;
    if (!job) throw new CliError(`${entry.urn} was updated, but the server lists no migration job for it`);
    printLine(out, `Updated structured property ${entry.urn}; its values are migrated by job ${job.id}.`);
    if (!options.wait) {
      printLine(out, `Not waiting; the job's progress is at ${http.settings.server}/openapi/v3/jobs/${job.id}.`);
      continue;
    }
    const progress = new RunProgress(ctx.terminal, job.total ?? 0, 'entities');
    let reported = -1;
    const done = await followRebuild(
      http,
      job.id,
      {
        progress: (j) => {
          progress.step(j.done);
          if (!progress.showsBar && j.done !== reported) {
            reported = j.done;
            printLine(out, `Migration job ${job.id}: ${j.done}/${j.total ?? '?'} entities`);
          }
        },
      },
      'Migration',
    );
    progress.clear();
    printLine(out, `Migration done (job ${done.id}): ${done.done} entities rewritten; every change is in their history.`);
  }
  return EXIT.ok;
}
