/**
 * Aspects without rules of their own (datasetProperties, schemaMetadata, ...) are
 * stored as given after a shape check: a JSON object.
 */
import { ValidationError } from '../../domain/errors.js';
import { identityView, type AspectHandler } from './handler.js';

export function requireObject(value: unknown, aspect: string): Record<string, unknown> {
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    throw new ValidationError(`${aspect} must be a JSON object`, aspect);
  }
  return value as Record<string, unknown>;
}

export function genericAspectHandler(aspect: string): AspectHandler {
  return {
    createsEntity: true,
    view: identityView,
    prepare: async (_tx, _urn, next) => ({ stored: requireObject(next, aspect) }),
  };
}
