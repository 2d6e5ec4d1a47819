/** `propgraph properties upsert|get|list` (docs/contract.md §9). */
import { ENTITY } from '../../domain/registry/entityTypes.js';
import { checkCompatibility } from '../../domain/compatibility.js';
import { IncompatibleChangeError, ServiceError } from '../../domain/errors.js';
import { describeImpact } from '../../domain/valueImpact.js';
import { LIMITS } from '../../domain/limits.js';
import type { PropertyDefinition } from '../../domain/propertyDefinition.js';
import { tryParseUrn } from '../../domain/urn.js';
import { mapLimited } from '../concurrency.js';
import type { CommandContext } from '../context.js';
import { ApiError, CliError, EXIT, type ExitCode } from '../errors.js';
import { describeEntry, FileProblems } from '../files/fileProblems.js';
import { parsePropertyFile, type PropertyEntry } from '../files/propertyFile.js';
import { loadYamlFile } from '../files/yamlFile.js';
import { RunProgress } from '../progress.js';
import { snakeCaseDefinition } from '../propertyOutput.js';
import { aspectValue, type RestApi } from '../restApi.js';
import { printLine } from '../terminal.js';

const URN_PREFIX = 'urn:li:structuredProperty:';
const READ_CONCURRENCY = 8;
const SOFT_DELETED_TOO = 'removed:true OR removed:false';

export interface UpsertOptions {
  readonly file: string;
  readonly dryRun?: boolean;
  readonly atomic?: boolean;
}

/**
 * Checks each entry against what the server holds now (soft deleted? a breaking
 * change without a new version?), so that such a file fails before any write.
 * Returns the urns already defined, so the run can say "Updated" rather than "Created".
 */
async function checkAgainstServer(api: RestApi, file: string, entries: readonly PropertyEntry[], progress: RunProgress): Promise<Map<string, PropertyDefinition>> {
  const problems = new FileProblems(file);
  const existing = new Map<string, PropertyDefinition>();
  let checked = 0;
  await mapLimited(entries, READ_CONCURRENCY, async (e) => {
    const state = await api.getPropertyState(e.urn);
    progress.step(++checked, 'checked');
    if (!state) return;
    existing.set(e.urn, state.definition);
    if (state.removed) {
      problems.add(e.line, e.entry, undefined, `${e.urn} is soft deleted: Cannot mutate a soft deleted Structured Property Definition`);
      return;
    }
    try {
      checkCompatibility(state.definition, e.definition);
    } catch (err) {
      if (!(err instanceof ServiceError)) throw err;
      if (err instanceof IncompatibleChangeError) {
        // Breaking in form: the server judges it against the values it holds (docs/contract.md §14), and says what a new version would drop.
        try {
          await api.writeImpact(ENTITY.structuredProperty.name, e.urn, 'propertyDefinition', e.definition);
        } catch (refused) {
          if (!(refused instanceof ApiError) || refused.status !== 400) throw refused;
          problems.add(e.line, e.entry, undefined, refused.detail ?? refused.message);
        }
        return;
      }
      problems.add(e.line, e.entry, err.field === 'version' ? 'version' : undefined, err.message);
    }
  });
  problems.throwIfAny();
  return existing;
}

/** DataHub prints "Created structured property <urn>" for every entry; an existing definition is said to be updated. */
const written = (existing: ReadonlyMap<string, unknown>, urn: string) => `${existing.has(urn) ? 'Updated' : 'Created'} structured property ${urn}`;

