/**
 * The two REST generations' shapes (SPEC 4, seed 9), as data: v3 wraps request
 * aspects in `{value}` and returns `{urn, <aspect>: {value}}`; v2 takes raw aspects
 * and nests responses under `aspects`. Routes are written once against this table.
 */
import { ValidationError } from '../domain/errors.js';
import type { AspectResult } from '../services/aspects/pipeline.js';
import type { AspectInput, AspectValue, EntityView } from '../services/entityService.js';

export type ApiVersion = 'v2' | 'v3';

function asObject(body: unknown, what: string): Record<string, unknown> {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new ValidationError(`${what} must be a JSON object`, 'body');
  return body as Record<string, unknown>;
}

function systemMetadataOf(raw: unknown): Record<string, unknown> | undefined {
  if (raw === undefined || raw === null) return undefined;
  return asObject(raw, 'systemMetadata');
}

/** A v3 `{value, systemMetadata?, headers?}` envelope. */
function parseEnvelope(raw: unknown, what: string): AspectInput {
  const env = asObject(raw, what);
  const extra = Object.keys(env).filter((k) => !['value', 'systemMetadata', 'headers'].includes(k));
  if (extra.length > 0) throw new ValidationError(`Unknown field(s) in ${what}: ${extra.join(', ')}`, extra[0]);
  if (!('value' in env)) throw new ValidationError(`${what} must have a "value"`, 'value');
  const headers = env.headers === undefined || env.headers === null ? {} : asObject(env.headers, 'headers');
  const ifVersionMatch = headers['If-Version-Match'];
  const systemMetadata = systemMetadataOf(env.systemMetadata);
  return {
    value: env.value,
    ...(systemMetadata ? { systemMetadata } : {}),
    ...(ifVersionMatch !== undefined ? { ifVersionMatch: String(ifVersionMatch) } : {}),
  };
}

/** The aspect carried by a single-aspect POST body. */
export function aspectInputOf(version: ApiVersion, body: unknown): AspectInput {
  return version === 'v3' ? parseEnvelope(body, 'request body') : { value: body };
}

/** Entities of a batch POST body: v3 `[{urn, <aspect>: {value}}]`, v2 `[{urn, aspects: {<aspect>: {value}}}]`. */
export function batchItemsOf(version: ApiVersion, body: unknown): Array<{ urn: string; aspects: Map<string, AspectInput> }> {
  if (!Array.isArray(body)) throw new ValidationError('request body must be a JSON list of entities', 'body');
  return body.map((raw, i) => {
    const entry = asObject(raw, `entity ${i}`);
    if (typeof entry.urn !== 'string') throw new ValidationError(`entity ${i} must have a string "urn"`, `[${i}].urn`);
    const aspects = new Map<string, AspectInput>();
    if (version === 'v3') {
      for (const [name, value] of Object.entries(entry)) {
        if (name !== 'urn') aspects.set(name, parseEnvelope(value, `aspect ${name} of entity ${i}`));
      }
    } else {
      const extra = Object.keys(entry).filter((k) => k !== 'urn' && k !== 'aspects');
      if (extra.length > 0) throw new ValidationError(`Unknown field(s) in entity ${i}: ${extra.join(', ')}`, extra[0]);
      for (const [name, value] of Object.entries(asObject(entry.aspects ?? {}, `entity ${i} aspects`))) {
        aspects.set(name, parseEnvelope(value, `aspect ${name} of entity ${i}`));
      }
    }
    return { urn: entry.urn, aspects };
  });
}

function envelope(value: AspectValue | AspectResult, withSystemMetadata: boolean): Record<string, unknown> {
  return withSystemMetadata && value.systemMetadata ? { value: value.value, systemMetadata: value.systemMetadata } : { value: value.value };
}

/** The response for a written or read set of aspects of one entity. */
export function entityResponse(version: ApiVersion, urn: string, aspects: Iterable<[string, AspectValue | AspectResult]>, withSystemMetadata: boolean): Record<string, unknown> {
  const wrapped: Record<string, unknown> = {};
  for (const [name, value] of aspects) wrapped[name] = envelope(value, withSystemMetadata);
  return version === 'v3' ? { urn, ...wrapped } : { urn, aspects: wrapped };
}

/** GET of one aspect: v3 `{urn, <aspect>: {value}}`, v2 `{value}`. */
export function aspectResponse(version: ApiVersion, urn: string, aspect: string, value: AspectValue, withSystemMetadata: boolean): Record<string, unknown> {
  return version === 'v3' ? entityResponse('v3', urn, [[aspect, value]], withSystemMetadata) : envelope(value, withSystemMetadata);
}

export function entityViewResponse(version: ApiVersion, view: EntityView, withSystemMetadata: boolean): Record<string, unknown> {
  return entityResponse(version, view.urn, view.aspects, withSystemMetadata);
}
