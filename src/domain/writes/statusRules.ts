/**
 * The status aspect `{removed: boolean}`. On a structured property it is the soft
 * delete switch (SPEC 5): the registry's `removed` flag follows it in the same
 * statement.
 */
import { NotFoundError, ValidationError } from '../errors.js';
import { requireObject } from './plainAspectRules.js';
import { NO_NEEDS, plainDecision, storedAsIs, type AspectRules } from './aspectRules.js';
import type { AspectDecision } from './writeDecision.js';

export function parseStatus(next: unknown): { removed: boolean } {
  const obj = requireObject(next, 'status');
  const extra = Object.keys(obj).filter((k) => k !== 'removed');
  if (extra.length > 0) throw new ValidationError(`Unknown field(s) in status: ${extra.join(', ')}`, extra[0]);
  if (typeof obj.removed !== 'boolean') throw new ValidationError('status.removed must be true or false', 'removed');
  return { removed: obj.removed };
}

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
