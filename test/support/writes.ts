/**
 * The write entry point as the service tests call it most: one aspect set, patched or
 * deleted, a batch of one entity type, an entity deleted. Each builds the plan an
 * interface would and submits it (services.writes), so the tests exercise the one
 * entry point, not a second path.
 */
import type { EntityTypeInfo } from '../../src/domain/registry/entityTypes.js';
import type { PatchDocument } from '../../src/domain/jsonPatch.js';
import { parseUrn, parseUrnOfType } from '../../src/domain/urn.js';
import { entityDeletePlan, entityPlan, planOf, setChange, type AspectInput } from '../../src/domain/writes/plan.js';
import type { AspectResult } from '../../src/domain/writes/writeDecision.js';
import type { Caller, WriteOptions } from '../../src/services/caller.js';
import type { Services } from '../../src/services/index.js';
import { onlyEntity } from '../../src/services/writes/writeService.js';
import type { WriteReceipt, Written } from '../../src/services/writeReceipt.js';

export type { AspectInput };

interface SetOptions extends WriteOptions {
  readonly createOnly?: boolean;
  readonly entityType?: EntityTypeInfo;
}

export function writesOf(services: Pick<Services, 'writes'>) {
  const urnOf = (urn: string, type?: EntityTypeInfo) => (type ? parseUrnOfType(urn, type) : parseUrn(urn));
  return {
    async setAspect(caller: Caller, urn: string, aspect: string, input: AspectInput, options: SetOptions = {}): Promise<Written<AspectResult>> {
      const { createOnly, entityType, createsEntity, ...rest } = options;
      const written = await services.writes.submit(caller, entityPlan(urnOf(urn, entityType), [setChange(aspect, input, createOnly)], createsEntity ? { createsEntity } : {}), rest);
      return { result: onlyEntity(written.result).results[0]!, receipt: written.receipt };
    },
    async patchAspect(caller: Caller, urn: string, aspect: string, patch: PatchDocument, options: SetOptions = {}): Promise<Written<AspectResult>> {
      const { entityType, createsEntity, ...rest } = options;
      const written = await services.writes.submit(caller, entityPlan(urnOf(urn, entityType), [{ op: 'patch', aspect, patches: [patch] }], createsEntity ? { createsEntity } : {}), rest);
      return { result: onlyEntity(written.result).results[0]!, receipt: written.receipt };
    },
    async batchUpsert(
      caller: Caller,
      type: EntityTypeInfo,
      items: ReadonlyArray<{ urn: string; aspects: ReadonlyMap<string, AspectInput> }>,
      options: WriteOptions & { createOnly?: boolean; createEntityOnly?: boolean } = {},
    ): Promise<Written<Array<{ urn: string; results: readonly AspectResult[] }>>> {
      const { createOnly, createEntityOnly, ...rest } = options;
      const plan = planOf(items.map((i) => ({ urn: parseUrnOfType(i.urn, type), changes: [...i.aspects].map(([aspect, input]) => setChange(aspect, input, createOnly)) })), createEntityOnly ? { createEntityOnly } : {});
      const written = await services.writes.submit(caller, plan, rest);
      return { result: written.result.entities.map((e) => ({ urn: e.urn, results: e.results })), receipt: written.receipt };
    },
    async batchPatch(
      caller: Caller,
      type: EntityTypeInfo,
      items: ReadonlyArray<{ urn: string; aspects: ReadonlyMap<string, { patches: readonly PatchDocument[] }> }>,
      options: WriteOptions = {},
    ): Promise<Written<Array<{ urn: string; results: readonly AspectResult[] }>>> {
      const plan = planOf(items.map((i) => ({ urn: parseUrnOfType(i.urn, type), changes: [...i.aspects].map(([aspect, input]) => ({ op: 'patch' as const, aspect, patches: input.patches })) })));
      const written = await services.writes.submit(caller, plan, options);
      return { result: written.result.entities.map((e) => ({ urn: e.urn, results: e.results })), receipt: written.receipt };
    },
    async deleteEntity(caller: Caller, urn: string, options: WriteOptions & { entityType?: EntityTypeInfo } = {}): Promise<WriteReceipt> {
      const { entityType, ...rest } = options;
      return (await services.writes.submit(caller, entityDeletePlan(urnOf(urn, entityType)), rest)).receipt;
    },
    async deleteAspect(caller: Caller, urn: string, aspect: string, options: WriteOptions & { entityType?: EntityTypeInfo } = {}): Promise<WriteReceipt> {
      const { entityType, ...rest } = options;
      return (await services.writes.submit(caller, entityPlan(urnOf(urn, entityType), [{ op: 'delete', aspect }]), rest)).receipt;
    },
  };
}
