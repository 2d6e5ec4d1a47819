/**
 * What `dataset upsert -f` will write (docs/cli.md, "Dataset file"), decided from the file
 * and what the server holds, read in batches: per dataset, whether it exists, its
 * `datasetProperties` (description, name), its schema (fields added, their type, native
 * type and description) and the structured properties of it and its fields, as whole
 * aspects (`--replace`) and as patches (the merge). The same plan feeds the dry run,
 * which says what would be created and changed.
 */
import { ENTITY } from '../../domain/registry/entityTypes.js';
import { LIMITS } from '../../domain/limits.js';
import type { PatchOperation } from '../../domain/jsonPatch.js';
import type { StructuredPropertiesAspect } from '../../domain/structuredProperties.js';
import type { ValueChange } from '../../domain/valueHistory.js';
import { mapLimited } from '../concurrency.js';
import type { DatasetEntry, FieldEntry } from '../files/datasetFile.js';
import { typedAspect, type KnownProperty } from '../files/datasetValues.js';
import { FileProblems } from '../files/fileProblems.js';
import { schemaFieldTypeWord } from '../files/schemaFieldTypes.js';
import type { RunProgress } from '../progress.js';
import { aspectValue, aspectVersion, type EntityBody, type RestApi, type Versions } from '../restApi.js';
import { changesBetween } from '../valueChanges.js';

const READ_CONCURRENCY = 8;
/** What the plan reads of each dataset: the aspects it writes, whose versions its write names. */
const READ_ASPECTS = ['datasetKey', 'schemaMetadata', 'datasetProperties', 'structuredProperties'] as const;
/** Datasets read in one batchGet: their aspects stay within the request's result limit. */
const READ_BATCH = Math.min(LIMITS.batchEntities, Math.floor(LIMITS.requestedResults / READ_ASPECTS.length));

export type Mode = 'merge' | 'replace';

interface SchemaField {
  fieldPath?: unknown;
  [key: string]: unknown;
}

interface SchemaMetadata {
  fields?: SchemaField[];
  [key: string]: unknown;
}

type DatasetProperties = Record<string, unknown> & { description?: unknown; name?: unknown };

/** One dataset's writes and what they change. */
export interface DatasetWrite {
  readonly source: DatasetEntry;
  readonly exists: boolean;
  /** Whole aspects, for `--replace` (a batch upsert). */
  readonly aspects: Record<string, unknown>;
  /** Patches applied by the server to what it holds, for the merge (a batch patch). */
  readonly patches: Record<string, PatchOperation[]>;
  /** The fields' structured properties, each field an entity of its own. */
  readonly fields: ReadonlyArray<{ urn: string; aspect: StructuredPropertiesAspect }>;
  /** What changes besides values, as the dry run prints it (`description: (none) -> Orders`). */
  readonly changes: readonly string[];
  /**
   * The version of each aspect written as it was read ("-1": absent). The write names
   * them (If-Version-Match), so a change made between this run's read and its write is
   * refused and reported instead of overwritten (docs/cli.md, "Dataset file").
   */
  readonly versions: Versions;
}

/** What the server holds of the datasets the file names. */
interface Stored {
  readonly exists: boolean;
  readonly body: EntityBody;
  readonly schema?: SchemaMetadata;
  readonly properties?: DatasetProperties;
}

const text = (v: unknown): string => (typeof v === 'string' && v !== '' ? v : '(none)');

/** Reads the datasets in batches; those missing are absent from the map. */
async function readStored(api: RestApi, entries: readonly DatasetEntry[], progress: RunProgress): Promise<Map<string, Stored>> {
  const chunks: DatasetEntry[][] = [];
  for (let i = 0; i < entries.length; i += READ_BATCH) chunks.push(entries.slice(i, i + READ_BATCH));
  let checked = 0;
  const found = await mapLimited(chunks, 2, async (chunk) => {
    const bodies = await api.batchGet(ENTITY.dataset.name, chunk.map((e) => e.urn), [...READ_ASPECTS], { systemMetadata: true });
    checked += chunk.length;
    progress.step(checked, 'checked');
    return bodies;
  });
  const out = new Map<string, Stored>();
  for (const body of found.flat()) {
    const schema = aspectValue<SchemaMetadata>(body, 'schemaMetadata');
    const properties = aspectValue<DatasetProperties>(body, 'datasetProperties');
    out.set(body.urn, { exists: true, body, ...(schema ? { schema } : {}), ...(properties ? { properties } : {}) });
  }
  return out;
}

