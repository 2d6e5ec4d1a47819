/**
 * History (docs/contract.md §13): any stored version of an aspect, read as DataHub
 * numbers them (Rest.li `GET /aspects/{urn}?aspect=X&version=N`, REST v3 `?version=N`),
 * and the history of values, per entity and per property: who changed which value when,
 * through which interface, before and after, newest first, in pages.
 *
 * What readers may not see now stays hidden in history too: values of a soft-deleted
 * property, and of a hard-deleted one until the cleanup job has removed them from every
 * version (hard means gone).
 */
import { ASPECT } from '../domain/aspects/index.js';
import { ENTITY, requireKnownAspect, type EntityTypeInfo } from '../domain/registry/entityTypes.js';
import { NotFoundError, SoftDeletedError, ValidationError } from '../domain/errors.js';
import { textViolation } from '../domain/inputLimits.js';
import { LIMITS, pageSize } from '../domain/limits.js';
import type { StructuredPropertiesAspect } from '../domain/structuredProperties.js';
import { parseUrn, parseUrnOfType } from '../domain/urn.js';
import { historyEntries, visibleAt, type HistoryCursor, type HistoryEntry, type ShownSince, type ValuesVersion } from '../domain/valueHistory.js';
import { lifecycleEventsOf } from '../store/lifecycleEvents.js';
import { aspectVersion, latestAudit, valuesVersions, type ValuesVersionRow } from '../store/aspectVersions.js';
import type { Db } from '../store/database.js';
import { findProperties } from '../store/propertyRegistry.js';
import type { Caller } from './caller.js';
import type { EntityService } from './entityService.js';
import { ReadLanes } from './readLanes.js';

export type { HistoryEntry, ValueChange } from '../domain/valueHistory.js';

/** An aspect at one version, with the audit stamp of the write that stored it. */
export interface VersionedAspect {
  readonly urn: string;
  readonly aspect: string;
  readonly version: number;
  readonly value: unknown;
  readonly systemMetadata: Record<string, unknown> | null;
  readonly created: { readonly time: number; readonly actor: string; readonly via: string | null };
}

export interface HistoryQuery {
  /** An entity's history; absent: the property's history across entities. */
  readonly urn?: string | null;
  /** A structured property (urn or qualified name): only its values. */
  readonly property?: string | null;
  readonly count?: number | null;
  readonly scrollId?: string | null;
}

/** Something that happened to a property or a metadata test as a whole, with who and when. */
export interface LifecycleEntry {
  readonly urn: string;
  /** created, changed, versionChanged, migrationStarted, migrationFinished, softDeleted, restored, hardDeleted. */
  readonly event: string;
  readonly time: number;
  readonly actor: string;
  readonly via: string | null;
  readonly detail: Record<string, unknown> | null;
}

export interface HistoryPage {
  readonly entries: HistoryEntry[];
  /**
   * The lifecycle of the property or metadata test asked about (its urn, or `property`),
   * newest first, on the first page; empty for other entities.
   */
  readonly events: LifecycleEntry[];
  /** Pass back for the next page; null when there is none. */
  readonly scrollId: string | null;
}

/** Lifecycle events told on a history's first page (a property's lifecycle is short; this bounds a pathological one). */
const EVENTS_SHOWN = 100;

/** Entries per page when the caller names no count. */
const HISTORY_PAGE = 20;
/**
 * Pages of value history read at once in the process, each caller's one at a time
 * (services/readLanes.ts): a quarter of the default pool of 20 connections.
 */
const HISTORY_LANES = 5;

export interface HistoryService {
  /** One version of an aspect: 0 the latest, 1..n the earlier ones, oldest first. 404 when there is no such version. */
  aspectVersion(caller: Caller, urn: string, aspect: string, version: number, entityType?: EntityTypeInfo): Promise<VersionedAspect>;
  /** The history of values of an entity (optionally of one property), or of a property across entities. */
  valueHistory(caller: Caller, query: HistoryQuery): Promise<HistoryPage>;
}

const PROPERTY_PREFIX = `urn:li:${ENTITY.structuredProperty.name}:`;

/** A property named by urn or by qualified name, as a urn. */
export function propertyUrnOf(input: string, field = 'property'): string {
  const text = input.trim();
  const urn = text.startsWith('urn:') ? text : `${PROPERTY_PREFIX}${text}`;
  const parsed = parseUrn(urn);
  if (parsed.entityType !== ENTITY.structuredProperty) throw new ValidationError(`${field} must be a structured property urn or qualified name, got ${input}`, field);
  return parsed.value;
}

export class DefaultHistoryService implements HistoryService {
  private readonly lanes = new ReadLanes(HISTORY_LANES);

  constructor(private readonly deps: { readonly db: Db; readonly entities: EntityService }) {}

  async aspectVersion(caller: Caller, urnText: string, aspect: string, version: number, entityType?: EntityTypeInfo): Promise<VersionedAspect> {
    if (!Number.isSafeInteger(version) || version < 0) throw new ValidationError(`version must be a whole number >= 0 (0 is the latest), got ${version}`, 'version');
    const urn = entityType ? parseUrnOfType(urnText, entityType) : parseUrn(urnText);
    requireKnownAspect(urn.entityType, aspect);
    if (version === 0) {
      // The latest as every read shows it (hidden values left out), with its stamp.
      const latest = await this.deps.entities.getAspect(caller, urn.value, aspect, urn.entityType);
      const stamp = await latestAudit(this.deps.db, urn.value, aspect);
      return { urn: urn.value, aspect, version, value: latest.value, systemMetadata: latest.systemMetadata, created: stampOf(stamp) };
    }
    const found = await aspectVersion(this.deps.db, urn.value, aspect, version);
    if (!found) throw new NotFoundError(`Version ${version} of aspect ${aspect} of ${urn.value} does not exist`);
    const value = aspect === ASPECT.structuredProperties ? visibleAt(found.metadata, found.createdOn.getTime(), await this.shownSince(propertiesNamed(found.metadata))) : found.metadata;
    return { urn: urn.value, aspect, version, value, systemMetadata: found.systemMetadata, created: stampOf(found) };
  }

