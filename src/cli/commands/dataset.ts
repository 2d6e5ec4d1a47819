/**
 * `propgraph dataset upsert|get` (docs/contract.md §9). Upsert creates the dataset
 * when missing and REPLACES the structuredProperties aspect of the dataset and of
 * each listed field that has a `structured_properties` key (docs/contract.md §3); entities and
 * fields the file does not mention are left alone.
 */
import { ENTITY } from '../../domain/registry/entityTypes.js';
import { LIMITS } from '../../domain/limits.js';
import type { StructuredPropertiesAspect } from '../../domain/structuredProperties.js';
import { scalarOf } from '../../domain/typedValue.js';
import { schemaFieldUrn, tryParseUrn } from '../../domain/urn.js';
import { mapLimited } from '../concurrency.js';
import type { CommandContext } from '../context.js';
import { ApiError, CliError, EXIT, type ExitCode } from '../errors.js';
import { parseDatasetFile, type DatasetEntry } from '../files/datasetFile.js';
import { typedAspect, type KnownProperty } from '../files/datasetValues.js';
import { describeEntry, FileProblems } from '../files/fileProblems.js';
import { loadYamlFile } from '../files/yamlFile.js';
import { RunProgress } from '../progress.js';
import { aspectValue, type RestApi } from '../restApi.js';
import { printLine } from '../terminal.js';

const READ_CONCURRENCY = 8;
const PROPERTY_PREFIX = 'urn:li:structuredProperty:';

interface SchemaMetadata {
  fields?: Array<{ fieldPath?: unknown }>;
  [key: string]: unknown;
}

/** One dataset ready to write: its aspects, then its fields' aspects. */
interface DatasetWrite {
  readonly source: DatasetEntry;
  readonly datasetAspects: Record<string, unknown>;
  readonly fieldAspects: Array<{ urn: string; aspects: Record<string, unknown> }>;
}

/**
 * The schema the dataset will have: the stored one plus any field the file names
 * that it lacks (as `{fieldPath}`), so `dataset get` can find the fields. Undefined
 * when nothing needs adding.
 */
function schemaWithFields(stored: SchemaMetadata | undefined, entry: DatasetEntry): SchemaMetadata | undefined {
  const known = new Set((stored?.fields ?? []).map((f) => f.fieldPath));
  const missing = entry.fields.filter((f) => !known.has(f.fieldPath));
  if (missing.length === 0) return undefined;
  const base: SchemaMetadata = stored ?? { schemaName: entry.name, platform: entry.platformUrn };
  return { ...base, fields: [...(stored?.fields ?? []), ...missing.map((f) => ({ fieldPath: f.fieldPath }))] };
}

async function prepareWrites(api: RestApi, file: string, entries: readonly DatasetEntry[], progress: RunProgress): Promise<DatasetWrite[]> {
  const propertyUrns = new Set<string>();
  for (const e of entries) {
    for (const a of e.assignments ?? []) propertyUrns.add(a.propertyUrn);
    for (const f of e.fields) for (const a of f.assignments ?? []) propertyUrns.add(a.propertyUrn);
  }
  const urns = [...propertyUrns];
  const states = await mapLimited(urns, READ_CONCURRENCY, (urn) => api.getPropertyState(urn));
  const known = new Map<string, KnownProperty | undefined>(urns.map((urn, i) => [urn, states[i]]));

  let checked = 0;
  const stored = await mapLimited(entries, READ_CONCURRENCY, async (e) => {
    const entity = e.fields.length > 0 ? await api.getEntity(ENTITY.dataset.name, e.urn, ['schemaMetadata']) : undefined;
    progress.step(++checked, 'checked');
    return entity ? aspectValue<SchemaMetadata>(entity, 'schemaMetadata') : undefined;
  });

  const problems = new FileProblems(file);
  const writes = entries.map((e, i): DatasetWrite => {
    const datasetAspects: Record<string, unknown> = { datasetKey: { platform: e.platformUrn, name: e.name, origin: e.origin } };
    const schema = schemaWithFields(stored[i], e);
    if (schema) datasetAspects.schemaMetadata = schema;
    if (e.assignments) {
      const aspect = typedAspect(e.assignments, ENTITY.dataset.name, known, problems, e.entry);
      if (aspect) datasetAspects.structuredProperties = aspect;
    }
    const fieldAspects: DatasetWrite['fieldAspects'] = [];
    for (const f of e.fields) {
      if (!f.assignments) continue;
      const aspect = typedAspect(f.assignments, ENTITY.schemaField.name, known, problems, e.entry);
      if (aspect) fieldAspects.push({ urn: f.urn, aspects: { structuredProperties: aspect } });
    }
    return { source: e, datasetAspects, fieldAspects };
  });
  problems.throwIfAny();
  return writes;
}

