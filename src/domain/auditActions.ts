/**
 * The audit trail's acts (services/audit.ts writes the lines): a vocabulary of the
 * domain, because an aspect module says which act a write or a delete of its aspect is
 * (domain/aspects/), and the services record it.
 */
export type AuditAction =
  /** A structured property's definition written (created, replaced, updated). */
  | 'definition.write'
  /** A metadata test's definition written. */
  | 'test.write'
  /** A policy written (created, changed, turned on or off). */
  | 'policy.write'
  /** An entity's status set to removed. */
  | 'entity.softDelete'
  /** A soft-deleted structured property brought back. */
  | 'entity.restore'
  /** An entity and all its aspects removed (for a structured property: its values by a cleanup job). */
  | 'entity.hardDelete'
  /** One aspect of an entity removed. */
  | 'aspect.delete'
  /** An entity taken out of the aspects of other entities that name it. */
  | 'references.remove'
  | 'token.create'
  | 'token.revoke'
  /** A rebuild of the search indexes asked for. */
  | 'index.rebuild'
  /** A bulk edit of one property's values queued as a job (its run is a job.run). */
  | 'values.bulkEdit'
  /** A job run ended: done, yielded to resume later, or failed (retried, or given up). */
  | 'job.run';
