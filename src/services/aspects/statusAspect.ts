/**
 * The status aspect `{removed: boolean}`. On a structured property it is the soft
 * delete switch (SPEC 5): the registry's `removed` flag follows it in the same
 * transaction, and deleting the aspect restores the property.
 */
import { NotFoundError, ValidationError } from '../../domain/errors.js';
import { setRemoved } from '../../store/propertyRegistry.js';
import { latestAspect } from '../../store/aspects.js';
import { identityView, type AspectHandler } from './handler.js';
import { requireObject } from './genericAspect.js';

function parseStatus(next: unknown): { removed: boolean } {
  const obj = requireObject(next, 'status');
  const extra = Object.keys(obj).filter((k) => k !== 'removed');
  if (extra.length > 0) throw new ValidationError(`Unknown field(s) in status: ${extra.join(', ')}`, extra[0]);
  if (typeof obj.removed !== 'boolean') throw new ValidationError('status.removed must be true or false', 'removed');
  return { removed: obj.removed };
}

export const statusHandler: AspectHandler = {
  createsEntity: true,
  view: identityView,
  prepare: async (_tx, _urn, next) => ({ stored: parseStatus(next) }),
};

export const propertyStatusHandler: AspectHandler = {
  // A status alone does not make a structured property: its definition does.
  createsEntity: false,
  view: identityView,
  prepare: async (tx, urn, next) => {
    const status = parseStatus(next);
    if (!(await latestAspect(tx, urn.value, 'propertyDefinition'))) {
      throw new NotFoundError(`Structured property ${urn.value} does not exist`);
    }
    return { stored: status, afterWrite: (t) => setRemoved(t, urn.value, status.removed) };
  },
  onDelete: (tx, urn) => setRemoved(tx, urn.value, false),
};
