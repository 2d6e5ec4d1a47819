/**
 * `propgraph dataset upsert|get` (docs/contract.md §9, §13). Upsert creates the dataset
 * when missing and, for the dataset and each listed field with a `structured_properties`
 * key, sets the properties the file names and keeps the others (one entity-level JSON
 * patch per dataset, applied by the server to what it holds, so two teams' files on the
 * same datasets both stay); `--replace` replaces the whole structuredProperties aspect
 * instead. Entities and fields the file does not mention are left alone. `--dry-run`
 * prints what would be created and change, value by value (datasetPlan.ts decides it).
 * Datasets are written in batches, their fields after them.
 */
import { ENTITY } from '../../domain/registry/entityTypes.js';
import { LIMITS } from '../../domain/limits.js';
import type { StructuredPropertiesAspect } from '../../domain/structuredProperties.js';
import { scalarOf } from '../../domain/typedValue.js';
import { schemaFieldUrn, tryParseUrn } from '../../domain/urn.js';
import { mapLimited } from '../concurrency.js';
import type { CommandContext } from '../context.js';
import { ApiError, CliError, EXIT, type ExitCode } from '../errors.js';
import { parseDatasetFile } from '../files/datasetFile.js';
import { describeEntry } from '../files/fileProblems.js';
import { schemaFieldTypeWord } from '../files/schemaFieldTypes.js';
import { loadYamlFile } from '../files/yamlFile.js';
import { RunProgress } from '../progress.js';
import { aspectValue, type RestApi } from '../restApi.js';
import { printLine } from '../terminal.js';
import { changeText } from '../valueChanges.js';
import type { PatchOperation } from '../../domain/jsonPatch.js';
import { mergeOperations, planWrites, valueChangesOf, type DatasetWrite, type Mode } from './datasetPlan.js';

const PROPERTY_PREFIX = 'urn:li:structuredProperty:';
/**
 * Datasets per write request: one server transaction and one index wait for many
 * datasets, where one request each made 2,000 datasets take 65 s (issue #41).
 */
const WRITE_BATCH = 500;

interface SchemaMetadata {
  fields?: Array<{ fieldPath?: unknown; [key: string]: unknown }>;
  [key: string]: unknown;
}

/** Said where a run ends: what happened to the properties the file does not name. */
const MODE_NOTE = {
  merge: 'merged: properties the file does not name were kept (--replace replaces them)',
  replace: 'replaced: each entity now holds exactly the properties the file names',
} as const;

export interface DatasetUpsertOptions {
  readonly file: string;
  readonly dryRun?: boolean;
  readonly atomic?: boolean;
  /** Replace each named entity's whole structuredProperties (the default merges). */
  readonly replace?: boolean;
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** Prints, dataset by dataset, what the file would create and change; nothing is written. */
async function printDryRun(ctx: CommandContext, file: string, writes: readonly DatasetWrite[], mode: Mode): Promise<void> {
  const out = ctx.terminal.stdout;
  const planned = await valueChangesOf(ctx.api(), writes, mode);
  let created = 0;
  let updated = 0;
  const values = { entities: 0, changedEntities: 0, changedValues: 0 };
  for (const { write, values: entities } of planned) {
    values.entities += entities.length;
    const own = entities.find((v) => v.urn === write.source.urn);
    const fields = entities.filter((v) => v !== own && v.changes.length > 0);
    const changed = write.changes.length > 0 || (own?.changes.length ?? 0) > 0 || fields.length > 0;
    if (!write.exists) created++;
    else if (changed) updated++;
    if (!changed && write.exists) continue;
    printLine(out, write.exists ? write.source.urn : `${write.source.urn} (new)`);
    for (const c of write.changes) printLine(out, `  ${c}`);
    for (const c of own?.changes ?? []) printLine(out, `  ${changeText(c)}`);
    for (const f of fields) {
      printLine(out, `  ${f.urn}`);
      for (const c of f.changes) printLine(out, `    ${changeText(c)}`);
    }
    for (const e of entities) {
      if (e.changes.length === 0) continue;
      values.changedEntities++;
      values.changedValues += e.changes.length;
    }
  }
  const n = writes.length;
  const rule = mode === 'merge' ? 'merge: properties the file does not name are kept' : 'replace: each entity would hold exactly the properties the file names';
  printLine(
    out,
    `${file}: ${plural(n, 'dataset is', 'datasets are')} valid; ${created} would be created, ${updated} updated and ${n - created - updated} left as they are; ` +
      `${plural(values.changedValues, 'property', 'properties')} would change on ${values.changedEntities} of ${values.entities} entities (${rule}). Nothing was written (dry run).`,
  );
}

function fieldPatches(w: DatasetWrite): Array<{ urn: string; patches: Record<string, PatchOperation[]> }> {
  return w.fields.map((f) => ({ urn: f.urn, patches: { structuredProperties: mergeOperations(f.aspect) } })).filter((f) => f.patches.structuredProperties.length > 0);
}

/** Said after a 412: the dataset changed between this run's read and its write. */
const STALE_HINT = '. Nothing of this dataset was written: it changed after this run read it. Run the command again to apply the file over that change';

/** Writes datasets and then their fields in batches; a refused batch is written again one dataset at a time, so a refusal names its entry. */
class BatchWriter {
  constructor(
    private readonly api: RestApi,
    private readonly mode: Mode,
    private readonly file: string,
    private readonly progress: RunProgress,
  ) {}

