/**
 * Per-request batching and caching of reads, so a query over many entries (a
 * dataset's properties, search results) costs a few queries, not one per field.
 */
import DataLoader from 'dataloader';
import { isKnownAspect } from '../domain/registry/entityTypes.js';
import { parseUrn, parseUrnOfType, tryParseUrn, type Urn } from '../domain/urn.js';
import type { Caller } from '../services/caller.js';
import type { Services } from '../services/index.js';
import type { AspectValue } from '../services/entityService.js';
import type { AuditStamps, PropertyState } from '../services/propertyService.js';
import { TEST_TYPE } from '../services/testCatalog.js';
import type { TestView } from '../services/testService.js';

export interface Loaders {
  /** One aspect of an entity as readers see it; null when the entity or aspect is absent. */
  readonly aspect: DataLoader<{ urn: string; aspect: string }, AspectValue | null, string>;
  /** Structured property definitions by urn; null when the property does not exist. */
  readonly property: DataLoader<string, PropertyState | null>;
  /** Who created and last changed a property's definition, and when; null when it has none. */
  readonly propertyAudit: DataLoader<string, AuditStamps | null>;
  /** Whether an entity exists. */
  readonly exists: DataLoader<string, boolean>;
  /** Metadata tests by urn; null when the test does not exist. */
  readonly test: DataLoader<string, TestView | null>;
  /** Whether the policies let the caller read an entity (its aspects are absent to them otherwise). */
  readonly readable: DataLoader<string, boolean>;
}

export function createLoaders(services: Services, caller: Caller): Loaders {
  const readable: DataLoader<string, boolean> = new DataLoader(async (keys) => {
    const parsed = keys.map((k) => tryParse(() => parseUrn(k)));
    const shown = await services.access.readable(caller, parsed.filter((p): p is Urn => !(p instanceof Error)).map((u) => u.value));
    return parsed.map((p) => (p instanceof Error ? p : shown.has(p.value)));
  });
  return {
    readable,
    aspect: new DataLoader(
      async (keys) => {
        const urns = [...new Set(keys.map((k) => k.urn))];
        const shown = await readable.loadMany(urns);
        const allowed = new Set(urns.filter((_, i) => shown[i] === true));
        // One read per entity type, of every aspect asked of its entities: DataHub's app asks
        // a dozen aspects of each search result, level by level (one read per aspect was 16
        // statements for its search page). An aspect the entity's type does not have is
        // absent (the read would refuse it, and with it the whole batch).
        const byType = new Map<string, { urns: Set<string>; aspects: Set<string> }>();
        for (const k of keys) {
          const type = allowed.has(k.urn) ? typeOfAspect(k.urn, k.aspect) : undefined;
          if (type === undefined) continue;
          let group = byType.get(type);
          if (!group) byType.set(type, (group = { urns: new Set(), aspects: new Set() }));
          group.urns.add(k.urn);
          group.aspects.add(k.aspect);
        }
        const views = await Promise.all([...byType.values()].map((g) => services.entities.readEntities([...g.urns].map((u) => parseUrn(u)), [...g.aspects])));
        const found = new Map<string, AspectValue>();
        for (const read of views) for (const [urn, view] of read) for (const [aspect, value] of view.aspects) found.set(`${urn}\n${aspect}`, value);
        return keys.map((k) => (allowed.has(k.urn) ? (found.get(`${k.urn}\n${k.aspect}`) ?? null) : null));
      },
      { cacheKeyFn: (k) => `${k.urn}\n${k.aspect}` },
    ),
    property: new DataLoader(async (urns) => {
      const found = await services.properties.getMany(urns);
      return urns.map((u) => found.get(u) ?? null);
    }),
    // DataHub's app asks each definition's created and lastModified under every facet and result.
    propertyAudit: new DataLoader(async (urns) => {
      const found = await services.properties.audits(urns);
      return urns.map((u) => found.get(u) ?? null);
    }),
    // One query for all keys; a key that is not a valid urn fails alone.
    exists: new DataLoader(async (keys) => {
      const parsed = keys.map((k) => tryParse(() => parseUrn(k)));
      const found = await services.entities.existing(parsed.filter((p): p is Urn => !(p instanceof Error)));
      return parsed.map((p) => (p instanceof Error ? p : found.has(p.value)));
    }),
    test: new DataLoader(async (keys) => {
      const parsed = keys.map((k) => tryParse(() => parseUrnOfType(k, TEST_TYPE)));
      const found = await services.tests.getTests(caller, parsed.filter((p): p is Urn => !(p instanceof Error)).map((u) => u.value));
      return parsed.map((p) => (p instanceof Error ? p : (found.get(p.value) ?? null)));
    }),
  };
}

/** The entity type of the URN when that type has the aspect; undefined otherwise. */
function typeOfAspect(urn: string, aspect: string): string | undefined {
  const parsed = tryParseUrn(urn);
  return parsed.ok && isKnownAspect(parsed.urn.entityType, aspect) ? parsed.urn.entityType.name : undefined;
}

function tryParse(parse: () => Urn): Urn | Error {
  try {
    return parse();
  } catch (err) {
    return err as Error;
  }
}
