/**
 * URN parsing (docs/contract.md §1): `urn:li:<entityType>:<id>`, where the id is either a plain
 * string or a parenthesised tuple whose parts may themselves be URNs. Parsing is
 * strict: balanced parentheses, non-empty parts, a known entity type, and parts of
 * the kind the entity type's key expects.
 */
import { ENTITY, FABRIC_TYPES, findEntityType, parentTypeOf, type EntityTypeInfo, type KeyPart } from './registry/entityTypes.js';
import { InvalidUrnError } from './errors.js';

export const MAX_URN_LENGTH = 2000;

export interface Urn {
  /** The URN exactly as given (after percent-decoding by the caller). */
  readonly value: string;
  readonly entityType: EntityTypeInfo;
  /** The id after `urn:li:<type>:`, tuple parentheses included. */
  readonly id: string;
  /** Tuple parts, or a single element holding the plain id. */
  readonly parts: readonly string[];
}

export type UrnResult = { ok: true; urn: Urn } | { ok: false; reason: string };

const PREFIX = 'urn:li:';

/** Splits a tuple body on top-level commas; undefined when parentheses do not balance. */
function splitTuple(body: string): string[] | undefined {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c === '(') depth++;
    else if (c === ')') {
      depth--;
      if (depth < 0) return undefined;
    } else if (c === ',' && depth === 0) {
      parts.push(body.slice(start, i));
      start = i + 1;
    }
  }
  if (depth !== 0) return undefined;
  parts.push(body.slice(start));
  return parts;
}

function hasUnbalancedParens(s: string): boolean {
  let depth = 0;
  for (const c of s) {
    if (c === '(') depth++;
    else if (c === ')' && --depth < 0) return true;
  }
  return depth !== 0;
}

function checkPart(kind: KeyPart, part: string): string | undefined {
  switch (kind) {
    case 'text':
      return part.trim() === '' ? 'empty key part' : undefined;
    case 'origin':
      return FABRIC_TYPES.has(part) ? undefined : `unknown origin ${part}`;
    case 'platformUrn':
      return expectUrnOf(part, ENTITY.dataPlatform);
    case 'datasetUrn':
      return expectUrnOf(part, ENTITY.dataset);
    case 'dataFlowUrn':
      return expectUrnOf(part, ENTITY.dataFlow);
  }
}

function expectUrnOf(part: string, type: EntityTypeInfo): string | undefined {
  const inner = tryParseUrn(part);
  if (!inner.ok) return `bad nested urn ${part}: ${inner.reason}`;
  return inner.urn.entityType === type ? undefined : `expected a ${type.name} urn, got ${part}`;
}

export function tryParseUrn(value: string): UrnResult {
  if (typeof value !== 'string' || value.length === 0) return { ok: false, reason: 'empty' };
  if (value.length > MAX_URN_LENGTH) return { ok: false, reason: `longer than ${MAX_URN_LENGTH} characters` };
  if (!value.startsWith(PREFIX)) return { ok: false, reason: `must start with ${PREFIX}` };
  // Control characters never belong in a URN and would corrupt logs and index keys.
  if (/[\u0000-\u001f\u007f]/.test(value)) return { ok: false, reason: 'control characters' };
  const rest = value.slice(PREFIX.length);
  const colon = rest.indexOf(':');
  if (colon <= 0) return { ok: false, reason: 'missing entity type' };
  const typeName = rest.slice(0, colon);
  const entityType = findEntityType(typeName);
  // Entity type names are matched exactly inside URNs; only REST path segments are case-insensitive.
  if (!entityType || entityType.name !== typeName) return { ok: false, reason: `unknown entity type ${typeName}` };
  const id = rest.slice(colon + 1);
  if (id.length === 0) return { ok: false, reason: 'empty id' };

  let parts: string[];
  if (id.startsWith('(')) {
    if (!id.endsWith(')')) return { ok: false, reason: 'unbalanced parentheses' };
    const split = splitTuple(id.slice(1, -1));
    if (!split) return { ok: false, reason: 'unbalanced parentheses' };
    parts = split;
  } else {
    if (hasUnbalancedParens(id)) return { ok: false, reason: 'unbalanced parentheses' };
    parts = [id];
  }
  const expected = entityType.keyParts.length;
  // A trailing free-text part (a schema field path, say) may itself contain commas.
  if (parts.length > expected && entityType.keyParts[expected - 1] === 'text') {
    parts = [...parts.slice(0, expected - 1), parts.slice(expected - 1).join(',')];
  }
  if (parts.length !== expected) {
    return { ok: false, reason: `a ${typeName} urn has ${entityType.keyParts.length} key part(s), got ${parts.length}` };
  }
  for (let i = 0; i < parts.length; i++) {
    const problem = checkPart(entityType.keyParts[i]!, parts[i]!);
    if (problem) return { ok: false, reason: problem };
  }
  if (entityType.idWithoutSpaces && /\s/.test(id)) return { ok: false, reason: 'Urn ID cannot have spaces' };
  return { ok: true, urn: { value, entityType, id, parts } };
}

/** Parses a URN that addresses the target of a request; failure is `Invalid urn!: <urn>`. */
export function parseUrn(value: string): Urn {
  const result = tryParseUrn(value);
  if (!result.ok) throw new InvalidUrnError(value, result.reason);
  return result.urn;
}

/** Parses a URN and also requires its entity type (e.g. the REST path's `{entityName}`). */
export function parseUrnOfType(value: string, entityType: EntityTypeInfo): Urn {
  const urn = parseUrn(value);
  if (urn.entityType !== entityType) throw new InvalidUrnError(value, `expected a ${entityType.name} urn`);
  return urn;
}

/** The key aspect of an entity, derived from its URN (e.g. datasetKey {platform, name, origin}). */
export function keyAspectOf(urn: Urn): Record<string, string> {
  const key: Record<string, string> = {};
  urn.entityType.keyFields.forEach((field, i) => {
    key[field] = urn.parts[i]!;
  });
  return key;
}

/** Builds a dataset URN from its parts. */
export function datasetUrn(platform: string, name: string, origin = 'PROD'): string {
  const platformUrn = platform.startsWith('urn:li:dataPlatform:') ? platform : `urn:li:dataPlatform:${platform}`;
  return `urn:li:dataset:(${platformUrn},${name},${origin})`;
}

export function schemaFieldUrn(datasetUrnValue: string, fieldPath: string): string {
  return `urn:li:schemaField:(${datasetUrnValue},${fieldPath})`;
}

/** For a schemaField URN, the URN of the dataset it belongs to; otherwise undefined. */
export function parentUrnOf(urn: Urn): string | undefined {
  return parentTypeOf(urn.entityType) ? urn.parts[0] : undefined;
}