  private datasets(batch: readonly DatasetWrite[]): Promise<unknown> {
    return this.mode === 'merge'
      ? this.api.batchPatch(ENTITY.dataset.name, batch.map((w) => ({ urn: w.source.urn, patches: w.patches, versions: w.versions })))
      : this.api.batchUpsert(ENTITY.dataset.name, batch.map((w) => ({ urn: w.source.urn, aspects: w.aspects, versions: w.versions })));
  }

  private async fields(batch: readonly DatasetWrite[]): Promise<void> {
    if (this.mode === 'merge') {
      const patches = batch.flatMap(fieldPatches);
      for (let i = 0; i < patches.length; i += LIMITS.batchEntities) await this.api.batchPatch(ENTITY.schemaField.name, patches.slice(i, i + LIMITS.batchEntities));
    } else {
      const aspects = batch.flatMap((w) => w.fields.map((f) => ({ urn: f.urn, aspects: { structuredProperties: f.aspect } })));
      for (let i = 0; i < aspects.length; i += LIMITS.batchEntities) await this.api.batchUpsert(ENTITY.schemaField.name, aspects.slice(i, i + LIMITS.batchEntities));
    }
  }

  private where(w: DatasetWrite): string {
    return `${this.file}:${w.source.line}: ${describeEntry(w.source.entry)}`;
  }

  /** Runs one write for the batch, or for each of its datasets if the server refuses it; answers those written. */
  private async eachOrAll(batch: readonly DatasetWrite[], write: (b: readonly DatasetWrite[]) => Promise<unknown>, failure: string): Promise<DatasetWrite[]> {
    try {
      await write(batch);
      return [...batch];
    } catch (err) {
      if (!(err instanceof ApiError) || batch.length === 1) {
        if (!(err instanceof ApiError)) throw err;
        this.progress.failedWith(`${this.where(batch[0]!)}: ${failure}${err.status === 412 ? `${err.message.replace(/\.$/, '')}${STALE_HINT}` : err.message}`);
        return [];
      }
    }
    const written: DatasetWrite[] = [];
    for (const w of batch) written.push(...(await this.eachOrAll([w], write, failure)));
    return written;
  }

  async write(writes: readonly DatasetWrite[]): Promise<void> {
    for (let i = 0; i < writes.length; i += WRITE_BATCH) {
      const batch = writes.slice(i, i + WRITE_BATCH);
      const datasets = await this.eachOrAll(batch, (b) => this.datasets(b), 'not written: ');
      const withFields = await this.eachOrAll(datasets, (b) => this.fields(b), 'the dataset was written but its fields were not: ');
      for (const w of withFields) this.progress.succeeded(`Update succeeded for urn ${w.source.urn}.`);
    }
  }