/**
 * The schema the dataset will have: the stored one, with the file's facts on the fields
 * it names and the fields it lacks added. Undefined when nothing changes.
 */
function nextSchema(stored: SchemaMetadata | undefined, entry: DatasetEntry, changes: string[]): SchemaMetadata | undefined {
  const fields: SchemaField[] = [...(stored?.fields ?? [])];
  let changed = false;
  for (const f of entry.fields) {
    const at = fields.findIndex((s) => s.fieldPath === f.fieldPath);
    const before: SchemaField = at >= 0 ? fields[at]! : { fieldPath: f.fieldPath };
    const after = withFacts(before, f);
    const said = factChanges(before, after, f.fieldPath);
    if (at < 0) {
      fields.push(after);
      changes.push(said.length > 0 ? `field ${f.fieldPath}: added, ${said.map((s) => s.slice(`field ${f.fieldPath}: `.length)).join(', ')}` : `field ${f.fieldPath}: added`);
      changed = true;
    } else if (said.length > 0) {
      fields[at] = after;
      changes.push(...said);
      changed = true;
    }
  }
  if (!changed) return undefined;
  const base: SchemaMetadata = stored ?? { schemaName: entry.name, platform: entry.platformUrn, version: 0 };
  return { ...base, fields };
}

function withFacts(stored: SchemaField, f: FieldEntry): SchemaField {
  return { ...stored, ...f.facts };
}

function factChanges(before: SchemaField, after: SchemaField, fieldPath: string): string[] {
  const out: string[] = [];
  const typeBefore = schemaFieldTypeWord(before.type);
  const typeAfter = schemaFieldTypeWord(after.type);
  if (typeBefore !== typeAfter) out.push(`field ${fieldPath}: type ${typeBefore ?? '(none)'} -> ${typeAfter ?? '(none)'}`);
  for (const key of ['nativeDataType', 'description'] as const) {
    if (before[key] !== after[key]) out.push(`field ${fieldPath}: ${key} ${text(before[key])} -> ${text(after[key])}`);
  }
  return out;
}

/** The datasetProperties keys the file sets that differ from the stored ones. */
function propertyChanges(stored: DatasetProperties | undefined, entry: DatasetEntry, changes: string[]): Array<['description' | 'name', string]> {
  const out: Array<['description' | 'name', string]> = [];
  for (const key of ['description', 'name'] as const) {
    const given = entry.properties[key];
    if (given === undefined || stored?.[key] === given) continue;
    changes.push(`${key}: ${text(stored?.[key])} -> ${given}`);
    out.push([key, given]);
  }
  return out;
}

/** A JSON pointer segment (RFC 6901). */
const pointer = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

/** The patch that sets the properties named and keeps the others. */
export function mergeOperations(aspect: StructuredPropertiesAspect): PatchOperation[] {
  return aspect.properties.map((p) => ({ op: 'add', path: `/properties/${pointer(p.propertyUrn)}`, value: p }));
}

/**
 * Checks the file's values against the definitions (every problem at once, nothing
 * written) and decides each dataset's writes from what the server holds.
 */
