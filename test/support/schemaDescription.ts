/**
 * The database as prisma/schema.prisma describes it and as a migrated PostgreSQL has
 * it, in one form, so that the two can be compared: per table (or view) its columns
 * (type, nullability, whether it has a default), its primary key, unique constraints,
 * indexes and foreign keys. schema.prisma is read by Prisma's own parser (getDMMF,
 * WebAssembly, offline), so what is checked is what Prisma understands of the file.
 */
import { getDMMF, type GetDMMFError } from '@prisma/get-dmmf';

type Document = Exclude<ReturnType<typeof getDMMF>, GetDMMFError>;
type Model = Document['datamodel']['models'][number];

export interface RelationDescription {
  readonly kind: 'table' | 'view';
  /** Column name → `text NOT NULL DEFAULT` (the default marked only for tables, as views have none). */
  readonly columns: ReadonlyMap<string, string>;
  /** `PRIMARY KEY aspect_pkey (urn, aspect, version)`, `UNIQUE …`, `INDEX …`, `FOREIGN KEY …`. */
  readonly constraints: ReadonlySet<string>;
}

export type SchemaDescription = ReadonlyMap<string, RelationDescription>;

/** PostgreSQL's type for a Prisma scalar without a native type attribute (Prisma's defaults for postgresql). */
const DEFAULT_TYPES: Record<string, string> = {
  String: 'text',
  Int: 'int4',
  BigInt: 'int8',
  Float: 'float8',
  Boolean: 'bool',
  DateTime: 'timestamp(3)',
  Json: 'jsonb',
  Decimal: 'numeric(65,30)',
  Bytes: 'bytea',
};

/** The type a native type attribute names (`@db.Timestamptz(3)`). */
function nativeTypeOf(nativeType: readonly [string, readonly string[]]): string {
  const [name, args] = nativeType;
  const base = ({ Timestamptz: 'timestamptz', Timestamp: 'timestamp', Date: 'date', Text: 'text', VarChar: 'varchar', Integer: 'int4', BigInt: 'int8', JsonB: 'jsonb', Json: 'json', Boolean: 'bool' } as Record<string, string>)[name];
  if (!base) throw new Error(`schemaDescription: add the native type @db.${name}`);
  return args.length > 0 ? `${base}(${args.join(',')})` : base;
}

function column(type: string, nullable: boolean, hasDefault: boolean | null): string {
  return `${type} ${nullable ? 'NULL' : 'NOT NULL'}${hasDefault ? ' DEFAULT' : ''}`;
}