  async atomic(writes: readonly DatasetWrite[]): Promise<void> {
    try {
      await this.datasets(writes);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      this.progress.clear();
      throw new CliError(`${this.file}: the server rejected the file (${err.message}); nothing was written (--atomic).`);
    }
    for (const w of writes) this.progress.succeeded(`Update succeeded for urn ${w.source.urn}.`);
  }
}

export async function upsertDatasets(ctx: CommandContext, options: DatasetUpsertOptions): Promise<ExitCode> {
  const entries = parseDatasetFile(loadYamlFile(options.file));
  const mode: Mode = options.replace ? 'replace' : 'merge';
  if (options.atomic && entries.some((e) => e.fields.some((f) => f.assignments))) {
    throw new CliError(
      `--atomic cannot cover field-level structured_properties in ${options.file}: the server writes datasets and schema fields in separate transactions. Run without --atomic.`,
      EXIT.usage,
    );
  }
  if (options.atomic && entries.length > LIMITS.batchEntities) {
    throw new CliError(`--atomic writes the whole file in one request, which holds at most ${LIMITS.batchEntities} datasets; ${options.file} has ${entries.length}`, EXIT.usage);
  }
  const api = ctx.api();
  const progress = new RunProgress(ctx.terminal, entries.length, 'written');
  const writes = await planWrites(api, options.file, entries, progress);
  if (options.dryRun) {
    progress.clear();
    await printDryRun(ctx, options.file, writes, mode);
    return EXIT.ok;
  }
  progress.step(0);
  const writer = new BatchWriter(api, mode, options.file, progress);
  await (options.atomic ? writer.atomic(writes) : writer.write(writes));
  progress.finish(MODE_NOTE[mode]);
  return progress.counts.failed > 0 ? EXIT.failed : EXIT.ok;
}

/** `{qualifiedName: scalar | [scalars]}`: the file's form, so a read can be written back. */
function propertiesAsFileMap(aspect: StructuredPropertiesAspect | undefined): Record<string, unknown> | undefined {
  if (!aspect || aspect.properties.length === 0) return undefined;
  const out: Record<string, unknown> = {};
  for (const p of aspect.properties) {
    const name = p.propertyUrn.startsWith(PROPERTY_PREFIX) ? p.propertyUrn.slice(PROPERTY_PREFIX.length) : p.propertyUrn;
    const values = p.values.map(scalarOf);
    out[name] = values.length === 1 ? values[0] : values;
  }
  return out;
}

export async function getDataset(ctx: CommandContext, input: string): Promise<ExitCode> {
  const parsed = tryParseUrn(input);
  if (!parsed.ok || parsed.urn.entityType !== ENTITY.dataset) {
    throw new CliError(`'${input}' is not a dataset urn${parsed.ok ? '' : ` (${parsed.reason})`}; expected urn:li:dataset:(urn:li:dataPlatform:<platform>,<name>,<env>)`, EXIT.usage);
  }
  const api = ctx.api();
  const entity = await api.getEntity(ENTITY.dataset.name, input, undefined, { systemMetadata: true });
  if (!entity) throw new CliError(`Dataset ${input} does not exist`);
  const [platformUrn, name, origin] = parsed.urn.parts as [string, string, string];
  const out: Record<string, unknown> = {
    urn: input,
    id: name,
    platform: platformUrn.replace(/^urn:li:dataPlatform:/, ''),
    env: origin,
  };
  if (aspectValue<{ removed?: boolean }>(entity, 'status')?.removed) out.removed = true;
  const props = aspectValue<{ name?: unknown; description?: unknown }>(entity, 'datasetProperties');
  for (const key of ['name', 'description'] as const) if (typeof props?.[key] === 'string') out[key] = props[key];
  const own = propertiesAsFileMap(aspectValue<StructuredPropertiesAspect>(entity, 'structuredProperties'));
  if (own) out.structured_properties = own;
  // What `values set --if-version` names, so that a write over a change made since is refused (docs/cli.md).
  const version = (entity.structuredProperties as { systemMetadata?: { version?: unknown } } | undefined)?.systemMetadata?.version;
  if (own && version !== undefined) out.structured_properties_version = String(version);

  const stored = (aspectValue<SchemaMetadata>(entity, 'schemaMetadata')?.fields ?? []).filter((f) => typeof f.fieldPath === 'string');
  if (stored.length > 0) {
    const urns = stored.map((f) => schemaFieldUrn(input, f.fieldPath as string));
    const chunks: string[][] = [];
    for (let i = 0; i < urns.length; i += LIMITS.batchEntities) chunks.push(urns.slice(i, i + LIMITS.batchEntities));
    const held = new Map((await mapLimited(chunks, 2, (chunk) => api.batchGet(ENTITY.schemaField.name, chunk, ['structuredProperties']))).flat().map((b) => [b.urn, b]));
    const fields = stored.map((f, i) => {
      const urn = urns[i]!;
      const body = held.get(urn);
      const values = propertiesAsFileMap(body && aspectValue<StructuredPropertiesAspect>(body, 'structuredProperties'));
      const type = schemaFieldTypeWord(f.type);
      return {
        id: f.fieldPath as string,
        urn,
        ...(type ? { type } : {}),
        ...(typeof f.nativeDataType === 'string' && f.nativeDataType !== type ? { nativeDataType: f.nativeDataType } : {}),
        ...(typeof f.description === 'string' ? { description: f.description } : {}),
        ...(values ? { structured_properties: values } : {}),
      };
    });
    out.schema = { fields };
  }
  printLine(ctx.terminal.stdout, JSON.stringify(out, null, 2));
  return EXIT.ok;
}

export async function listDatasets(ctx: CommandContext): Promise<ExitCode> {
  const api = ctx.api();
  let scrollId: string | undefined;
  do {
    const page = await api.listEntities(ENTITY.dataset.name, { count: 1000, aspects: ['status'], ...(scrollId ? { scrollId } : {}) });
    for (const entity of page.entities) printLine(ctx.terminal.stdout, entity.urn);
    scrollId = page.scrollId ?? undefined;
  } while (scrollId);
  return EXIT.ok;
}
