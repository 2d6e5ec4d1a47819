/**
 * Entities and their aspects, behind REST's entity routes and GraphQL: the reads (one
 * entity, many, a page of one type, a batch, a write's trace, the aspects that name an
 * entity) and the two entity-wide acts built on the write entry point: taking an entity
 * out of the aspects that name it, and what a delete would remove. Every write is a plan
 * submitted to services/writes/writeService.ts; the listing of one type, with its scroll
 * ids, is entityListing.ts's.
 */
import { findEntityType, type EntityTypeInfo } from '../domain/registry/entityTypes.js';
import { NotFoundError } from '../domain/errors.js';
import { checkRequestedResults, requireBatchSize } from '../domain/limits.js';
import { referenceRulesFor } from '../domain/references.js';
import type { UrnNamespace } from '../domain/typeUrns.js';
import { parentUrnOf, parseUrn, parseUrnOfType, type Urn } from '../domain/urn.js';
import { NO_CHANGE } from '../domain/writes/entityWrite.js';
import { planOf } from '../domain/writes/plan.js';
import { aspectTraceOf, lastChangeOfTrace, type AspectTrace } from '../domain/writeTrace.js';
import type { ValueImpact } from '../domain/valueImpact.js';
import { entitiesWithAspectContaining, entityExists, latestAspectNamesOfMany, type EntityPageReader } from '../store/aspects.js';
import { entitiesPendingUpTo } from '../store/changeLog.js';
import type { Db } from '../store/database.js';
import { heldValueImpact } from '../store/heldValueImpact.js';
import { propertyImpact } from '../store/propertyImpact.js';
import type { Caller, WriteOptions } from './caller.js';
import { existingUrns, readEntityViews } from './entityReads.js';
import { listEntityPage } from './entityListing.js';
import type { AspectValue, EntityView } from './entityView.js';
import type { IndexWaiter } from './indexWaiter.js';
import type { WriteService } from './writes/writeService.js';
import type { Written } from './writeReceipt.js';

export type { AspectValue, EntityView } from './entityView.js';

/** Resolves a REST `{entityName}` path segment (case-insensitive). */
export function entityTypeNamed(name: string): EntityTypeInfo {
  const type = findEntityType(name);
  if (!type) throw new NotFoundError(`Unknown entity type ${name}`);
  return type;
}

/** An aspect of another entity that names an entity (DataHub's relationship name). */
export interface EntityReference {
  readonly entity: string;
  readonly aspect: string;
  readonly relationship: string;
}

export interface EntityDeps {
  readonly db: Db;
  /** Pages of entities with named aspects in one read (search pages, batch reads). */
  readonly readEntityPage: EntityPageReader;
  /** The namespace views show type URNs in (URN_NAMESPACE). */
  readonly urnNamespace: UrnNamespace;
  readonly indexWaiter: IndexWaiter;
  /** The one write entry point. */
  readonly writes: WriteService;
}

