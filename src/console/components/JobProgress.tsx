/**
 * Follows a property's background job to its end with a progress bar: the cleanup of a
 * hard-deleted property's values, or a migration rewriting them (docs/contract.md §14).
 */
import { useEffect, useState } from 'react';
import { CLEANUP_PROPERTY_VALUES, MIGRATE_PROPERTY_VALUES } from '../../domain/jobKinds.js';
import { PropertyJobsDocument, type PropertyJobsQuery } from '../generated/graphql';
import { messageOf, request } from '../lib/api';
import { ErrorMessage } from './Messages';

type Job = PropertyJobsQuery['listJobs']['jobs'][number];

const POLL_MS = 500;

interface Words {
  readonly label: string;
  readonly name: string;
  readonly waiting: string;
  readonly done: string;
  readonly failed: string;
}

const WORDS: Record<string, Words> = {
  [CLEANUP_PROPERTY_VALUES]: { label: 'Removing values', name: 'Cleanup', waiting: 'Waiting for the cleanup job…', done: 'Every value is removed.', failed: 'The cleanup job failed' },
  [MIGRATE_PROPERTY_VALUES]: {
    label: 'Migrating values',
    name: 'Migration',
    waiting: 'Waiting for the migration job…',
    done: 'Every value is rewritten as the migration says.',
    failed: 'The migration job failed',
  },
};

function JobProgress({ propertyUrn, kind, onDone }: { propertyUrn: string; kind: string; onDone?: () => void }) {
  const [job, setJob] = useState<Job | null>(null);
  const [error, setError] = useState<string | null>(null);
  const words = WORDS[kind]!;
  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async () => {
      try {
        const found = (await request(PropertyJobsDocument, { propertyUrn, kind })).listJobs.jobs[0] ?? null;
        if (stopped) return;
        setJob(found);
        if (found?.status === 'DONE') onDone?.();
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
  }, [propertyUrn, kind]);

  if (error) return <ErrorMessage>{error}</ErrorMessage>;
  const percent = Math.round(job?.percentDone ?? 0);
  const counted = job?.total != null ? ` (${job.done} of ${job.total} entities)` : '';
  const id = `${kind}-progress`;
  return (
    <div className="cleanup">
      <label htmlFor={id}>{words.label}</label>
      <progress id={id} max={100} value={percent}>
        {percent}%
      </progress>
      <p role="status" aria-live="polite">
        {!job && words.waiting}
        {job?.status === 'DONE' && `${words.name} complete: ${percent}%${counted}. ${words.done}`}
        {job?.status === 'FAILED' && `${words.failed}: ${job.lastError ?? 'unknown error'}. It is retried automatically.`}
        {job && (job.status === 'PENDING' || job.status === 'RUNNING') && `${words.name} ${job.status.toLowerCase()}: ${percent}%${counted}`}
      </p>
    </div>
  );
}

/** The cleanup job of a hard-deleted property, until every value is removed. */
export const CleanupProgress = ({ propertyUrn }: { propertyUrn: string }) => <JobProgress propertyUrn={propertyUrn} kind={CLEANUP_PROPERTY_VALUES} />;

/** The migration job of a property, until every value is rewritten. */
export const MigrationProgress = ({ propertyUrn, onDone }: { propertyUrn: string; onDone?: () => void }) => <JobProgress propertyUrn={propertyUrn} kind={MIGRATE_PROPERTY_VALUES} onDone={onDone} />;
