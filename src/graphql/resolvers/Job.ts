import { BULK_EDIT_VALUES } from '../../domain/jobKinds.js';
import type { BulkEditResult } from '../../services/jobs/bulkEditValues.js';
import type { JobResolvers, JobStatus } from '../generated/resolvers-types.js';

export const Job: JobResolvers = {
  status: (job) => job.status.toUpperCase() as JobStatus,
  propertyUrn: (job) => (typeof job.payload.propertyUrn === 'string' ? job.payload.propertyUrn : null),
  // A job that found nothing to do finishes without a total.
  percentDone: (job) => {
    if (job.status === 'done') return 100;
    if (job.total === null || job.total === 0) return 0;
    return Math.min(100, (100 * job.done) / job.total);
  },
  createdAt: (job) => Date.parse(job.createdOn),
  finishedAt: (job) => (job.finishedOn === null ? null : Date.parse(job.finishedOn)),
  bulkEdit: (job) => {
    if (job.kind !== BULK_EDIT_VALUES) return null;
    const r = (job.result ?? {}) as Partial<BulkEditResult>;
    return { changed: r.changed ?? 0, unchanged: r.unchanged ?? 0, refusedCount: r.refusedCount ?? 0, refused: r.refused ?? [] };
  },
};