export interface EntityService {
  /** Reads an entity's latest aspects (all, or those named) as readers see them. */
  getEntity(caller: Caller, urnValue: string, options?: { entityType?: EntityTypeInfo; aspects?: readonly string[] }): Promise<EntityView>;
  /** Reads one aspect; 404 when the entity or the aspect does not exist. */
  getAspect(caller: Caller, urnValue: string, aspect: string, entityType?: EntityTypeInfo): Promise<AspectValue>;
  /** Whether the entity exists (a schema field when its dataset does). */
  exists(urnValue: string): Promise<boolean>;
  /** Which of the entities exist (a schema field when its dataset does), in one query. */
  existing(urns: readonly Urn[]): Promise<Set<string>>;
  /**
   * Batched read for many entities (search results): three queries (existence,
   * aspects, and the value rows that views of structured properties need), whatever
   * the number of entities. Entities that do not exist are absent from the map.
   */
  readEntities(urns: readonly Urn[], aspects?: readonly string[]): Promise<Map<string, EntityView>>;
  /**
   * Lists entities of one type from the database in URN order. The scroll id is an
   * opaque cursor (the last URN returned); null when there is nothing more.
   */
  listEntities(caller: Caller, entityType: EntityTypeInfo, options: { count: number; scrollId?: string; aspects?: readonly string[] }): Promise<{ scrollId: string | null; entities: EntityView[] }>;
  /**
   * Reads the named aspects of several entities of one type (DataHub's batchGet); an
   * item naming no aspect gets all of them. Entities that do not exist are left out.
   */
  batchGet(caller: Caller, entityType: EntityTypeInfo, items: readonly { urn: string; aspects: readonly string[] }[]): Promise<EntityView[]>;
  /**
   * DataHub's write trace: for each entity and aspect asked about, whether the write the
   * trace id stands for is stored and searchable (domain/writeTrace.ts). Exactly the
   * entities and aspects asked about are answered; the client rejects any other.
   */
  traceWrites(caller: Caller, traceId: string, asked: ReadonlyMap<string, readonly string[]>): Promise<Map<string, Map<string, AspectTrace>>>;
  /** The aspects of other entities that name this entity (a tag in a dataset's globalTags, ...). */
  references(caller: Caller, urnValue: string): Promise<EntityReference[]>;
  /**
   * Takes this entity out of every aspect that names it, as one plan of edits of those
   * aspects (all or nothing); answers what it changed.
   */
  removeReferences(caller: Caller, urnValue: string, options?: WriteOptions): Promise<Written<EntityReference[]>>;
  /** What hard-deleting the entity would remove of the values entities hold: a property's values everywhere, an entity's own (REST dryRun=true). */
  previewDelete(caller: Caller, urnValue: string, options?: { entityType?: EntityTypeInfo }): Promise<ValueImpact>;
}

export class DefaultEntityService implements EntityService {
  constructor(private readonly deps: EntityDeps) {}

  async getEntity(_caller: Caller, urnValue: string, options: { entityType?: EntityTypeInfo; aspects?: readonly string[] } = {}): Promise<EntityView> {
    const urn = options.entityType ? parseUrnOfType(urnValue, options.entityType) : parseUrn(urnValue);
    const views = await this.readEntities([urn], options.aspects);
    const view = views.get(urn.value);
    if (!view) throw new NotFoundError(`Entity ${urn.value} does not exist`);
    return view;
  }

  async getAspect(caller: Caller, urnValue: string, aspect: string, entityType?: EntityTypeInfo): Promise<AspectValue> {
    const view = await this.getEntity(caller, urnValue, { ...(entityType ? { entityType } : {}), aspects: [aspect] });
    const value = view.aspects.get(aspect);
    if (!value) throw new NotFoundError(`Aspect ${aspect} of ${view.urn} does not exist`);
    return value;
  }

  async exists(urnValue: string): Promise<boolean> {
    const urn = parseUrn(urnValue);
    const parent = parentUrnOf(urn);
    return (await entityExists(this.deps.db, urn.value)) || (parent !== undefined && (await entityExists(this.deps.db, parent)));
  }

  existing(urns: readonly Urn[]): Promise<Set<string>> {
    return existingUrns(this.deps.db, urns);
  }

  readEntities(urns: readonly Urn[], aspects?: readonly string[]): Promise<Map<string, EntityView>> {
    return readEntityViews(this.deps, urns, aspects);
  }

  listEntities(_caller: Caller, entityType: EntityTypeInfo, options: { count: number; scrollId?: string; aspects?: readonly string[] }): Promise<{ scrollId: string | null; entities: EntityView[] }> {
    return listEntityPage(this.deps, entityType, options);
  }

