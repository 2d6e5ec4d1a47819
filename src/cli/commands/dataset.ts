/**
 * `propgraph dataset upsert|get` (docs/contract.md §9, §13). Upsert creates the dataset
 * when missing and, for the dataset and each listed field with a `structured_properties`
 * key, sets the properties the file names and keeps the others (one entity-level JSON
 * patch per dataset, applied by the server to what it holds, so two teams' files on the
 * same datasets both stay); `--replace` replaces the whole structuredProperties aspect
 * instead. Entities and fields the file does not mention are left alone. `--dry-run`
 * prints what would change, value by value.
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
import { changesBetween, printChanges } from '../valueChanges.js';
import type { PatchOperation } from '../../domain/jsonPatch.js';

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

/** Said where a run ends: what happened to the properties the file does not name. */
const MODE_NOTE = {
  merge: 'merged: properties the file does not name were kept (--replace replaces them)',
  replace: 'replaced: each entity now holds exactly the properties the file names',
} as const;

type Mode = keyof typeof MODE_NOTE;

export interface DatasetUpsertOptions {
  readonly file: string;
  readonly dryRun?: boolean;
  readonly atomic?: boolean;
  /** Replace each named entity's whole structuredProperties (the default merges). */
  readonly replace?: boolean;
}

/** A JSON pointer segment (RFC 6901). */
const pointer = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

/** The patch that sets the properties named and keeps the others. */
function mergeOperations(aspect: StructuredPropertiesAspect): PatchOperation[] {
  return aspect.properties.map((p) => ({ op: 'add', path: `/properties/${pointer(p.propertyUrn)}`, value: p }));
}

/** What an entity's structuredProperties become when the file's are merged into the current ones. */
function merged(current: unknown, named: StructuredPropertiesAspect): StructuredPropertiesAspect {
  let entries = [...((current as StructuredPropertiesAspect | undefined)?.properties ?? [])];
  for (const p of named.properties) {
    // The property's entries (one per attribution source) become the file's one, where the first stood: what the patch does.
    const at = entries.findIndex((e) => e.propertyUrn === p.propertyUrn);
    entries = entries.filter((e) => e.propertyUrn !== p.propertyUrn);
    entries.splice(at < 0 ? entries.length : at, 0, p);
  }
  return { properties: entries };
}

/** Every entity the file sets values on: the datasets and fields with a structured_properties key. */
function valueTargets(writes: readonly DatasetWrite[]): Array<{ urn: string; entityType: string; aspect: StructuredPropertiesAspect }> {
  return writes.flatMap((w) => [
    ...(w.datasetAspects.structuredProperties ? [{ urn: w.source.urn, entityType: ENTITY.dataset.name, aspect: w.datasetAspects.structuredProperties as StructuredPropertiesAspect }] : []),
    ...w.fieldAspects.map((f) => ({ urn: f.urn, entityType: ENTITY.schemaField.name, aspect: f.aspects.structuredProperties as StructuredPropertiesAspect })),
  ]);
}

/** The current structuredProperties of the entities (absent: none, or no such entity). */
async function currentValues(api: RestApi, targets: ReadonlyArray<{ urn: string; entityType: string }>): Promise<Map<string, unknown>> {
  const out = new Map<string, unknown>();
  for (const entityType of new Set(targets.map((t) => t.entityType))) {
    const urns = targets.filter((t) => t.entityType === entityType).map((t) => t.urn);
    for (let i = 0; i < urns.length; i += LIMITS.batchEntities) {
      for (const found of await api.batchGet(entityType, urns.slice(i, i + LIMITS.batchEntities), ['structuredProperties'])) {
        const value = aspectValue(found, 'structuredProperties');
        if (value) out.set(found.urn, value);
      }
    }
  }
  return out;
}

