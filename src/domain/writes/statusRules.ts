/**
 * The status aspect `{removed: boolean}`. On a structured property it is the soft
 * delete switch (docs/contract.md §5): the registry's `removed` flag follows it in the same
 * statement.
 */
import { NotFoundError } from '../errors.js';
import { parseStatus } from '../status.js';
import { NO_NEEDS, plainDecision, storedAsIs, type AspectRules } from './aspectRules.js';
import type { AspectDecision } from './writeDecision.js';

export const statusRules: AspectRules = {
  createsEntity: true,
  needs: () => NO_NEEDS,
  view: storedAsIs,
  decide: (next) => plainDecision(parseStatus(next)),
};

export const propertyStatusRules: AspectRules = {
  // A status alone does not make a structured property: its definition does.
  createsEntity: false,
  needs: () => ({ ...NO_NEEDS, aspects: ['propertyDefinition'] }),
  view: storedAsIs,
  decide: (next, state): AspectDecision => {
    const status = parseStatus(next);
    if (!state.aspects.has('propertyDefinition')) throw new NotFoundError(`Structured property ${state.urn.value} does not exist`);
    return { ...plainDecision(status), registry: { urn: state.urn.value, define: null, removed: status.removed } };
  },
};
