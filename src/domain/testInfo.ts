/**
 * The `testInfo` aspect of a test entity (SPEC 7): name, category, description and
 * the definition's JSON text. Checked on every write, definition included, so a
 * stored test always parses; stored exactly as given (no defaults added).
 */
import { ValidationError } from './errors.js';
import { LIMITS } from './limits.js';
import { parseTestDefinitionJson, type TestDefinition } from './testDefinition.js';

export interface TestInfo {
  name: string;
  category: string;
  description?: string;
  definition: { type?: 'JSON'; json: string; md5?: string };
  [field: string]: unknown;
}

/** DataHub's audit and scheduling fields: kept as given, never interpreted. */
const PASS_THROUGH: Record<string, 'number' | 'object'> = {
  lastUpdatedTimestamp: 'number',
  created: 'object',
  lastUpdated: 'object',
  status: 'object',
  source: 'object',
  schedule: 'object',
};

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function requiredString(obj: Record<string, unknown>, key: string, max: number): string {
  const v = obj[key];
  if (typeof v !== 'string' || v.trim() === '') throw new ValidationError(`testInfo.${key} is required and must be a non-empty string`, key);
  if (v.length > max) throw new ValidationError(`testInfo.${key} is longer than the limit of ${max} characters`, key);
  return v;
}

export function parseTestInfo(raw: unknown): { info: TestInfo; definition: TestDefinition } {
  if (!isObject(raw)) throw new ValidationError('testInfo must be a JSON object', 'testInfo');
  for (const [key, value] of Object.entries(raw)) {
    if (['name', 'category', 'description', 'definition'].includes(key)) continue;
    const kind = PASS_THROUGH[key];
    if (!kind) throw new ValidationError(`Unknown field in testInfo: ${key}`, key);
    if (kind === 'number' ? typeof value !== 'number' : !isObject(value)) throw new ValidationError(`testInfo.${key} must be a ${kind}`, key);
  }
  requiredString(raw, 'name', LIMITS.nameLength);
  requiredString(raw, 'category', LIMITS.nameLength);
  if (raw.description !== undefined && raw.description !== null) {
    if (typeof raw.description !== 'string') throw new ValidationError('testInfo.description must be a string', 'description');
    if (raw.description.length > LIMITS.descriptionLength) {
      throw new ValidationError(`testInfo.description is longer than the limit of ${LIMITS.descriptionLength} characters`, 'description');
    }
  }
  const def = raw.definition;
  if (!isObject(def)) throw new ValidationError('testInfo.definition is required: {"type": "JSON", "json": "<definition>"}', 'definition');
  const extra = Object.keys(def).filter((k) => !['type', 'json', 'md5'].includes(k));
  if (extra.length > 0) throw new ValidationError(`Unknown field in testInfo.definition: ${extra[0]}`, `definition.${extra[0]}`);
  if (def.type !== undefined && def.type !== 'JSON') throw new ValidationError('testInfo.definition.type must be JSON', 'definition.type');
  if (def.md5 !== undefined && typeof def.md5 !== 'string') throw new ValidationError('testInfo.definition.md5 must be a string', 'definition.md5');
  if (typeof def.json !== 'string') throw new ValidationError('testInfo.definition.json is required: the definition as a JSON string', 'definition.json');
  const definition = parseTestDefinitionJson(def.json);
  return { info: raw as TestInfo, definition };
}
