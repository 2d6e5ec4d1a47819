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
};
