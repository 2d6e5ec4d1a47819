/**
 * The two REST generations' shapes (docs/contract.md §4), as data: v3 wraps request
 * aspects in `{value}` and returns `{urn, <aspect>: {value}}`; v2 takes raw aspects
 * and nests responses under `aspects`. Routes are written once against this table.
 */
import { parseShape } from '../domain/shapes/shape.js';
import type { AspectResult } from '../domain/writes/writeDecision.js';
import { ValidationError } from '../domain/errors.js';
import { parsePatchDocument, type PatchDocument } from '../domain/jsonPatch.js';
import type { AspectInput } from '../domain/writes/plan.js';
import { parseMigrationRules } from '../domain/valueMigration.js';
import type { AspectValue, EntityView } from '../services/entityService.js';
import { batchGetShape, entityPatchBatchShape } from './bodies/datahubBatches.js';
import { aspectEnvelopeShape, batchShape, type AspectEnvelope } from './bodies/entities.js';
import type { ApiVersion } from './apiVersion.js';

export type { ApiVersion } from './apiVersion.js';

/** What a v3 envelope carries into the services. */
function aspectInput(env: AspectEnvelope): AspectInput {
  const ifVersionMatch = env.headers?.['If-Version-Match'];
  return {
    value: env.value,
    ...(env.systemMetadata ? { systemMetadata: env.systemMetadata } : {}),
    ...(ifVersionMatch !== undefined ? { ifVersionMatch: String(ifVersionMatch) } : {}),
    ...(env.migration ? { migration: parseMigrationRules(env.migration) } : {}),
  };
}

/** The aspect carried by a single-aspect POST body. */
export function aspectInputOf(version: ApiVersion, body: unknown): AspectInput {
  return version === 'v3' ? aspectInput(parseShape(aspectEnvelopeShape, body, 'request body')) : { value: body };
}

/** Entities of a batch POST body: v3 `[{urn, <aspect>: {value}}]`, v2 `[{urn, aspects: {<aspect>: {value}}}]`. */
export function batchItemsOf(version: ApiVersion, body: unknown): Array<{ urn: string; aspects: Map<string, AspectInput> }> {
  return parseShape(batchShape(version), body, 'request body').map(({ urn, aspects, ...rest }) => {
    const envelopes = (version === 'v3' ? rest : (aspects ?? {})) as Record<string, AspectEnvelope>;
    return { urn, aspects: new Map(Object.entries(envelopes).map(([name, env]) => [name, aspectInput(env)])) };
  });
}

/** Patches of one aspect of a batch item, with the system metadata they carry. */
export interface PatchInput {
  readonly patches: readonly PatchDocument[];
  readonly systemMetadata?: Record<string, unknown>;
  /** `headers.If-Version-Match`: patch only the revision the client read. */
  readonly ifVersionMatch?: string;
}

/** Entities of a v3 entity-level PATCH body: per aspect, the patch document in `value`. */
export function patchItemsOf(body: unknown): Array<{ urn: string; aspects: Map<string, PatchInput> }> {
  return parseShape(entityPatchBatchShape, body, 'request body').map(({ urn, ...rest }, i) => ({
    urn,
    aspects: new Map(
      Object.entries(rest as Record<string, AspectEnvelope>).map(([name, env]) => [
        name,
        {
          patches: [patchAt(`request body[${i}].${name}.value`, env.value)],
          ...(env.systemMetadata ? { systemMetadata: env.systemMetadata } : {}),
          ...(env.headers?.['If-Version-Match'] !== undefined ? { ifVersionMatch: String(env.headers['If-Version-Match']) } : {}),
        },
      ]),
    ),
  }));
}

/** A patch document inside a batch, its problems named by where in the body it is. */
function patchAt(where: string, value: unknown): PatchDocument {
  try {
    return parsePatchDocument(value);
  } catch (err) {
    if (err instanceof ValidationError) throw new ValidationError(`${where}: ${err.message}`, err.field ? `${where}.${err.field}` : where);
    throw err;
  }
}

/** Entities of a v3 batchGet body `[{urn, <aspect>: {}}]`, with the aspects each names. */
export function batchGetItemsOf(body: unknown): Array<{ urn: string; aspects: string[] }> {
  return parseShape(batchGetShape, body, 'request body').map(({ urn, ...rest }) => ({ urn, aspects: Object.keys(rest) }));
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
