/** schema.graphql (the source of truth), and the fields it gives each object type. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Kind, parse } from 'graphql';

/** src/graphql or dist/graphql → the package root's schema.graphql. */
export const SCHEMA_PATH = fileURLToPath(new URL('../../schema.graphql', import.meta.url));

let typeDefs: string | undefined;

/** schema.graphql, read once: it ships with the package and does not change under a running process. */
export function loadTypeDefs(): string {
  return (typeDefs ??= readFileSync(SCHEMA_PATH, 'utf8'));
}

/** The fields of each object type, its `extend` blocks included. */
export function fieldsByType(typeDefs: string): (typeName: string) => readonly string[] {
  const fields = new Map<string, string[]>();
  for (const d of parse(typeDefs).definitions) {
    if (d.kind !== Kind.OBJECT_TYPE_DEFINITION && d.kind !== Kind.OBJECT_TYPE_EXTENSION) continue;
    fields.set(d.name.value, [...(fields.get(d.name.value) ?? []), ...(d.fields ?? []).map((f) => f.name.value)]);
  }
  return (typeName) => fields.get(typeName) ?? [];
}