  valueHistory(caller: Caller, query: HistoryQuery): Promise<HistoryPage> {
    return this.lanes.run(caller.actor, () => this.historyPage(query));
  }

  private async historyPage(query: HistoryQuery): Promise<HistoryPage> {
    const urn = query.urn ? parseUrn(query.urn).value : undefined;
    const propertyUrn = query.property ? propertyUrnOf(query.property) : undefined;
    if (urn === undefined && propertyUrn === undefined) throw new ValidationError('Name an entity (urn), a structured property (property), or both', 'urn');
    if (propertyUrn !== undefined) {
      const property = (await findProperties(this.deps.db, [propertyUrn])).get(propertyUrn);
      if (!property) throw new NotFoundError(`Structured property ${propertyUrn} does not exist`);
      if (property.removed) throw new SoftDeletedError(`Cannot read the history of soft deleted Structured Property [${propertyUrn}]; restore it first`, 'property');
    }
    const count = pageSize(query.count, HISTORY_PAGE);
    const { rows: page, more, resume } = count === 0 ? { rows: [], more: false, resume: undefined } : await valuesVersions(this.deps.db, {
      ...(urn !== undefined ? { urn } : {}),
      ...(propertyUrn !== undefined ? { propertyUrn } : {}),
      ...(query.scrollId ? { after: decodeHistoryCursor(query.scrollId) } : {}),
      limit: count,
      // A page ends at `count` entries or at this size, whichever comes first (issue #46 item 2).
      maxCharacters: LIMITS.historyPageCharacters,
    });
    const since = await this.shownSince(propertyUrn !== undefined ? [propertyUrn] : page.flatMap((r) => [...assignedIn(r.properties), ...assignedIn(r.previousProperties)]));
    const entries = historyEntries(page.map(versionOf), (p) => propertyUrn === undefined || p === propertyUrn, since);
    const last = page.at(-1);
    const about = urn !== undefined && parseUrn(urn).entityType.definitionAspect ? urn : propertyUrn;
    const events = query.scrollId || about === undefined ? [] : (await lifecycleEventsOf(this.deps.db, about, EVENTS_SHOWN)).map((e) => ({ urn: e.urn, event: e.event, time: e.createdOn.getTime(), actor: e.actor, via: e.via, detail: e.detail }));
    return { entries, events, scrollId: more && (resume ?? last) ? encodeHistoryCursor(resume ?? { time: last!.time, urn: last!.urn, revision: last!.revision }) : null };
  }

  /**
   * The one rule for which values a read of history may return (docs/contract.md, "Which
   * values a read may return"): a property's, from the start of its current lineage on,
   * while it exists and is not soft deleted.
   */
  private async shownSince(urns: readonly string[]): Promise<ShownSince> {
    const found = await findProperties(this.deps.db, [...new Set(urns)]);
    const from = new Map([...found.values()].filter((p) => !p.removed).map((p) => [p.urn, p.lineageStartedOn.getTime()]));
    return (p) => from.get(p);
  }
}

function propertiesNamed(metadata: unknown): string[] {
  return assignedIn((metadata as Partial<StructuredPropertiesAspect> | null | undefined)?.properties);
}

/** The properties a list of assignments names. */
function assignedIn(properties: unknown): string[] {
  return Array.isArray(properties) ? (properties as Array<{ propertyUrn?: unknown } | null>).map((p) => p?.propertyUrn).filter((u): u is string => typeof u === 'string') : [];
}

function stampOf(stamp: { createdOn: Date; createdBy: string; createdVia: string | null } | undefined): VersionedAspect['created'] {
  return stamp ? { time: stamp.createdOn.getTime(), actor: stamp.createdBy, via: stamp.createdVia } : { time: 0, actor: 'unknown', via: null };
}

/** A stored row as the domain reads it: the version before is null for a first write, unknown when retention deleted it. */
function versionOf(r: ValuesVersionRow): ValuesVersion {
  const previous = r.previousRevision !== null ? { properties: r.previousProperties } : r.revision === 1 ? null : undefined;
  return { urn: r.urn, version: r.version, metadata: { properties: r.properties }, previous, previousTime: r.previousTime ?? undefined, time: r.time, actor: r.createdBy, via: r.createdVia };
}

export function encodeHistoryCursor(cursor: HistoryCursor): string {
  return Buffer.from(JSON.stringify([cursor.time, cursor.urn, cursor.revision]), 'utf8').toString('base64url');
}

export function decodeHistoryCursor(scrollId: string): HistoryCursor {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(scrollId, 'base64url').toString('utf8'));
  } catch {
    parsed = undefined;
  }
  const [time, urn, revision] = Array.isArray(parsed) ? parsed : [];
  if (!Number.isSafeInteger(time) || typeof urn !== 'string' || !urn.startsWith('urn:li:') || textViolation(urn) || !Number.isSafeInteger(revision)) {
    throw new ValidationError('scrollId is not a valid cursor; pass the scrollId of the previous page unchanged', 'scrollId');
  }
  return { time: time as number, urn, revision: revision as number };
}