export async function planWrites(api: RestApi, file: string, entries: readonly DatasetEntry[], progress: RunProgress): Promise<DatasetWrite[]> {
  const propertyUrns = new Set<string>();
  for (const e of entries) {
    for (const a of e.assignments ?? []) propertyUrns.add(a.propertyUrn);
    for (const f of e.fields) for (const a of f.assignments ?? []) propertyUrns.add(a.propertyUrn);
  }
  const urns = [...propertyUrns];
  const states = await mapLimited(urns, READ_CONCURRENCY, (urn) => api.getPropertyState(urn));
  const known = new Map<string, KnownProperty | undefined>(urns.map((urn, i) => [urn, states[i]]));
  const stored = await readStored(api, entries, progress);

  const problems = new FileProblems(file);
  const writes = entries.map((e): DatasetWrite => {
    const held = stored.get(e.urn);
    const changes: string[] = [];
    const key = { platform: e.platformUrn, name: e.name, origin: e.origin };
    const aspects: Record<string, unknown> = { datasetKey: key };
    const patches: Record<string, PatchOperation[]> = { datasetKey: [{ op: 'add', path: '', value: key }] };
    const props = propertyChanges(held?.properties, e, changes);
    if (props.length > 0) {
      aspects.datasetProperties = { ...(held?.properties ?? {}), ...Object.fromEntries(props) };
      patches.datasetProperties = props.map(([k, v]) => ({ op: 'add', path: `/${k}`, value: v }));
    }
    const schema = nextSchema(held?.schema, e, changes);
    if (schema) {
      aspects.schemaMetadata = schema;
      patches.schemaMetadata = [{ op: 'add', path: '', value: schema }];
    }
    if (e.assignments) {
      const aspect = typedAspect(e.assignments, ENTITY.dataset.name, known, problems, e.entry);
      if (aspect) {
        aspects.structuredProperties = aspect;
        const ops = mergeOperations(aspect);
        if (ops.length > 0) patches.structuredProperties = ops;
      }
    }
    const fields: Array<{ urn: string; aspect: StructuredPropertiesAspect }> = [];
    for (const f of e.fields) {
      if (!f.assignments) continue;
      const aspect = typedAspect(f.assignments, ENTITY.schemaField.name, known, problems, e.entry);
      if (aspect) fields.push({ urn: f.urn, aspect });
    }
    // The key is the URN's own and the same in every write, so it needs no version.
    const versions = Object.fromEntries(Object.keys(aspects).filter((a) => a !== 'datasetKey').map((a) => [a, aspectVersion(held?.body, a)]));
    return { source: e, exists: held !== undefined, aspects, patches, fields, changes, versions };
  });
  problems.throwIfAny();
  return writes;
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

/** The current structuredProperties of the entities (absent: none, or no such entity). */
async function currentValues(api: RestApi, targets: ReadonlyArray<{ urn: string; entityType: string }>): Promise<Map<string, unknown>> {
  const out = new Map<string, unknown>();
  for (const entityType of new Set(targets.map((t) => t.entityType))) {
    const urns = targets.filter((t) => t.entityType === entityType).map((t) => t.urn);
    const chunks: string[][] = [];
    for (let i = 0; i < urns.length; i += LIMITS.batchEntities) chunks.push(urns.slice(i, i + LIMITS.batchEntities));
    const found: EntityBody[][] = await mapLimited(chunks, 2, (chunk) => api.batchGet(entityType, chunk, ['structuredProperties']));
    for (const body of found.flat()) {
      const value = aspectValue(body, 'structuredProperties');
      if (value) out.set(body.urn, value);
    }
  }
  return out;
}

/** A dataset's changes as the dry run prints them: its own, then its values', then its fields' values. */
export interface PlannedChanges {
  readonly write: DatasetWrite;
  readonly values: ReadonlyArray<{ urn: string; changes: readonly ValueChange[] }>;
}

/** Every value change the writes would make, read against what the server holds. */
export async function valueChangesOf(api: RestApi, writes: readonly DatasetWrite[], mode: Mode): Promise<PlannedChanges[]> {
  const targets = writes.flatMap((w) => [
    ...(w.aspects.structuredProperties ? [{ urn: w.source.urn, entityType: ENTITY.dataset.name }] : []),
    ...w.fields.map((f) => ({ urn: f.urn, entityType: ENTITY.schemaField.name })),
  ]);
  const current = await currentValues(api, targets);
  const next = (urn: string, aspect: StructuredPropertiesAspect) => (mode === 'merge' ? merged(current.get(urn), aspect) : aspect);
  return writes.map((w) => ({
    write: w,
    values: [
      ...(w.aspects.structuredProperties ? [{ urn: w.source.urn, aspect: w.aspects.structuredProperties as StructuredPropertiesAspect }] : []),
      ...w.fields,
    ].map((t) => ({ urn: t.urn, changes: changesBetween(current.get(t.urn), next(t.urn, t.aspect)) })),
  }));
}
