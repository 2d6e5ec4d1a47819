/**
 * What a stale save is told first (docs/contract.md §14, "Stale writes"): that their change
 * was not written, so the other's is not lost, and each write saved since they opened the
 * form or page, by whom and when. StaleFields (definitions, tests) and StaleValues
 * (an entity's values) show it above their choice of what stands.
 */
import { writeText, type StaleWrite } from '../lib/staleWrite';

export function WritesSince({ stale, subject, opened }: { stale: StaleWrite; subject: string; opened: string }) {
  return (
    <div role="alert">
      <p>
        Your change of {subject} was not written, so theirs is not lost. Saved since you opened {opened} (version {stale.expectedVersion}, now {stale.currentVersion}):
      </p>
      <ul className="stale-writes">
        {stale.writesSince.map((w) => (
          <li key={w.version}>{writeText(w)}</li>
        ))}
      </ul>
    </div>
  );
}