/** The models that are views (`view X { … }` rather than `model X { … }`). */
function viewNames(schema: string): Set<string> {
  return new Set([...schema.matchAll(/^view\s+(\w+)\s*\{/gm)].map((m) => m[1]!));
}

export function describeSchema(schema: string): SchemaDescription {
  const dmmf = getDMMF({ datamodel: schema });
  if ('error' in dmmf) throw new Error(`schema.prisma does not parse: ${dmmf.reason}`);
  const views = viewNames(schema);
  const models = new Map(dmmf.datamodel.models.map((m) => [m.name, m]));
  const tableOf = (m: Model) => m.dbName ?? m.name;
  const columnOf = (m: Model, field: string) => {
    const f = m.fields.find((x) => x.name === field)!;
    return f.dbName ?? f.name;
  };
  const out = new Map<string, RelationDescription>();
  for (const model of dmmf.datamodel.models) {
    const isView = views.has(model.name);
    const table = tableOf(model);
    const columns = new Map<string, string>();
    const constraints = new Set<string>();
    for (const f of model.fields) {
      if (f.kind === 'object') {
        if (f.relationFromFields && f.relationFromFields.length > 0) {
          const target = models.get(f.type)!;
          const from = f.relationFromFields.map((x) => columnOf(model, x));
          const to = (f.relationToFields ?? []).map((x) => columnOf(target, x));
          const onDelete = (f.relationOnDelete ?? (f.isRequired ? 'Restrict' : 'SetNull')).toUpperCase().replace('SETNULL', 'SET NULL').replace('NOACTION', 'NO ACTION').replace('SETDEFAULT', 'SET DEFAULT');
          const onUpdate = (f.relationOnUpdate ?? 'Cascade').toUpperCase().replace('SETNULL', 'SET NULL').replace('NOACTION', 'NO ACTION');
          constraints.add(`FOREIGN KEY ${table}_${from.join('_')}_fkey (${from.join(', ')}) REFERENCES ${tableOf(target)} (${to.join(', ')}) ON DELETE ${onDelete} ON UPDATE ${onUpdate}`);
        }
        continue;
      }
      const scalar = f.nativeType ? nativeTypeOf(f.nativeType as [string, string[]]) : DEFAULT_TYPES[f.type];
      if (!scalar) throw new Error(`schemaDescription: add the Prisma type ${f.type}`);
      // A list is PostgreSQL's array of the scalar, which the catalog names with a leading underscore (`_text`).
      const type = f.isList ? `_${scalar}` : scalar;
      // A view's columns are all nullable to PostgreSQL and have no defaults.
      columns.set(f.dbName ?? f.name, isView ? column(type, true, null) : column(type, !f.isRequired, f.hasDefaultValue));
    }
    if (!isView) {
      for (const index of dmmf.datamodel.indexes.filter((i) => i.model === model.name)) {
        const cols = index.fields.map((x) => columnOf(model, x.name));
        const kind = index.type === 'id' ? 'PRIMARY KEY' : index.type === 'unique' ? 'UNIQUE' : 'INDEX';
        const name = index.dbName ?? (index.type === 'id' ? `${table}_pkey` : `${table}_${cols.join('_')}_${index.type === 'unique' ? 'key' : 'idx'}`);
        constraints.add(`${kind} ${name} (${cols.join(', ')})`);
      }
    }
    out.set(table, { kind: isView ? 'view' : 'table', columns, constraints });
  }
  return out;
}

type Query = (text: string, params?: unknown[]) => Promise<object[]>;

const ACTIONS: Record<string, string> = { a: 'NO ACTION', r: 'RESTRICT', c: 'CASCADE', n: 'SET NULL', d: 'SET DEFAULT' };

/**
 * What the database has in schema `public`, in the same form; `ignored` are indexes
 * schema.prisma cannot express (by name), and the migration runner's own table.
 */
export async function describeDatabase(run: Query, ignored: ReadonlySet<string>): Promise<SchemaDescription> {
  const query = async <R>(text: string) => (await run(text)) as R[];
  const relations = await query<{ name: string; kind: string }>(
    "SELECT table_name AS name, table_type AS kind FROM information_schema.tables WHERE table_schema = 'public' AND table_name <> '_prisma_migrations'",
  );
  const columns = await query<{ relation: string; name: string; type: string; precision: number | null; nullable: string; has_default: boolean }>(`
    SELECT c.table_name AS relation, c.column_name AS name, c.udt_name AS type, c.datetime_precision AS precision,
           c.is_nullable AS nullable, c.column_default IS NOT NULL AS has_default
    FROM information_schema.columns c WHERE c.table_schema = 'public'`);
  const indexes = await query<{ relation: string; name: string; is_primary: boolean; is_unique: boolean; partial: boolean; columns: string[] }>(`
    SELECT t.relname AS relation, i.relname AS name, x.indisprimary AS is_primary, x.indisunique AS is_unique, x.indpred IS NOT NULL AS partial,
           array(SELECT a.attname FROM unnest(x.indkey) WITH ORDINALITY k(attnum, ord) JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum ORDER BY k.ord)::text[] AS columns
    FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid JOIN pg_namespace n ON n.oid = t.relnamespace
    WHERE n.nspname = 'public'`);
  const foreignKeys = await query<{ relation: string; name: string; columns: string[]; target: string; target_columns: string[]; on_delete: string; on_update: string }>(`
    SELECT t.relname AS relation, c.conname AS name, r.relname AS target, c.confdeltype AS on_delete, c.confupdtype AS on_update,
           array(SELECT a.attname FROM unnest(c.conkey) WITH ORDINALITY k(attnum, ord) JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum ORDER BY k.ord)::text[] AS columns,
           array(SELECT a.attname FROM unnest(c.confkey) WITH ORDINALITY k(attnum, ord) JOIN pg_attribute a ON a.attrelid = r.oid AND a.attnum = k.attnum ORDER BY k.ord)::text[] AS target_columns
    FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid JOIN pg_class r ON r.oid = c.confrelid JOIN pg_namespace n ON n.oid = t.relnamespace
    WHERE c.contype = 'f' AND n.nspname = 'public'`);
  const out = new Map<string, RelationDescription>();
  for (const r of relations) {
    const isView = r.kind === 'VIEW';
    const cols = new Map(
      columns
        .filter((c) => c.relation === r.name)
        .map((c) => {
          const type = c.type.startsWith('timestamp') && c.precision !== null ? `${c.type}(${c.precision})` : c.type;
          return [c.name, column(type, c.nullable === 'YES', isView ? null : c.has_default)];
        }),
    );
    const constraints = new Set<string>();
    for (const i of indexes.filter((x) => x.relation === r.name && !ignored.has(x.name))) {
      constraints.add(`${i.is_primary ? 'PRIMARY KEY' : i.is_unique ? 'UNIQUE' : 'INDEX'} ${i.name}${i.partial ? ' (partial)' : ''} (${i.columns.join(', ')})`);
    }
    for (const f of foreignKeys.filter((x) => x.relation === r.name)) {
      constraints.add(`FOREIGN KEY ${f.name} (${f.columns.join(', ')}) REFERENCES ${f.target} (${f.target_columns.join(', ')}) ON DELETE ${ACTIONS[f.on_delete]} ON UPDATE ${ACTIONS[f.on_update]}`);
    }
    out.set(r.name, { kind: isView ? 'view' : 'table', columns: cols, constraints });
  }
  return out;
}

/** Where the two descriptions disagree, one sentence each; empty when they agree. */
export function schemaDifferences(schema: SchemaDescription, database: SchemaDescription): string[] {
  const out: string[] = [];
  for (const name of new Set([...schema.keys(), ...database.keys()])) {
    const s = schema.get(name);
    const d = database.get(name);
    if (!s) {
      out.push(`${d!.kind} ${name} is in the database but not in schema.prisma`);
      continue;
    }
    if (!d) {
      out.push(`${s.kind} ${name} is in schema.prisma but not in the database`);
      continue;
    }
    if (s.kind !== d.kind) out.push(`${name} is a ${s.kind} in schema.prisma but a ${d.kind} in the database`);
    for (const col of new Set([...s.columns.keys(), ...d.columns.keys()])) {
      const want = s.columns.get(col);
      const have = d.columns.get(col);
      if (want !== have) out.push(`${name}.${col}: schema.prisma says ${want ?? 'nothing (no such field)'}, the database has ${have ?? 'no such column'}`);
    }
    for (const c of s.constraints) if (!d.constraints.has(c)) out.push(`${name}: schema.prisma has ${c}, the database does not`);
    for (const c of d.constraints) if (!s.constraints.has(c)) out.push(`${name}: the database has ${c}, schema.prisma does not`);
  }
  return out;
}
