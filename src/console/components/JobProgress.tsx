/** Follows the cleanup job of a hard-deleted property until every value is removed. */
import { useEffect, useState } from 'react';
import { CleanupJobsDocument, type CleanupJobsQuery } from '../generated/graphql';
import { messageOf, request } from '../lib/api';
import { ErrorMessage } from './Messages';

type Job = CleanupJobsQuery['listJobs']['jobs'][number];

const POLL_MS = 500;

export function CleanupProgress({ propertyUrn }: { propertyUrn: string }) {
  const [job, setJob] = useState<Job | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async () => {
      try {
        const found = (await request(CleanupJobsDocument, { propertyUrn })).listJobs.jobs[0] ?? null;
        if (stopped) return;
        setJob(found);
        if (found?.status === 'DONE' || found?.status === 'FAILED') return;
      } catch (err) {
        if (!stopped) setError(messageOf(err));
        return;
      }
      timer = setTimeout(() => void poll(), POLL_MS);
    };
    void poll();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [propertyUrn]);

  if (error) return <ErrorMessage>{error}</ErrorMessage>;
  const percent = Math.round(job?.percentDone ?? 0);
  const counted = job?.total != null ? ` (${job.done} of ${job.total} entities)` : '';
  return (
    <div className="cleanup">
      <label htmlFor="cleanup-progress">Removing values</label>
      <progress id="cleanup-progress" max={100} value={percent}>
        {percent}%
      </progress>
      <p role="status" aria-live="polite">
        {!job && 'Waiting for the cleanup job…'}
        {job?.status === 'DONE' && `Cleanup complete: ${percent}%${counted}. Every value is removed.`}
        {job?.status === 'FAILED' && `The cleanup job failed: ${job.lastError ?? 'unknown error'}. It is retried automatically.`}
        {job && (job.status === 'PENDING' || job.status === 'RUNNING') && `Cleanup ${job.status.toLowerCase()}: ${percent}%${counted}`}
      </p>
    </div>
  );
}
