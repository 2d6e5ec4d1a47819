/**
 * The status of a structured property: its soft delete switch (docs/contract.md §5). The
 * registry's `removed` flag follows it in the same statement, so the property's values
 * are hidden at once and shown again when it is brought back; deleting the status
 * brings it back too.
 */
import { ConflictError, NotFoundError } from '../../errors.js';
import { ENTITY } from '../../registry/entityTypes.js';
import { NO_NEEDS, plainDecision, storedAsIs, type AspectRules } from '../../writes/aspectRules.js';
import type { AspectDecision } from '../../writes/writeDecision.js';
import type { AspectModule } from '../aspectModule.js';
import { propertyDefinition } from './propertyDefinition.js';
import { parseStatus, removes, status, statusEvents } from './status.js';

export const propertyStatusRules: AspectRules = {
  // A status alone does not make a structured property: its definition does.
  createsEntity: false,
  changesRegistry: true,
  needs: (urn) => ({ ...NO_NEEDS, aspects: [propertyDefinition.name], properties: [urn.value] }),
  view: storedAsIs,
  decide: (next, state): AspectDecision => {
    const status = parseStatus(next);
    if (!state.aspects.has(propertyDefinition.name)) throw new NotFoundError(`Structured property ${state.urn.value} does not exist`);
    if (status.removed && state.properties.get(state.urn.value)?.migration) {
      throw new ConflictError(`A migration of ${state.urn.value}'s values is in progress; soft delete it once its job is done (GET /openapi/v3/jobs)`, { propertyUrn: state.urn.value });
    }
    return { ...plainDecision(status), registry: { urn: state.urn.value, define: null, removed: status.removed }, events: statusEvents(state.stored, status.removed) };
  },
  deleted: { ofAspect: () => ({ registry: 'restore', event: 'restored' }) },
};

export const propertyStatus: AspectModule = {
  ...status,
  only: [ENTITY.structuredProperty],
  rules: propertyStatusRules,
  audit: {
    write: (value) => {
      const removed = removes(value);
      return removed === undefined ? undefined : removed ? 'entity.softDelete' : 'entity.restore';
    },
    delete: 'entity.restore',
  },
};
