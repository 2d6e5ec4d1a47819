/**
 * The status aspect `{removed: boolean}` (docs/contract.md §5): `removed: true` soft
 * deletes an entity (hidden from search unless asked for, reversible). The status of a
 * structured property governs its values too: propertyStatus.ts.
 */
import * as z from 'zod';
import type { AuditAction } from '../../auditActions.js';
import { parseShape } from '../../shapes/shape.js';
import { NO_NEEDS, plainDecision, storedAsIs, type AspectRules } from '../../writes/aspectRules.js';
import type { LifecycleNote } from '../../writes/writeDecision.js';
import type { AspectModule } from '../aspectModule.js';

export const statusShape = z
  .strictObject({ removed: z.boolean().describe('`true`: soft deleted (hidden, reversible).') })
  .meta({ id: 'Status', description: 'The `status` aspect. On a structured property, `removed: true` is a soft delete (reversible).' });

export function parseStatus(input: unknown): { removed: boolean } {
  return parseShape(statusShape, input, 'status');
}

/** A status write as a lifecycle event: soft deleted, or brought back from it. */
export function statusEvents(stored: unknown, removed: boolean): LifecycleNote[] {
  const was = (stored as { removed?: unknown } | undefined)?.removed === true;
  if (removed && !was) return [{ event: 'softDeleted' }];
  if (!removed && was) return [{ event: 'restored' }];
  return [];
}

/** Whether a written status value removes its entity; undefined when it is not a status at all (the write refuses it). */
export function removes(value: unknown): boolean | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  return (value as { removed?: unknown }).removed === true;
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

export const status: AspectModule = {
  name: 'status',
  pdlClass: 'com.linkedin.common.Status',
  rules: statusRules,
  audit: { write: (value): AuditAction | undefined => (removes(value) ? 'entity.softDelete' : undefined) },
  softDelete: { field: 'removed' },
  graphql: { field: 'status', view: (stored) => ({ removed: stored.removed === true }) },
};