  async batchGet(_caller: Caller, entityType: EntityTypeInfo, items: readonly { urn: string; aspects: readonly string[] }[]): Promise<EntityView[]> {
    requireBatchSize(items.length);
    // An item naming no aspect reads every aspect its type has, the key aspect included.
    checkRequestedResults(items.reduce((n, item) => n + (item.aspects.length || entityType.aspects.length + 1), 0), 'This batchGet', 'body');
    const parsed = items.map((item) => ({ urn: parseUrnOfType(item.urn, entityType), aspects: item.aspects }));
    const everything = parsed.some((p) => p.aspects.length === 0);
    const views = await this.readEntities(parsed.map((p) => p.urn), everything ? undefined : [...new Set(parsed.flatMap((p) => p.aspects))]);
    return parsed.flatMap(({ urn, aspects }) => {
      const view = views.get(urn.value);
      if (!view) return [];
      if (aspects.length === 0) return [view];
      return [{ ...view, aspects: new Map([...view.aspects].filter(([name]) => aspects.includes(name))) }];
    });
  }

  async traceWrites(_caller: Caller, traceId: string, asked: ReadonlyMap<string, readonly string[]>): Promise<Map<string, Map<string, AspectTrace>>> {
    const upTo = lastChangeOfTrace(traceId);
    // Bounded as a batch is: the answer holds one status per entity and aspect asked about.
    requireBatchSize(asked.size);
    checkRequestedResults([...asked.values()].reduce((n, aspects) => n + aspects.length, 0), 'This write trace', 'body');
    const entries = [...asked].map(([text, aspects]) => ({ text, urn: parseUrn(text), aspects }));
    const urns = entries.map((e) => e.urn);
    const [existing, stored, pending] = await Promise.all([
      this.existing(urns),
      latestAspectNamesOfMany(this.deps.db, urns.map((u) => u.value)),
      entitiesPendingUpTo(this.deps.db, urns.map((u) => u.value), upTo),
    ]);
    const out = new Map<string, Map<string, AspectTrace>>();
    for (const { text, urn, aspects } of entries) {
      const own = stored.get(urn.value);
      const exists = (aspect: string) => existing.has(urn.value) && (aspect === urn.entityType.keyAspect || own?.has(aspect) === true);
      out.set(text, new Map(aspects.map((aspect) => [aspect, aspectTraceOf({ exists: exists(aspect), searchPending: pending.has(urn.value), searchEnabled: this.deps.indexWaiter.indexing })])));
    }
    return out;
  }

  async references(_caller: Caller, urnValue: string): Promise<EntityReference[]> {
    const urn = parseUrn(urnValue);
    const found: EntityReference[] = [];
    for (const rule of referenceRulesFor(urn.entityType.name)) {
      for (const entity of await entitiesWithAspectContaining(this.deps.db, rule.aspect, rule.patterns(urn.value))) {
        found.push({ entity, aspect: rule.aspect, relationship: rule.relationship });
      }
    }
    return found;
  }

  async removeReferences(caller: Caller, urnValue: string, options: WriteOptions = {}): Promise<Written<EntityReference[]>> {
    const urn = parseUrn(urnValue);
    const found = await this.references(caller, urnValue);
    const rules = new Map(referenceRulesFor(urn.entityType.name).map((r) => [r.aspect, r]));
    const plan = planOf(
      found.map((ref) => {
        const rule = rules.get(ref.aspect)!;
        return { urn: parseUrn(ref.entity), changes: [{ op: 'compute' as const, aspect: ref.aspect, compute: (current: unknown) => (current === undefined ? NO_CHANGE : rule.remove(current, urn.value)) }] };
      }),
    );
    const written = await this.deps.writes.submit(caller, plan, options);
    return { result: found, receipt: written.receipt };
  }

  async previewDelete(_caller: Caller, urnValue: string, options: { entityType?: EntityTypeInfo } = {}): Promise<ValueImpact> {
    const urn = options.entityType ? parseUrnOfType(urnValue, options.entityType) : parseUrn(urnValue);
    return urn.entityType.definitionAspect ? propertyImpact(this.deps.db, urn.value) : heldValueImpact(this.deps.db, urn.value);
  }
}
