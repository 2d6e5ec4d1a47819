/**
 * The status aspect `{removed: boolean}`. On a structured property it is the soft
 * delete switch (docs/contract.md §5): the registry's `removed` flag follows it in the same
 * statement.
 */
import { ConflictError, NotFoundError } from '../errors.js';
import { parseStatus } from '../status.js';
import { NO_NEEDS, plainDecision, storedAsIs, type AspectRules } from './aspectRules.js';
import type { AspectDecision, LifecycleNote } from './writeDecision.js';

/** A status write as a lifecycle event: soft deleted, or brought back from it. */
function statusEvents(stored: unknown, removed: boolean): LifecycleNote[] {
  const was = (stored as { removed?: unknown } | undefined)?.removed === true;
  if (removed && !was) return [{ event: 'softDeleted' }];
  if (!removed && was) return [{ event: 'restored' }];
  return [];
}

export const statusRules: AspectRules = {
  createsEntity: true,
  needs: () => NO_NEEDS,
  view: storedAsIs,
  decide: (next, state) => {
    const status = parseStatus(next);
    return { ...plainDecision(status), events: statusEvents(state.stored, status.removed) };
  },
};

export const propertyStatusRules: AspectRules = {
  // A status alone does not make a structured property: its definition does.
  createsEntity: false,
  changesRegistry: true,
  needs: (urn) => ({ ...NO_NEEDS, aspects: ['propertyDefinition'], properties: [urn.value] }),
  view: storedAsIs,
  decide: (next, state): AspectDecision => {
    const status = parseStatus(next);
    if (!state.aspects.has('propertyDefinition')) throw new NotFoundError(`Structured property ${state.urn.value} does not exist`);
    if (status.removed && state.properties.get(state.urn.value)?.migration) {
      throw new ConflictError(`A migration of ${state.urn.value}'s values is in progress; soft delete it once its job is done (GET /openapi/v3/jobs)`, { propertyUrn: state.urn.value });
    }
    return { ...plainDecision(status), registry: { urn: state.urn.value, define: null, removed: status.removed }, events: statusEvents(state.stored, status.removed) };
  },
};