export async function upsertProperties(ctx: CommandContext, options: UpsertOptions): Promise<ExitCode> {
  const entries = parsePropertyFile(loadYamlFile(options.file));
  const api = ctx.api();
  if (options.atomic && entries.length > LIMITS.batchEntities) {
    throw new CliError(`--atomic writes the whole file in one request, which holds at most ${LIMITS.batchEntities} entries; ${options.file} has ${entries.length}`, EXIT.usage);
  }
  const progress = new RunProgress(ctx.terminal, entries.length, 'written');
  const existing = await checkAgainstServer(api, options.file, entries, progress);
  if (options.dryRun) {
    progress.clear();
    // A new version drops the values written under the old one: say how many, before anyone runs it.
    for (const e of entries) {
      const stored = existing.get(e.urn);
      if (!stored || e.definition.version === undefined || e.definition.version === stored.version) continue;
      const impact = await api.writeImpact(ENTITY.structuredProperty.name, e.urn, 'propertyDefinition', e.definition);
      printLine(ctx.terminal.stdout, `${e.urn}: version ${e.definition.version} would drop ${describeImpact(impact)}.`);
    }
    printLine(ctx.terminal.stdout, `${options.file}: ${entries.length} structured propert${entries.length === 1 ? 'y is' : 'ies are'} valid; nothing was written (dry run).`);
    return EXIT.ok;
  }
  progress.step(0);
  if (options.atomic) {
    try {
      await api.batchUpsert(ENTITY.structuredProperty.name, entries.map((e) => ({ urn: e.urn, aspects: { propertyDefinition: e.definition } })));
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      progress.clear();
      throw new CliError(`${options.file}: the server rejected the file (${err.message}); nothing was written (--atomic).`);
    }
    for (const e of entries) progress.succeeded(written(existing, e.urn));
  } else {
    for (const e of entries) {
      try {
        await api.upsertAspect(ENTITY.structuredProperty.name, e.urn, 'propertyDefinition', e.definition);
        progress.succeeded(written(existing, e.urn));
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        progress.failedWith(`${options.file}:${e.line}: ${describeEntry(e.entry)}: not written: ${err.message}`);
      }
    }
  }
  progress.finish();
  return progress.counts.failed > 0 ? EXIT.failed : EXIT.ok;
}

/** `urn:li:structuredProperty:x` or just `x`. */
export function propertyUrnOf(input: string): string {
  const urn = input.startsWith('urn:') ? input : `${URN_PREFIX}${input}`;
  const parsed = tryParseUrn(urn);
  if (!parsed.ok || parsed.urn.entityType !== ENTITY.structuredProperty) {
    throw new CliError(`'${input}' is not a structured property urn or qualified name${parsed.ok ? '' : ` (${parsed.reason})`}`, EXIT.usage);
  }
  return urn;
}

export async function getProperty(ctx: CommandContext, input: string): Promise<ExitCode> {
  const urn = propertyUrnOf(input);
  const state = await ctx.api().getPropertyState(urn);
  if (!state) throw new CliError(`Structured property ${urn} does not exist`);
  // Marked as `dataset get` marks a soft-deleted dataset.
  const out = { ...snakeCaseDefinition(urn, state.definition), ...(state.removed ? { removed: true } : {}) };
  printLine(ctx.terminal.stdout, JSON.stringify(out, null, 2));
  return EXIT.ok;
}

/** Every definition with its soft-delete mark, in urn order. */
async function allDefinitions(ctx: CommandContext): Promise<Array<{ urn: string; definition: PropertyDefinition; removed: boolean }>> {
  const api = ctx.api();
  const read = async (query: string | undefined) => {
    const found: Array<{ urn: string; definition: PropertyDefinition; removed: boolean }> = [];
    let scrollId: string | undefined;
    do {
      const page = await api.listEntities(ENTITY.structuredProperty.name, { count: 1000, aspects: ['propertyDefinition', 'status'], ...(query ? { query } : {}), ...(scrollId ? { scrollId } : {}) });
      for (const entity of page.entities) {
        const definition = aspectValue<PropertyDefinition>(entity, 'propertyDefinition');
        if (definition) found.push({ urn: entity.urn, definition, removed: aspectValue<{ removed?: boolean }>(entity, 'status')?.removed === true });
      }
      scrollId = page.scrollId ?? undefined;
    } while (scrollId);
    return found;
  };
  try {
    // A listing leaves soft-deleted entities out unless the query names `removed` (docs/search.md).
    return await read(SOFT_DELETED_TOO);
  } catch (err) {
    // Without search (503) only the plain listing exists, and it cannot show soft-deleted ones (docs/cli.md).
    if (!(err instanceof ApiError && err.status === 503)) throw err;
    return read(undefined);
  }
}

export async function listProperties(ctx: CommandContext, options: { details?: boolean }): Promise<ExitCode> {
  const all = await allDefinitions(ctx);
  if (options.details) {
    const details = all.map((p) => ({ ...snakeCaseDefinition(p.urn, p.definition), ...(p.removed ? { removed: true } : {}) }));
    printLine(ctx.terminal.stdout, JSON.stringify(details, null, 2));
  } else {
    for (const p of all) printLine(ctx.terminal.stdout, p.removed ? `${p.urn} (soft deleted)` : p.urn);
  }
  return EXIT.ok;
}
