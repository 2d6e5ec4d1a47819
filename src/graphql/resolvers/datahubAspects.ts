/**
 * DataHub's aspects as DataHub's GraphQL shows them, read from the aspects DataHub's clients
 * wrote (globalTags, glossaryTerms, ownership, ...), the way DataHub's GraphQL mappers turn
 * an aspect into a field: URNs become entities, audit stamps keep their actor and time, and
 * every association names the entity it belongs to (`associatedUrn`). An aspect that is
 * absent, or holds nothing this reads, is null: the answer DataHub gives when an entity
 * lacks it, and what its web app handles.
 */
import { tryParseUrn } from '../../domain/urn.js';
import type { GraphQLContext } from '../context.js';
import type { EntityModel } from '../models.js';
import { aspectFields, text } from './displayAspects.js';
import { entityModel } from './entityModel.js';

type Fields = Record<string, unknown>;

/** A stored URN as an entity, or nothing when it is not a URN propgraph can parse. */
export function entityOf(value: unknown): EntityModel | null {
  if (typeof value !== 'string') return null;
  const parsed = tryParseUrn(value);
  return parsed.ok ? entityModel(parsed.urn.value) : null;
}

const list = (value: unknown): Fields[] => (Array.isArray(value) ? value.filter((v): v is Fields => !!v && typeof v === 'object' && !Array.isArray(v)) : []);
const number = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);

/** An audit stamp as stored; DataHub's mappers answer time 0 where none was written. */
export function auditStampOf(value: unknown): { time: number; actor: string | null } {
  const stamp = value && typeof value === 'object' ? (value as Fields) : {};
  return { time: number(stamp.time) ?? 0, actor: text(stamp.actor) };
}

/** DataHub's MetadataAttribution of an association, when stored. */
function attributionOf(value: unknown) {
  if (!value || typeof value !== 'object') return null;
  const a = value as Fields;
  const actor = text(a.actor);
  if (!actor) return null;
  return { time: number(a.time) ?? 0, actor, source: text(a.source) ?? undefined, sourceDetail: undefined };
}

export function globalTagsOf(stored: Fields | null, associatedUrn: string) {
  if (!stored) return null;
  return {
    tags: list(stored.tags).flatMap((t) => {
      const tag = entityOf(t.tag);
      return tag ? [{ tag, associatedUrn, attribution: attributionOf(t.attribution) }] : [];
    }),
  };
}

export function glossaryTermsOf(stored: Fields | null, associatedUrn: string) {
  if (!stored) return null;
  const actor = entityOf(auditStampOf(stored.auditStamp).actor);
  return {
    terms: list(stored.terms).flatMap((t) => {
      const term = entityOf(t.urn);
      return term ? [{ term, associatedUrn, actor, attribution: attributionOf(t.attribution) }] : [];
    }),
  };
}

/** DataHub's ownership types (the enum of schema.graphql); anything else is CUSTOM. */
const OWNERSHIP_TYPES: ReadonlySet<string> = new Set(['TECHNICAL_OWNER', 'BUSINESS_OWNER', 'DATA_STEWARD', 'NONE', 'CUSTOM', 'DATAOWNER', 'PRODUCER', 'DEVELOPER', 'DELEGATE', 'CONSUMER', 'STAKEHOLDER']);

export function ownershipOf(stored: Fields | null, associatedUrn: string) {
  if (!stored) return null;
  return {
    lastModified: auditStampOf(stored.lastModified),
    owners: list(stored.owners).flatMap((o) => {
      const owner = entityOf(o.owner);
      if (!owner) return [];
      const type = typeof o.type === 'string' && OWNERSHIP_TYPES.has(o.type) ? o.type : 'CUSTOM';
      return [{ owner, type: type as 'CUSTOM', ownershipType: entityOf(o.typeUrn), associatedUrn, attribution: attributionOf(o.attribution) }];
    }),
  };
}

export function deprecationOf(stored: Fields | null) {
  if (!stored) return null;
  const actor = text(stored.actor);
  return { deprecated: stored.deprecated === true, note: text(stored.note), decommissionTime: number(stored.decommissionTime), actor, actorEntity: entityOf(actor), replacement: entityOf(stored.replacement) };
}

export function institutionalMemoryOf(stored: Fields | null, associatedUrn: string) {
  if (!stored) return null;
  return {
    elements: list(stored.elements).flatMap((e) => {
      const url = text(e.url);
      if (!url) return [];
      const created = auditStampOf(e.createStamp);
      const actor = entityOf(created.actor) ?? entityModel('urn:li:corpuser:unknown');
      const description = text(e.description) ?? '';
      return [{ url, description, label: description, created, actor, associatedUrn, settings: null }];
    }),
  };
}

export function subTypesOf(stored: Fields | null) {
  if (!stored) return null;
  return { typeNames: Array.isArray(stored.typeNames) ? stored.typeNames.filter((t): t is string => typeof t === 'string') : [] };
}

export function statusOf(stored: Fields | null) {
  return stored ? { removed: stored.removed === true } : null;
}

/** browsePathsV2 as DataHub shows it: each entry named by its id, and its entity when it names one. */
export function browsePathOf(stored: Fields | null) {
  if (!stored) return null;
  return { path: list(stored.path).flatMap((p) => (typeof p.id === 'string' ? [{ name: p.id, entity: entityOf(p.urn) }] : [])) };
}

export function domainOf(stored: Fields | null, associatedUrn: string) {
  const domain = stored && Array.isArray(stored.domains) ? entityOf(stored.domains[0]) : null;
  return domain ? { domain, associatedUrn, attribution: null } : null;
}

export function customPropertiesOf(stored: Fields | null | undefined, associatedUrn: string) {
  const custom = stored?.customProperties;
  if (!custom || typeof custom !== 'object') return [];
  return Object.entries(custom as Fields).flatMap(([key, value]) => (typeof value === 'string' ? [{ key, value, associatedUrn }] : []));
}

/** The chain of containers above an entity, nearest first, from each one's `container` aspect (cycles stop it). */
export async function parentContainersOf(model: EntityModel, ctx: GraphQLContext) {
  const containers: EntityModel[] = [];
  const seen = new Set([model.urn]);
  let next = entityOf((await aspectFields(model, 'container', ctx))?.container);
  while (next && !seen.has(next.urn) && containers.length < 20) {
    containers.push(next);
    seen.add(next.urn);
    next = entityOf((await aspectFields(next, 'container', ctx))?.container);
  }
  return { count: containers.length, containers };
}

/** Reads one aspect and maps it; the loader batches the reads of one request. */
export async function fromAspect<T>(model: EntityModel, aspect: string, ctx: GraphQLContext, map: (stored: Fields | null) => T): Promise<T> {
  return map(await aspectFields(model, aspect, ctx));
}
