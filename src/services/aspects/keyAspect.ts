/**
 * Key aspects (datasetKey, ...) are derived from the URN. A write of one is accepted
 * when it agrees with the URN (DataHub clients send them on create) and creates the
 * entity, but nothing is stored.
 */
import { ValidationError } from '../../domain/errors.js';
import { keyAspectOf, parseUrn } from '../../domain/urn.js';
import type { AspectHandler } from './handler.js';
import { requireObject } from './genericAspect.js';

export function keyAspectHandler(aspect: string): AspectHandler {
  return {
    createsEntity: true,
    view: async (_db, items) => items.map((i) => keyAspectOf(parseUrn(i.urn))),
    prepare: async (_tx, urn, next) => {
      const given = requireObject(next, aspect);
      const derived = keyAspectOf(urn);
      for (const [k, v] of Object.entries(given)) {
        if (derived[k] !== v) throw new ValidationError(`${aspect}.${k} does not match the urn ${urn.value}`, `${aspect}.${k}`);
      }
      return { stored: derived, skipWrite: true };
    },
  };
}
