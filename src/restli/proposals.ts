/**
 * A Rest.li metadata change proposal turned into the entity service's calls, the same
 * ones REST v3 makes: UPSERT is a set, CREATE a create-only set, CREATE_ENTITY a
 * create-only entity, PATCH a JSON patch, DELETE an aspect delete. The aspect arrives as
 * JSON text; it is decoded here, held to the same input limits as every other
 * interface's JSON, and then judged by the aspect's own rules in the services.
 */
import { aspectNamed, requireKnownAspect, type EntityTypeInfo } from '../domain/registry/entityTypes.js';
import { relocated, ValidationError } from '../domain/errors.js';
import { checkInputLimits, quoteInput } from '../domain/inputLimits.js';
import { checkJsonTextNesting } from '../domain/textNesting.js';
import { parsePatchDocument, type PatchDocument } from '../domain/jsonPatch.js';
import { parseUrn, parseUrnOfType } from '../domain/urn.js';
import type { PlanItem, PlanItemLabel } from '../domain/writes/plan.js';
import type { ChangeType, ProposalShape } from './bodies.js';

const JSON_TYPE = 'application/json';
const PATCH_TYPE = 'application/json-patch+json';

export interface Proposal {
  readonly urn: string;
  readonly entityType: EntityTypeInfo;
  readonly aspect: string;
  readonly changeType: ChangeType;
  /** The decoded aspect, for every change type but PATCH and DELETE. */
  readonly value?: unknown;
  readonly patch?: PatchDocument;
  readonly systemMetadata?: Record<string, unknown>;
}

/** JSON text sent inside the body, decoded; a failure names where it was. */
function decodeJsonText(text: string, where: string, what: string): unknown {
  let value: unknown;
  try {
    // Deep nesting is refused before JSON.parse builds it, as on a REST body.
    checkJsonTextNesting(text, where);
    try {
      value = JSON.parse(text);
    } catch (err) {
      throw new ValidationError(`${where} is not valid JSON (${(err as Error).message}); send ${what} as JSON text`, where);
    }
    checkInputLimits(value, where);
  } catch (err) {
    // The limits name the path inside the aspect (`name`); say it is inside this text.
    if (!(err instanceof ValidationError) || err.field?.startsWith(where)) throw err;
    throw relocated(err, `${where}.${err.field}`, `${where}.${err.message}`);
  }
  return value;
}

/** Checks a proposal and decodes its aspect; `at` names it in messages (`proposal`, `proposals[2]`). */
export function parseProposal(raw: ProposalShape, at: string): Proposal {
  const urn = parseUrn(raw.entityUrn);
  const entityType = urn.entityType;
  if (raw.entityType !== entityType.name) {
    throw new ValidationError(`${at}.entityType is ${quoteInput(raw.entityType)}, but entityUrn is a ${entityType.name} urn; send entityType ${quoteInput(entityType.name)}`, `${at}.entityType`);
  }
  const aspect = aspectNamed(entityType, raw.aspectName);
  try {
    requireKnownAspect(entityType, aspect);
  } catch (err) {
    if (err instanceof ValidationError) throw relocated(err, `${at}.aspectName`, `${at}.aspectName: ${err.message}`);
    throw err;
  }
  let systemMetadata: Record<string, unknown> | undefined;
  if (typeof raw.systemMetadata === 'string') {
    const decoded = decodeJsonText(raw.systemMetadata, `${at}.systemMetadata`, 'the system metadata object');
    if (!decoded || typeof decoded !== 'object' || Array.isArray(decoded)) {
      throw new ValidationError(`${at}.systemMetadata must be a JSON object (or one as JSON text)`, `${at}.systemMetadata`);
    }
    systemMetadata = decoded as Record<string, unknown>;
  } else if (raw.systemMetadata) systemMetadata = raw.systemMetadata;
  const base = { urn: urn.value, entityType, aspect, changeType: raw.changeType, ...(systemMetadata ? { systemMetadata } : {}) };
  if (raw.changeType === 'DELETE') return base;

  const where = `${at}.aspect`;
  if (!raw.aspect) {
    throw new ValidationError(`${where} is required for changeType ${raw.changeType}: send {"value": "<the aspect as JSON text>", "contentType": "${JSON_TYPE}"}`, where);
  }
  const isPatch = raw.changeType === 'PATCH';
  const allowed = isPatch ? [PATCH_TYPE, JSON_TYPE] : [JSON_TYPE];
  if (!allowed.includes(raw.aspect.contentType)) {
    throw new ValidationError(`${where}.contentType is ${quoteInput(raw.aspect.contentType)}; changeType ${raw.changeType} takes ${allowed.join(' or ')}`, `${where}.contentType`);
  }
  const value = decodeJsonText(raw.aspect.value, `${where}.value`, isPatch ? 'the JSON patch' : `the ${aspect} aspect`);
  if (!isPatch) return { ...base, value };
  try {
    return { ...base, patch: parsePatchDocument(value) };
  } catch (err) {
    if (err instanceof ValidationError) throw relocated(err, `${where}.value`, `${where}.value: ${err.message}`);
    throw err;
  }
}

/**
 * What a proposal asks as a plan item, the same changes REST v3 makes: UPSERT a set,
 * CREATE a create-only set, CREATE_ENTITY a create-only entity, PATCH a JSON patch,
 * DELETE an aspect delete. Every proposal but a DELETE brings its entity into being, as
 * DataHub's ingestion does.
 */
export function planItemOf(p: Proposal, label?: PlanItemLabel): PlanItem {
  const urn = parseUrnOfType(p.urn, p.entityType);
  const sm = p.systemMetadata ? { systemMetadata: p.systemMetadata } : {};
  const base = { urn, ...(label ? { label } : {}) };
  switch (p.changeType) {
    case 'UPSERT':
    case 'CREATE':
      return { ...base, createsEntity: true, changes: [{ op: 'set', aspect: p.aspect, value: p.value, ...sm, ...(p.changeType === 'CREATE' ? { createOnly: true } : {}) }] };
    case 'PATCH':
      return { ...base, createsEntity: true, changes: [{ op: 'patch', aspect: p.aspect, patches: [p.patch!], ...sm }] };
    case 'CREATE_ENTITY':
      return { ...base, createsEntity: true, createEntityOnly: true, changes: [{ op: 'set', aspect: p.aspect, value: p.value, ...sm }] };
    case 'DELETE':
      return { ...base, changes: [{ op: 'delete', aspect: p.aspect }] };
  }
}

/** How a proposal of a batch is named in errors about it. */
export function proposalLabel(p: Proposal, index: number): PlanItemLabel {
  return { at: `proposals[${index}]`, what: `${p.changeType} ${p.aspect} of ${p.urn}` };
}