/** Prints, value by value, what the file would change; nothing is written. */
async function printDryRun(ctx: CommandContext, file: string, writes: readonly DatasetWrite[], mode: Mode): Promise<void> {
  const targets = valueTargets(writes);
  const current = await currentValues(ctx.api(), targets);
  const counts = printChanges(
    ctx.terminal.stdout,
    targets.map((t) => ({ urn: t.urn, changes: changesBetween(current.get(t.urn), mode === 'merge' ? merged(current.get(t.urn), t.aspect) : t.aspect) })),
  );
  const n = writes.length;
  const rule = mode === 'merge' ? 'merge: properties the file does not name are kept' : 'replace: each entity would hold exactly the properties the file names';
  printLine(
    ctx.terminal.stdout,
    `${file}: ${n} dataset${n === 1 ? ' is' : 's are'} valid; ${counts.changedValues} propert${counts.changedValues === 1 ? 'y' : 'ies'} would change on ${counts.changedEntities} of ${counts.entities} entities (${rule}). Nothing was written (dry run).`,
  );
}

/** The entity-level patches that create the dataset, add its fields and merge its values. */
function datasetPatch(w: DatasetWrite): { urn: string; patches: Record<string, PatchOperation[]> } {
  const patches: Record<string, PatchOperation[]> = {};
  for (const [aspect, value] of Object.entries(w.datasetAspects)) {
    if (aspect === 'structuredProperties') {
      const ops = mergeOperations(value as StructuredPropertiesAspect);
      if (ops.length > 0) patches[aspect] = ops;
    } else patches[aspect] = [{ op: 'add', path: '', value }];
  }
  return { urn: w.source.urn, patches };
}

function fieldPatches(w: DatasetWrite): Array<{ urn: string; patches: Record<string, PatchOperation[]> }> {
  return w.fieldAspects
    .map((f) => ({ urn: f.urn, patches: { structuredProperties: mergeOperations(f.aspects.structuredProperties as StructuredPropertiesAspect) } }))
    .filter((f) => f.patches.structuredProperties.length > 0);
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
  const writes = await prepareWrites(api, options.file, entries, progress);
  if (options.dryRun) {
    progress.clear();
    await printDryRun(ctx, options.file, writes, mode);
    return EXIT.ok;
  }
  const writeDatasets = (batch: readonly DatasetWrite[]) =>
    mode === 'merge'
      ? api.batchPatch(ENTITY.dataset.name, batch.map(datasetPatch))
      : api.batchUpsert(ENTITY.dataset.name, batch.map((w) => ({ urn: w.source.urn, aspects: w.datasetAspects })));
  const writeFields = async (w: DatasetWrite) => {
    // In batches the server accepts: a wide dataset can have more fields than one batch holds.
    if (mode === 'merge') {
      const patches = fieldPatches(w);
      for (let i = 0; i < patches.length; i += LIMITS.batchEntities) await api.batchPatch(ENTITY.schemaField.name, patches.slice(i, i + LIMITS.batchEntities));
    } else {
      for (let i = 0; i < w.fieldAspects.length; i += LIMITS.batchEntities) await api.batchUpsert(ENTITY.schemaField.name, w.fieldAspects.slice(i, i + LIMITS.batchEntities));
    }
  };
  progress.step(0);
  if (options.atomic) {
    try {
      await writeDatasets(writes);
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
        await writeDatasets([w]);
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        progress.failedWith(`${where}: not written: ${err.message}`);
        continue;
      }
      try {
        await writeFields(w);
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        progress.failedWith(`${where}: the dataset was written but its fields were not: ${err.message}`);
        continue;
      }
      progress.succeeded(`Update succeeded for urn ${w.source.urn}.`);
    }
  }
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
  const own = propertiesAsFileMap(aspectValue<StructuredPropertiesAspect>(entity, 'structuredProperties'));
  if (own) out.structured_properties = own;
  // What `values set --if-version` names, so that a write over a change made since is refused (docs/cli.md).
  const version = (entity.structuredProperties as { systemMetadata?: { version?: unknown } } | undefined)?.systemMetadata?.version;
  if (own && version !== undefined) out.structured_properties_version = String(version);

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
