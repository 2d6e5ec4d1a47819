/** Runs tests now (runTests) and follows the job with a progress bar until it ends. */
import { useEffect, useState } from 'react';
import { RunJobDocument, RunTestsDocument, type RunJobQuery } from '../generated/graphql';
import { messageOf, request } from '../lib/api';
import { ErrorMessage } from './Messages';

type Job = NonNullable<RunJobQuery['job']>;

const POLL_MS = 500;

export function TestRun({ testUrns, label, onDone }: { testUrns?: readonly string[]; label: string; onDone?: () => void }) {
  const [jobId, setJobId] = useState<string | null>(null);
  const [job, setJob] = useState<Job | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    if (!jobId) return;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async () => {
      try {
        const found = (await request(RunJobDocument, { id: jobId })).job;
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
  }, [jobId, onDone]);

  const start = async () => {
    setError(null);
    setJob(null);
    try {
      setJobId((await request(RunTestsDocument, { input: testUrns ? { testUrns: [...testUrns] } : {} })).runTests.id);
    } catch (err) {
      setError(messageOf(err));
    }
  };
  const running = jobId !== null && job?.status !== 'DONE' && job?.status !== 'FAILED';
  const percent = Math.round(job?.percentDone ?? 0);
  const counted = job?.total != null ? ` (${job.done} of ${job.total} entities)` : '';
  return (
    <div className="test-run">
      <button type="button" className="secondary" onClick={() => void start()} disabled={running}>
        {label}
      </button>
      {jobId && (
        <>
          <label htmlFor={`run-${jobId}`} className="visually-hidden">
            Evaluating
          </label>
          <progress id={`run-${jobId}`} max={100} value={percent}>
            {percent}%
          </progress>
        </>
      )}
      <p role="status" aria-live="polite" className="hint">
        {jobId && !job && 'Waiting for the run to start…'}
        {job?.status === 'DONE' && `Run complete${counted}.`}
        {job?.status === 'FAILED' && `The run failed: ${job.lastError ?? 'unknown error'}.`}
        {job && (job.status === 'PENDING' || job.status === 'RUNNING') && `Evaluating: ${percent}%${counted}`}
      </p>
      <ErrorMessage>{error}</ErrorMessage>
    </div>
  );
}
