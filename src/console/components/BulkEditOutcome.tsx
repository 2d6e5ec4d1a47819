/**
 * A bulk edit's job as it runs and once it ends (docs/contract.md §15): a progress bar,
 * then how many entities changed, stayed and were left as they were, the ones changed
 * after the selection (skipped because they no longer match, or edited on their values
 * as they were then), and every entity left as it was with the reason (the first
 * thousand, as the job keeps them).
 */
import type { BulkEditJobQuery } from '../generated/graphql';
import { counted } from '../lib/properties';
import { entityPath, Link } from '../lib/router';
import { StatusMessage } from './Messages';

export type BulkJob = NonNullable<BulkEditJobQuery['job']>;

export function BulkEditOutcome({ job, selected }: { job: BulkJob; selected: number }) {
  const outcome = job.bulkEdit;
  const percent = Math.round(job.percentDone);
  const running = job.status === 'PENDING' || job.status === 'RUNNING';
  return (
    <div className="bulk-outcome">
      {running && (
        <>
          <label htmlFor="bulk-progress">Applying the edit</label>
          <progress id="bulk-progress" max={100} value={percent}>
            {percent}%
          </progress>
        </>
      )}
      <StatusMessage>
        {job.status === 'DONE'
          ? `Done: ${outcome?.changed ?? 0} changed, ${outcome?.unchanged ?? 0} unchanged, ${outcome?.refusedCount ?? 0} refused.`
          : job.status === 'FAILED'
            ? `The bulk edit failed: ${job.lastError ?? 'unknown error'}`
            : `Editing: ${percent}% (${job.done} of ${job.total ?? selected})`}
      </StatusMessage>
      {job.status === 'DONE' && outcome && (outcome.skipped > 0 || outcome.changedSinceSelection > 0) && (
        <p>
          {outcome.skipped > 0 && `${counted(outcome.skipped, 'entity was', 'entities were')} changed after the selection and no longer matched the search: left as they were (listed below). `}
          {outcome.changedSinceSelection > 0 && `${counted(outcome.changedSinceSelection, 'entity', 'entities')} someone else changed after the selection still matched and were edited on their values as they were then.`}
        </p>
      )}
      {outcome && outcome.refused.length > 0 && (
        <table className="bulk-refused">
          <caption>
            {counted(outcome.refusedCount, 'entity', 'entities')} left as {outcome.refusedCount === 1 ? 'it was' : 'they were'}, with the reason
            {outcome.refused.length < outcome.refusedCount ? ` (the first ${outcome.refused.length} listed)` : ''}
          </caption>
          <thead>
            <tr>
              <th scope="col">Entity</th>
              <th scope="col">Reason</th>
            </tr>
          </thead>
          <tbody>
            {outcome.refused.map((r) => (
              <tr key={r.urn}>
                <td>
                  <Link href={entityPath(r.urn)}>
                    <code className="urn">{r.urn}</code>
                  </Link>
                </td>
                <td>{r.reason}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
