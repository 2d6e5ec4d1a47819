/**
 * The rules aspects share: stored as given after a shape check (any object:
 * datasetProperties, schemaMetadata, ...), and key aspects, derived from the URN and
 * never stored. Aspects with rules of their own have them in their modules
 * (domain/aspects/modules/).
 */
import { ValidationError } from '../errors.js';
import { keyAspectOf } from '../urn.js';
import { NO_NEEDS, plainDecision, storedAsIs, type AspectRules } from './aspectRules.js';

export function requireObject(value: unknown, aspect: string): Record<string, unknown> {
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    throw new ValidationError(`${aspect} must be a JSON object`, aspect);
  }
  return value as Record<string, unknown>;
}

export function objectAspectRules(aspect: string): AspectRules {
  return { createsEntity: true, needs: () => NO_NEEDS, view: storedAsIs, decide: (next) => plainDecision(requireObject(next, aspect)) };
}

/**
 * A key aspect (datasetKey, ...) is accepted when it agrees with the URN (DataHub
 * clients send them on create) and creates the entity, but nothing is stored.
 */
export function keyAspectRules(aspect: string): AspectRules {
  return {
    createsEntity: true,
    needs: () => NO_NEEDS,
    view: (_stored, context) => keyAspectOf(context.urn),
    decide: (next, state) => {
      const given = requireObject(next, aspect);
      const derived = keyAspectOf(state.urn);
      for (const [k, v] of Object.entries(given)) {
        if (derived[k] !== v) throw new ValidationError(`${aspect}.${k} does not match the urn ${state.urn.value}`, `${aspect}.${k}`);
      }
      return { ...plainDecision(derived), store: 'never' };
    },
  };
}
