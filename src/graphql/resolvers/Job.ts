import { BULK_EDIT_VALUES } from '../../domain/jobKinds.js';
import type { BulkEditResult } from '../../services/jobs/bulkEditValues.js';
import type { JobView } from '../../services/jobs/jobService.js';
import type { JobResolvers, JobStatus } from '../generated/resolvers-types.js';

export const Job: JobResolvers = {
  status: (job) => job.status.toUpperCase() as JobStatus,
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
    // A listing carries counts only; job(id) carries the refused entities too.
    const result = 'result' in job ? ((job as JobView).result as Partial<BulkEditResult> | null) : null;
    const counts = (result ?? job.counts ?? {}) as Partial<BulkEditResult>;
    return {
      changed: counts.changed ?? 0,
      unchanged: counts.unchanged ?? 0,
      refusedCount: counts.refusedCount ?? 0,
      skipped: counts.skipped ?? 0,
      changedSinceSelection: counts.changedSinceSelection ?? 0,
      refused: result?.refused ?? [],
    };
  },
};
