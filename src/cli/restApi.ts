/** The REST v3 calls the commands make, typed (docs/contract.md §4 shapes). */
import { ENTITY } from '../domain/registry/entityTypes.js';
import { ApiError } from './errors.js';
import type { HttpClient } from './httpClient.js';
import type { PropertyDefinition } from '../domain/propertyDefinition.js';
import type { PatchOperation } from '../domain/jsonPatch.js';
import type { ValueImpact } from '../domain/valueImpact.js';

/** An entity as v3 returns it: `{urn, <aspect>: {value}}`. */
export type EntityBody = { urn: string } & Record<string, unknown>;

export function aspectValue<T = Record<string, unknown>>(entity: EntityBody, aspect: string): T | undefined {
  const wrapped = entity[aspect] as { value?: T } | undefined;
  return wrapped?.value;
}

/** The version of an aspect as read (`systemMetadata.version`), or "-1" when it was absent. */
export function aspectVersion(entity: EntityBody | undefined, aspect: string): string {
  const held = entity?.[aspect] as { systemMetadata?: { version?: unknown } } | undefined;
  if (!held) return '-1';
  // An aspect stored without a version counts as its first (as the server counts it).
  const version = held.systemMetadata?.version;
  return version === undefined || version === null ? '1' : String(version);
}

/** Per aspect, the version a write expects to replace (DataHub's If-Version-Match). */
export type Versions = Readonly<Record<string, string>>;

const ifVersion = (versions: Versions | undefined, aspect: string) =>
  versions?.[aspect] !== undefined ? { headers: { 'If-Version-Match': versions[aspect] } } : {};

export interface PropertyState {
  readonly definition: PropertyDefinition;
  readonly removed: boolean;
}

/** A definition write's dry run: what a new version would drop; the breaking changes and what a migration would do. */
export interface DefinitionDryRun {
  readonly dryRun?: boolean;
  readonly impact?: ValueImpact;
  readonly compatibility?: {
    readonly breaking?: ReadonlyArray<{ readonly change: string; readonly holders: number | null }>;
    readonly migration?: {
      readonly holders: number;
      readonly changed: number;
      readonly rules: ReadonlyArray<{ readonly rule: string; readonly entities: number; readonly values: number; readonly examples: ReadonlyArray<{ urn: string; before: unknown[]; after: unknown[] | null }> }>;
    };
  };
}

const path = (entityType: string, urn?: string, aspect?: string) =>
  `/entity/${entityType}${urn !== undefined ? `/${encodeURIComponent(urn)}` : ''}${aspect ? `/${aspect}` : ''}`;

function isNotFound(err: unknown): boolean {
  return err instanceof ApiError && err.status === 404 && !err.isMissingRoute;
}

export class RestApi {
  constructor(readonly http: HttpClient) {}