export async function upsertDatasets(ctx: CommandContext, options: { file: string; dryRun?: boolean; atomic?: boolean }): Promise<ExitCode> {
  const entries = parseDatasetFile(loadYamlFile(options.file));
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
  const writes = await prepareWrites(api, options.file, entries, progress);
  if (options.dryRun) {
    progress.clear();
    printLine(ctx.terminal.stdout, `${options.file}: ${entries.length} dataset${entries.length === 1 ? ' is' : 's are'} valid; nothing was written (dry run).`);
    return EXIT.ok;
  }
  progress.step(0);
  if (options.atomic) {
    try {
      await api.batchUpsert(ENTITY.dataset.name, writes.map((w) => ({ urn: w.source.urn, aspects: w.datasetAspects })));
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      progress.clear();
      throw new CliError(`${options.file}: the server rejected the file (${err.message}); nothing was written (--atomic).`);
    }
    for (const w of writes) progress.succeeded(`Update succeeded for urn ${w.source.urn}.`);
  } else {
    for (const w of writes) {
      const where = `${options.file}:${w.source.line}: ${describeEntry(w.source.entry)}`;
      try {
        await api.batchUpsert(ENTITY.dataset.name, [{ urn: w.source.urn, aspects: w.datasetAspects }]);
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        progress.failedWith(`${where}: not written: ${err.message}`);
        continue;
      }
      try {
        // In batches the server accepts: a wide dataset can have more fields than one batch holds.
        for (let i = 0; i < w.fieldAspects.length; i += LIMITS.batchEntities) await api.batchUpsert(ENTITY.schemaField.name, w.fieldAspects.slice(i, i + LIMITS.batchEntities));
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        progress.failedWith(`${where}: the dataset was written but its fields were not: ${err.message}`);
        continue;
      }
      progress.succeeded(`Update succeeded for urn ${w.source.urn}.`);
    }
  }
  progress.finish();
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
  const entity = await api.getEntity(ENTITY.dataset.name, input);
  if (!entity) throw new CliError(`Dataset ${input} does not exist`);
  const [platformUrn, name, origin] = parsed.urn.parts as [string, string, string];
  const out: Record<string, unknown> = {
    urn: input,
    id: name,
    platform: platformUrn.replace(/^urn:li:dataPlatform:/, ''),
    env: origin,
  };
  if (aspectValue<{ removed?: boolean }>(entity, 'status')?.removed) out.removed = true;
  const own = propertiesAsFileMap(aspectValue<StructuredPropertiesAspect>(entity, 'structuredProperties'));
  if (own) out.structured_properties = own;

  const paths = (aspectValue<SchemaMetadata>(entity, 'schemaMetadata')?.fields ?? [])
    .map((f) => f.fieldPath)
    .filter((p): p is string => typeof p === 'string');
  if (paths.length > 0) {
    const fields = await mapLimited(paths, READ_CONCURRENCY, async (fieldPath) => {
      const urn = schemaFieldUrn(input, fieldPath);
      const field = await api.getEntity(ENTITY.schemaField.name, urn, ['structuredProperties']);
      const props = propertiesAsFileMap(field && aspectValue<StructuredPropertiesAspect>(field, 'structuredProperties'));
      return { id: fieldPath, urn, ...(props ? { structured_properties: props } : {}) };
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