  /** The entity with the aspects named (all when none), or undefined when it does not exist. */
  async getEntity(entityType: string, urn: string, aspects?: readonly string[], options: { systemMetadata?: boolean } = {}): Promise<EntityBody | undefined> {
    try {
      return await this.http.request<EntityBody>('GET', this.http.v3(path(entityType, urn)), { query: { aspects, ...(options.systemMetadata ? { systemMetadata: true } : {}) } });
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  async getPropertyState(urn: string): Promise<PropertyState | undefined> {
    const entity = await this.getEntity(ENTITY.structuredProperty.name, urn, ['propertyDefinition', 'status']);
    const definition = entity && aspectValue<PropertyDefinition>(entity, 'propertyDefinition');
    if (!entity || !definition) return undefined;
    return { definition, removed: aspectValue<{ removed?: boolean }>(entity, 'status')?.removed === true };
  }

  /** Writes (creates or replaces) one aspect. */
  async upsertAspect(entityType: string, urn: string, aspect: string, value: unknown): Promise<EntityBody> {
    return this.http.request<EntityBody>('POST', this.http.v3(path(entityType, urn, aspect)), {
      query: { createIfNotExists: false },
      json: { value },
    });
  }

  /** Creates or updates several entities of one type in one server transaction. */
  async batchUpsert(entityType: string, entities: ReadonlyArray<{ urn: string; aspects: Record<string, unknown>; versions?: Versions }>): Promise<EntityBody[]> {
    const body = entities.map((e) => ({
      urn: e.urn,
      ...Object.fromEntries(Object.entries(e.aspects).map(([name, value]) => [name, { value, ...ifVersion(e.versions, name) }])),
    }));
    return this.http.request<EntityBody[]>('POST', this.http.v3(path(entityType)), { query: { createIfNotExists: false }, json: body });
  }

  /**
   * Patches aspects of several entities of one type in one server transaction (the
   * entity-level PATCH): per entity and aspect, JSON patch operations applied to what
   * the server holds, so what they do not name is kept.
   */
  async batchPatch(entityType: string, entities: ReadonlyArray<{ urn: string; patches: Record<string, readonly PatchOperation[]>; versions?: Versions }>): Promise<EntityBody[]> {
    const body = entities.map((e) => ({
      urn: e.urn,
      ...Object.fromEntries(Object.entries(e.patches).map(([aspect, patch]) => [aspect, { value: { patch }, ...ifVersion(e.versions, aspect) }])),
    }));
    return this.http.request<EntityBody[]>('PATCH', this.http.v3(path(entityType)), { json: body });
  }

  /** The named aspects of the entities that exist (those that do not are left out); `systemMetadata` adds each aspect's version. */
  async batchGet(entityType: string, urns: readonly string[], aspects: readonly string[], options: { systemMetadata?: boolean } = {}): Promise<EntityBody[]> {
    const body = urns.map((urn) => ({ urn, ...Object.fromEntries(aspects.map((a) => [a, {}])) }));
    return this.http.request<EntityBody[]>('POST', this.http.v3(`${path(entityType)}/batchGet`), {
      json: body,
      ...(options.systemMetadata ? { query: { systemMetadata: true } } : {}),
    });
  }

  async deleteEntity(entityType: string, urn: string): Promise<void> {
    await this.http.request('DELETE', this.http.v3(path(entityType, urn)));
  }

  /** What a hard delete would remove, removing nothing (dryRun=true). */
  async deleteImpact(entityType: string, urn: string): Promise<ValueImpact> {
    return (await this.http.request<{ impact: ValueImpact }>('DELETE', this.http.v3(path(entityType, urn)), { query: { dryRun: true } })).impact;
  }

  /** A definition written with a migration (docs/contract.md §14); dryRun: what it would do, written nothing. */
  async migrateDefinition(urn: string, definition: PropertyDefinition, migration: unknown, dryRun: boolean): Promise<DefinitionDryRun> {
    return this.http.request<DefinitionDryRun>('POST', this.http.v3(path(ENTITY.structuredProperty.name, urn, 'propertyDefinition')), {
      query: { createIfNotExists: false, ...(dryRun ? { dryRun: true } : {}) },
      json: { value: definition, migration },
    });
  }

  /** Sets one property's values on an entity (a JSON patch of its structuredProperties), only if its version is still `ifVersion` when given. */
  async setValues(entityType: string, urn: string, propertyUrn: string, values: readonly unknown[], ifVersion?: string): Promise<EntityBody> {
    return this.http.request<EntityBody>('PATCH', this.http.v3(path(entityType, urn, 'structuredProperties')), {
      json: { patch: [{ op: 'add', path: `/properties/${propertyUrn}`, value: { propertyUrn, values } }], arrayPrimaryKeys: { properties: ['propertyUrn'] } },
      ...(ifVersion !== undefined ? { headers: { 'if-version-match': ifVersion } } : {}),
    });
  }

  /** What writing the aspect would drop of stored values, writing nothing (dryRun=true); a refused write throws as it would. */
  async writeImpact(entityType: string, urn: string, aspect: string, value: unknown): Promise<ValueImpact> {
    return (await this.http.request<{ impact: ValueImpact }>('POST', this.http.v3(path(entityType, urn, aspect)), { query: { createIfNotExists: false, dryRun: true }, json: { value } })).impact;
  }

  async listEntities(
    entityType: string,
    options: { count: number; scrollId?: string; aspects?: readonly string[]; query?: string },
  ): Promise<{ scrollId?: string; entities: EntityBody[] }> {
    return this.http.request('GET', this.http.v3(path(entityType)), {
      query: { count: options.count, scrollId: options.scrollId, aspects: options.aspects, query: options.query },
    });
  }
}
